package search

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/internal/outside"
	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/workers"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Parallel exploration, on every core, is package workers's: this process
// and worker processes re-running the test binary on the test judge the
// places of the random pass (JudgePlace), the parent collects their
// verdicts and runs the sequential pass itself, recalling them (run.go).

var FlagWorkers = flag.Int("ctrlsim.workers", 0, "operatortest: worker processes exploring plans in parallel (0: Options.Workers, default GOMAXPROCS; 1: in the test's process)")

// WorkerEnv marks a worker process (workers.WorkerEnv).
const WorkerEnv = workers.WorkerEnv

func hello(w *world.World, t *testing.T) workers.Hello {
	return workers.Hello{Test: t.Name(), Seed: w.Opts.EffectiveSeed(), Checks: w.Opts.Checks, Shard: w.Opts.Shard.String(), KeepGoing: w.Opts.KeepGoing}
}

// workerCount is how many workers explore t's plans, this process included (1:
// this process alone) and, when fewer than asked, why (logged).
func workerCount(w *world.World, t *testing.T, call int) (int, string, error) {
	n, explicit := w.Opts.Workers, w.Opts.Workers > 0
	if *FlagWorkers > 0 {
		n = *FlagWorkers
	}
	if n == 0 {
		n = world.CoresOfTest()
	}
	switch {
	case n <= 1:
		return 1, "", nil
	case os.Getenv(WorkerEnv) != "":
		return 1, "", nil // a worker's other explorations run in it
	case *world.FlagPlan != "":
		return 1, "", nil
	case outside.Running() && explicit:
		return 0, "", fmt.Errorf("Options.Workers is %d in %s, run outside a test binary (internal/outside): worker processes re-run a test binary's test by name, and this program is not one; leave Workers at 0 (this process alone)", w.Opts.Workers, t.Name())
	case outside.Running():
		return 1, "", nil // no test binary to re-run: this process alone, as asked by default
	case call > 1 && explicit:
		return 0, "", fmt.Errorf("Options.Workers is %d on exploration %d of %s: worker processes re-run the test from its start and explore at its first exploration only; give each exploration its own subtest (t.Run)", w.Opts.Workers, call, t.Name())
	case call > 1:
		return 1, fmt.Sprintf("operatortest: exploration %d of %s runs in this process (worker processes explore a test's first exploration only; give each its own subtest to use every core)", call, t.Name()), nil
	}
	return n, "", nil
}

// JudgePlace explores the places get hands out, in order, and reports each
// verdict to put; invalid is told of a draw rapid rejected (a worker's
// workers.Judge).
func JudgePlace(w *world.World, t *testing.T, get func() int, put func(k int, sigs []string, err, cut string), invalid func(k int)) {
	next, over := 0, false
	explore.RunPlaces(generator(w, t), w.Opts.Checks, w.Opts.Seed, explore.Places{
		Skip: func(k int) bool {
			if !over && next < k {
				if next = get(); next == 0 {
					over = true
				}
			}
			return over || k != next
		},
		Invalid: func(k int) {
			invalid(k)
			over = true
		},
	}, func(k int, p *plan.Plan) error {
		if Judging != nil {
			Judging(k)
		}
		long := longOf(w)
		long.start(fmt.Sprintf("plan %d", k), "judging it against its fault-free runs", p)
		defer long.done()
		w.Phase = world.PhaseFind
		r, err := reference.RunRecalled(w, t, p) // the pass recalls what this process judged
		switch {
		case err != nil:
			put(k, nil, err.Error(), "")
		case len(r.Violated()) == 0:
			put(k, nil, "", world.CutNote(r.Verdicts))
		default:
			put(k, signatures(w, r.Violated()), "", world.CutNote(r.Verdicts))
		}
		return nil
	})
}

// judging, if set, is called as a worker (this process or a worker
// process) starts to judge a place: a test's hook.
var Judging func(place int)

// work is a worker process's exploration, worker j of n (workers.Serve):
// it exits.
func work(w *world.World, t *testing.T, j, n int) {
	workers.Serve(hello(w, t), j, n, func() error { return Preflight(w, t) }, judgeIn(w, t), func() map[string]int { return w.Excused })
}

// judgeIn is JudgePlace over w's places in this process.
func judgeIn(w *world.World, t *testing.T) workers.Judge {
	return func(get func() int, put func(k int, sigs []string, err, cut string), invalid func(k int)) {
		JudgePlace(w, t, get, put, invalid)
	}
}

// parallel explores t's plans with n workers (this process and n-1 worker
// processes) and returns their verdicts up to the first place that stops a
// sequential pass (all of them with KeepGoing), of the first limit random
// places (-1: all).
func parallel(w *world.World, t *testing.T, n int, seen map[string]bool, limit int) (*workers.Verdicts, error) {
	checks := randomBudget(w)
	if limit >= 0 {
		checks = min(checks, limit)
	}
	return workers.Run(workers.Exploration{Test: t.Name(), Pattern: failure.RunPattern(t.Name()), Hello: hello(w, t), Workers: n,
		Checks: checks, Place: func(k int) int { return placeOf(w, k) }, Owns: func(k int) bool { return w.Opts.Shard.Owns(placeOf(w, k)) }, Keep: w.Opts.KeepGoing, Seen: seen,
		Judge: judgeIn(w, t), Progress: progressOf(t)})
}

// progressOf is how the workers say how far they have got on t: this
// package's hooks, read when used.
func progressOf(t *testing.T) workers.Progress {
	return workers.Progress{Every: ProgressEvery, Now: func() time.Time { return progressNow() }, Ticker: func(every time.Duration) (<-chan time.Time, func()) { return progressTicker(every) },
		Log: func(format string, args ...any) { t.Helper(); LogProgress(t, format, args...) }}
}
