package search_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

// Exploring with 2 or 3 worker processes finds what one process finds: the
// same first failing place, the same minimal plan, the same trace hash and
// violations (a bug a crash between two writes shows); and for an operator
// that holds, the same number of plans, none violating.
func TestParallelExplorationsGiveTheSequentialResult(t *testing.T) {
	defer optest.RandomPassOnly()()
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	// Every exploration first, the comparisons after: a worker process runs
	// the test up to its exploration only.
	buggy := optest.AppOptions(optest.TrustsItsMark)       // optest: a restart between two writes
	buggy.Checks, buggy.Seed, buggy.ShrinkRuns = 30, 3, 15 // a bounded shrink is as deterministic as a whole one
	correct := optest.TickerOptions(false)                 // a time-driven operator: its verdicts name excuses (same-downtime, ...)
	correct.Checks = 20
	var seq, okSeq search.Result
	par, okPar := map[int]search.Result{}, map[int]search.Result{}
	t.Run("buggy", func(t *testing.T) {
		seq = optest.ExploreWith(t, buggy, 1)
		for _, n := range []int{2, 3} {
			par[n] = optest.ExploreWith(t, buggy, n)
		}
	})
	t.Run("correct", func(t *testing.T) {
		okSeq = optest.ExploreWith(t, correct, 1)
		for _, n := range []int{2, 3} {
			okPar[n] = optest.ExploreWith(t, correct, n)
		}
	})
	if !seq.Caught || seq.FirstFailure < 3 {
		t.Fatalf("want the sequential exploration to catch the bug after a few plans (so that every worker judges some before it): %+v", seq)
	}
	t.Logf("sequential: first failure at place %d, hash %s, minimal plan:\n%s", seq.FirstFailure, seq.Hash, seq.Minimal)
	t.Logf("the correct operator's verdicts, sequential, named the excuses %v", okSeq.Excused)
	for _, n := range []int{2, 3} {
		par := par[n]
		switch {
		case !par.Caught:
			t.Errorf("%d workers: not caught: %+v", n, par)
		case par.FirstFailure != seq.FirstFailure || par.Checks != seq.Checks:
			t.Errorf("%d workers: first failure at place %d after %d plans, sequential at %d after %d", n, par.FirstFailure, par.Checks, seq.FirstFailure, seq.Checks)
		case par.Minimal.String() != seq.Minimal.String():
			t.Errorf("%d workers: minimal plan\n%s\nsequential:\n%s", n, par.Minimal, seq.Minimal)
		case par.Hash != seq.Hash:
			t.Errorf("%d workers: trace hash %s, sequential %s", n, par.Hash, seq.Hash)
		case !slices.Equal(optest.PropertiesOf(par), optest.PropertiesOf(seq)):
			t.Errorf("%d workers: violated %q, sequential %q", n, optest.PropertiesOf(par), optest.PropertiesOf(seq))
		}
		okPar := okPar[n]
		if okPar.Caught || okSeq.Caught || okPar.Checks != okSeq.Checks || okPar.Checks != correct.Checks {
			t.Errorf("the correct operator, %d workers: caught %v after %d plans; sequential: caught %v after %d; want none after %d", n, okPar.Caught, okPar.Checks, okSeq.Caught, okSeq.Checks, correct.Checks)
		}
		// The excuses its verdicts named, counted in every process.
		if !maps.Equal(okPar.Excused, okSeq.Excused) {
			t.Errorf("the correct operator, %d workers: excuses used %v, sequential %v", n, okPar.Excused, okSeq.Excused)
		}
	}
}

// KeepGoing over workers finds the same distinct violations, each at the
// same place with the same minimal plan, as in one process: the workers
// judge every place, then each distinct violation is shrunk in a process of
// its own (shrinkjobs.go), not one after another here.
func TestParallelKeepGoingGivesTheSequentialFindings(t *testing.T) {
	defer optest.RandomPassOnly()() // the random pass's findings: the sweep's are found here
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	o := optest.BugOptions(&optest.KnownBugs{TwoWrites: true}, true)
	o.KeepGoing, o.Checks = true, 40
	seq := optest.ExploreWith(t, o, 1)
	before := search.ShrunkInParallel
	par := optest.ExploreWith(t, o, 2) // the worker process explores in par's subtest
	// Every signature the workers saw is shrunk in a process of its own;
	// those its fault-free run shows too, or a finding's minimal plan
	// shows beside its own (one root cause), are then listed under
	// another finding, as the sequential passes list them.
	withFault := 0
	for _, f := range par.Findings {
		if !f.NoFault {
			withFault++
		}
	}
	if n := search.ShrunkInParallel - before; n < withFault || withFault == 0 {
		t.Errorf("with 2 workers %d signatures were shrunk in processes of their own, for %d findings that need a fault: want one at least for each", n, withFault)
	}
	if len(seq.Findings) < 2 {
		t.Fatalf("sequential KeepGoing found %d distinct violations, want the panic and the copy bug", len(seq.Findings))
	}
	if len(par.Findings) != len(seq.Findings) || par.Checks != seq.Checks {
		t.Fatalf("2 workers: %d findings after %d plans, sequential %d after %d", len(par.Findings), par.Checks, len(seq.Findings), seq.Checks)
	}
	for i, f := range seq.Findings {
		g := par.Findings[i]
		if g.Signature != f.Signature || g.FirstFailure != f.FirstFailure || g.Minimal.String() != f.Minimal.String() || g.Hash != f.Hash {
			t.Errorf("finding %d: 2 workers %s at %d (hash %s), sequential %s at %d (hash %s)", i, g.Signature, g.FirstFailure, g.Hash, f.Signature, f.FirstFailure, f.Hash)
		}
	}
}

// A worker that cannot reach its test's exploration (here a subtest named
// after what an earlier subtest did, which the worker's -test.run skips)
// fails the exploration with one line saying so, never a silent pass.
func TestAWorkerThatCannotReachTheExplorationFailsLoudly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	round := 0
	t.Run("first", func(t *testing.T) { round++ })
	t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
		o := optest.BugOptions(&optest.KnownBugs{}, false)
		o.Workers, o.Checks = 2, 4
		_, err := search.Explore(t, o)
		if err == nil || !strings.Contains(err.Error(), "never reached the exploration of "+t.Name()) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v, want one line: a worker never reached the exploration", err)
		}
	})
}

// By default (Options.Workers 0, no -ctrlsim.workers) a test that worker
// processes cannot re-run by name (a subtest named after what an earlier one
// did) is explored in the test's process alone, with no error and the result
// of one worker.
func TestADefaultExplorationWorkersCannotReachRunsInTheTestsProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	if *search.FlagWorkers != 0 {
		t.Skip("-ctrlsim.workers is set: not the default")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the default is every core: two here
	o := optest.BugOptions(&optest.KnownBugs{}, false)
	o.Checks = 4
	one := optest.ExploreWith(t, o, 1)
	round := 0
	t.Run("first", func(t *testing.T) { round++ })
	t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
		res, err := search.Explore(t, o)
		if err != nil {
			t.Fatalf("the default Workers: %v, want the exploration in this process", err)
		}
		if res.Caught != one.Caught || res.Checks != one.Checks || res.Checks != o.Checks {
			t.Errorf("caught %v after %d plans; one worker: caught %v after %d; want none after %d", res.Caught, res.Checks, one.Caught, one.Checks, o.Checks)
		}
	})
}

// A worker process that dies holding a place fails the exploration with one
// line naming it. (Worker 2 exits as it starts its first place; this process
// waits at its own first place until it has, so that the worker holds one.
// The random pass alone: the sweep's ranked plans would take the whole
// budget of 4, and no worker would hold a place.)
func TestAWorkerThatDiesFailsLoudly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	defer optest.RandomPassOnly()()
	o := optest.BugOptions(&optest.KnownBugs{}, false)
	o.Workers, o.Checks = 2, 4
	role := os.Getenv(search.WorkerEnv)
	waited := false
	search.Judging = func(int) {
		switch {
		case strings.HasPrefix(role, "2/"):
			marker := filepath.Join(os.TempDir(), fmt.Sprintf("ctrlsim-worker-died-%d", os.Getppid()))
			_ = os.WriteFile(marker, nil, 0o644)
			fmt.Fprintln(os.Stderr, "worker 2 exits on purpose")
			os.Exit(7)
		case role == "" && !waited:
			waited = true
			marker := filepath.Join(os.TempDir(), fmt.Sprintf("ctrlsim-worker-died-%d", os.Getpid()))
			defer os.Remove(marker)
			for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(marker); err == nil {
					return
				}
			}
		}
	}
	defer func() { search.Judging = nil }()
	_, err := search.Explore(t, o)
	if err == nil || !strings.Contains(err.Error(), "worker 2/2 of "+t.Name()+" died before its last verdict (exit status 7): worker 2 exits on purpose") {
		t.Errorf("got %v, want: worker 2/2 died", err)
	}
}

// A second exploration in one test cannot be re-run by workers: asked for
// explicitly it is an error naming the way out, never ignored. (The random
// pass alone: the sweep's ranked plans would take the whole budget of 2,
// and the random pass, whose workers are refused, would not begin.)
func TestWorkersOnASecondExplorationOfATestAreRefused(t *testing.T) {
	defer optest.RandomPassOnly()()
	o := optest.BugOptions(&optest.KnownBugs{}, false)
	o.Workers, o.Checks = 1, 2
	if _, err := search.Explore(t, o); err != nil {
		t.Fatal(err)
	}
	o.Workers = 2
	_, err := search.Explore(t, o)
	if err == nil || !strings.Contains(err.Error(), "Options.Workers is 2 on exploration 2 of "+t.Name()) {
		t.Errorf("got %v, want Options.Workers refused on a second exploration", err)
	}
}
