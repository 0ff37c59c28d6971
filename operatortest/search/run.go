package search

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/rootcause"
	"github.com/ctrlsim/ctrlsim/operatortest/workers"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Run tests the operator: it explores plans of faults (informer lag and holds,
// crashes at any client call, API errors and latency, more workers) over
// Options.Checks plans, each run as a fault phase, a heal and a heal budget and
// judged by the generic oracles and the test's properties. A violation is
// shrunk to a minimal plan, saved under testdata/ctrlsim/<test>.plan, replayed
// (it must give the same trace hash, else the test fails with both hashes
// and the first step where the runs differ), and reported with the property,
// what it saw, a replay command and the timeline (controllers' log lines and
// Events included); the test fails, unless Options.Expect expects it. A saved
// plan is replayed first on every later run, as a regression test, until it
// holds (then delete it). With -ctrlsim.plan=FILE, Run replays that plan only.
// Options are validated first: a bad one fails the test with one line naming
// it.
func Run(t *testing.T, o world.Options) {
	t.Helper()
	defer world.Simulating()()
	o, err := o.WithDefaults().WithFlags()
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	w, err := NewWorld(o)
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	if err := AimFaultPhase(w, t); err != nil { // phase.go
		t.Fatalf("operatortest: %v", err)
	}
	call := workers.NextExploration(t)
	if j, n := workers.Role(t, call); j > 0 {
		work(w, t, j, n) // a worker process: it exits
	}
	if job := shrinkRole(t, call); job != nil {
		shrinkAlone(w, t, *job) // a shrinking process (shrinkjobs.go): it exits
	}
	rep := &reporter{t: t, w: w}
	if *world.FlagPlan != "" {
		p, err := readPlanFile(w, t.Name(), *world.FlagPlan) // validate.go
		if err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		rep.judge(p, *world.FlagPlan)
		rep.finish(1)
		return
	}
	known := map[string]bool{}
	var saved []rootcause.Finding // a saved plan that still violates, for each of its signatures: root causes found before
	still, stillFaulted := 0, 0   // saved plans that still violate; those of them with a fault
	pinned := false               // a saved plan with no fault shows Options.Expect's known bug
	for _, path := range savedPlans(t.Name()) {
		p, err := readPlanFile(w, t.Name(), path)
		if err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		expected := rep.expected
		sigs := rep.judge(p, path)
		pinned = pinned || len(p.Faults) == 0 && rep.expected > expected
		for _, sig := range sigs {
			known[sig] = true
			saved = append(saved, rootcause.Finding{Signature: sig, Plan: p})
		}
		if len(sigs) > 0 {
			still++
			if len(p.Faults) > 0 {
				stillFaulted++
			}
		}
	}
	if (stillFaulted > 0 || pinned) && !o.KeepGoing {
		// A saved plan with no fault still violating does not end it: a
		// finding that needs a fault is never hidden by one that does not.
		// Unless it shows Options.Expect's known bug: then it ends it as
		// plan 0 does (pinsKnownBug), and a second run of the test in the
		// same checkout finds what the first found.
		rep.finish(0)
		return
	}
	// savePlan saves f's minimal plan where a finding of its signature is
	// saved, and returns the path.
	savePlan := func(f Finding) string {
		if err := os.MkdirAll(filepath.Dir(savedPath(t.Name(), "")), 0o755); err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		path := savedPath(t.Name(), "")
		switch {
		case f.NoFault:
			path = strings.TrimSuffix(savedPath(t.Name(), f.Signature), ".plan") + ".no-fault.plan" // replayed beside the finding that needs a fault
		case o.KeepGoing:
			path = savedPath(t.Name(), f.Signature)
		}
		if err := os.WriteFile(path, []byte(failure.PlanHeader(t.Name(), path)+failure.PlanText(f.Minimal, failure.SeedNames(w))), 0o644); err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		return path
	}
	// saveListed saves the plan of a finding listed under another, and says
	// so with its line and its replay command: one root cause, but every
	// plan that showed a signature kept.
	saveListed := func(f Finding) {
		path := savePlan(f)
		t.Logf("%s; its minimal plan is saved as %s (replay: %s)", f.listedLine, path, failure.ReplayCommand(t.Name(), path))
	}
	// With KeepGoing each finding is saved and reported as soon as it is
	// shrunk (a long exploration's findings are not held back to its end).
	reported := 0
	saveAndReport := func(f Finding, more string) {
		path := savePlan(f)
		also := ""
		switch {
		case len(f.Also) > 0 && f.NoFault:
			also = fmt.Sprintf(" (the same fault-free run also violates %s: one run, one finding)", strings.Join(f.Also, "; "))
		case len(f.Also) > 0:
			also = fmt.Sprintf(" (the same plan also violates %s: one root cause, one finding)", strings.Join(f.Also, "; "))
		}
		if f.NoFault {
			t.Logf("operatortest: %s%s: violated with no fault at all (plan 0: the fault-free run of its workload), found in %s; the plan is saved as %s%s",
				f.Signature, also, f.TimeToFind.Round(time.Millisecond), path, more)
		} else {
			bounded := ""
			switch {
			case f.ShrinkCut:
				bounded = fmt.Sprintf("; cut after %s of wall time, as a plan is (Options.PlanTimeout): the smallest failing plan so far, which a faster machine may shrink further", o.PlanTimeout)
			case f.ShrinkBounded:
				bounded = fmt.Sprintf("; stopped at its bound, the smallest failing plan so far (Options.ShrinkRuns; by default twice the random plans to find it, at least %d)", shrinkFloor)
			}
			t.Logf("operatortest: %s%s: violated after %d plans (seed %d; plan %d is %s), found in %s, shrunk in %s (%d candidates, %d runs%s); the minimal plan is saved as %s%s",
				f.Signature, also, f.FirstFailure, o.EffectiveSeed(), f.FirstFailure, f.By, f.TimeToFind.Round(time.Millisecond), f.ShrinkTime.Round(time.Millisecond),
				f.ShrinkCandidates, f.ShrinkRuns, bounded, path, more)
		}
		rep.replay(f, path)
	}
	var found func(Finding)
	if o.KeepGoing {
		found = func(f Finding) {
			if f.ListedUnder != "" {
				saveListed(f)
				return
			}
			saveAndReport(f, "")
			reported++
		}
	}
	res, err := exploreWorld(w, t, known, saved, call, found)
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	if *world.FlagJSON != "" {
		if err := workers.WriteShardResult(*world.FlagJSON, res.ShardResult(t.Name(), o)); err != nil {
			t.Fatalf("operatortest: %v", err)
		}
	}
	if res.Unaimed != "" {
		t.Logf("operatortest: %s", res.Unaimed)
	}
	for _, u := range res.Unjudged {
		// Logged with its plan, not saved: a search that ends at its first
		// finding does not make the next run judge another.
		t.Logf("operatortest: a worker process also saw %s, past the plan that ended the search: not judged here (Options.KeepGoing judges and shrinks each; to replay it, save this plan and pass it with -ctrlsim.plan):\n%s",
			u, failure.PlanText(res.Drawn[u], failure.SeedNames(w)))
	}
	for _, u := range res.Unreproduced {
		t.Errorf("operatortest: %s: a worker process saw it, and judged again in this process the plan does not show it: a run that is not a function of its plan (see the lines on determinism above, or run with -ctrlsim.workers=1); the plan:\n%s", u,
			failure.PlanText(res.Drawn[u], failure.SeedNames(w)))
	}
	if len(res.Findings) == 0 && res.Checks > 0 && res.Cut == res.Checks {
		// No silent pass: nothing was judged (cut.go).
		t.Fatalf("operatortest: every one of the %d plans explored (seed %d) was cut at the work bound, none judged: %s", res.Checks, o.EffectiveSeed(), res.CutNote)
	}
	if len(res.Findings) == 0 {
		t.Logf("operatortest: %d plans explored (seed %d) in %s, no %sviolation%s", res.Checks, o.EffectiveSeed(),
			res.Elapsed.Round(time.Millisecond), map[bool]string{true: "new ", false: ""}[len(known) > 0], clause(CoverageLine(res.Targeted))+clause(CutLine(res)))
	}
	if len(res.Findings) > 0 && needsFault(res.Findings)+needsFault(res.Listed) == 0 {
		t.Logf("operatortest: %d plans explored (seed %d) in %s, no violation that needs a fault%s", res.Checks, o.EffectiveSeed(),
			res.Elapsed.Round(time.Millisecond), clause(CoverageLine(res.Targeted))+clause(CutLine(res)))
	}
	for _, f := range res.Findings[reported:] {
		saveAndReport(f, clause(CoverageLine(res.Targeted))+clause(CutLine(res)))
	}
	if s := explorationOf(w).carried; s != "" {
		t.Logf("operatortest: %s", s) // determinism.go
	}
	if s := explorationOf(w).nondeterminism; s != "" {
		t.Errorf("operatortest: %s", s) // said once, the preflight's or a replay's (determinism.go)
	}
	if o.KeepGoing {
		// Findings, not signatures nor replays: a saved plan that still
		// violates counts once, whatever it violates.
		n := len(res.Findings) + still
		t.Logf("operatortest: kept going: %d distinct violation%s over %d plans (seed %d)%s", n,
			world.Plural(n), res.Checks, o.EffectiveSeed(), clause(CoverageLine(res.Targeted))+clause(CutLine(res)))
	}
	rep.finish(res.Checks)
}

// Result is what an exploration found.
type Result struct {
	// Caught: a plan violated a property (a fault-free one included:
	// nofault.go). Checks is then how many plans it took to find the first
	// violation that needs a fault; otherwise how many were explored (this
	// shard's). With KeepGoing, Checks is how many plans the last pass
	// explored (the budget, unless it stopped at maxFindings).
	Caught bool
	Checks int
	// FirstFailure is the place of the first violating plan in the
	// explorer's sequence (the same as Checks unless sharded); 0 when the
	// first finding is one with no fault at all (Findings[0].NoFault). The
	// fields below are the first finding's (Findings[0]).
	FirstFailure int
	// Minimal is the shrunk violating plan; Violations what it violates;
	// Hash the trace hash of its run (a replay of Minimal gives the same).
	Minimal    *plan.Plan
	Violations []check.Verdict
	Hash       string
	// TimeToFirstFailure is the wall time from the start to the first
	// violating plan, ShrinkTime the time its shrinking took, Elapsed the
	// whole exploration's.
	TimeToFirstFailure, ShrinkTime, Elapsed time.Duration
	// ShrinkCandidates, ShrinkRuns and ShrinkBounded are the first
	// finding's (Finding).
	ShrinkCandidates, ShrinkRuns int
	ShrinkBounded                bool
	// Excused counts, by name, the cases of verdict's table of excuses
	// that the explored plans' verdicts named (verdict.Excuses).
	Excused map[string]int
	// Targeted says how many of the targeted plans of each class the
	// exploration ran (beside its random ones), of how many its workload gave,
	// and of the ranked ones among them (sweep.go; CoverageLine: "ranked
	// plans covered 40 of 40, then ... stale pairs 200 of 1,700").
	Targeted []Coverage
	// Cut is how many of the plans explored were cut at the work bound and
	// not judged (cut.go), CutNote the first one's place and why.
	Cut     int
	CutNote string
	// Unreproduced are the violations a worker process saw at a place that
	// this process, judging the place again, did not show: a run that is
	// not a function of its plan ("<signature> at plan <n>"), reported,
	// never dropped.
	Unreproduced []string
	// Unjudged are the violations a worker process saw past the plan whose
	// finding ended the search ("<signature> at plan <n>"): the workers
	// judge ahead of this process, and the search did not go there; Run
	// logs each with its plan.
	Unjudged []string
	// Drawn are the plans of the places Unreproduced and Unjudged name, as
	// the exploration draws them (not shrunk), by their entry.
	Drawn map[string]*plan.Plan
	// Listed are the findings KeepGoing listed under an earlier finding of
	// the same root cause (package rootcause; Finding.ListedUnder), each
	// with its minimal plan, saved by Run and printed with its replay line.
	Listed []Finding
	// Nondeterminism, if set, says once where two runs of one plan
	// differed beyond what the oracles ignore (the operator ranges over a
	// Go map to render a field, say), and how to declare it: the
	// exploration judged those fields as if declared (determinism.go).
	Nondeterminism string
	// Carried, if set, says once where the cluster's controllers (or the
	// operator's own later reconciles) carried on a difference of the
	// operator's own in what the oracles ignore (a keyed list's order, a
	// declared field): the operator's, logged, not failed (determinism.go).
	Carried string
	// Unaimed, if set, says in one line which classes of targeted plans
	// found no target inside the fault phase while the operator writes
	// after it, and names the option that moves it (phase.go).
	Unaimed string
	// Findings are the distinct violations found, in order (the first is
	// Minimal's): those the fault-free runs show first (NoFault), then one
	// that needs a fault without KeepGoing, each root cause once with it.
	Findings []Finding
}

// Finding is one distinct violation an exploration found.
type Finding struct {
	// Signature tells violations apart: the property, the kinds its report
	// names and, for a panic, the code that panicked (Signature).
	Signature string
	// ListedUnder is, for a finding of Result.Listed, the signature of the
	// finding it is listed under (KeepGoing: one root cause, package
	// rootcause); its plan is saved all the same.
	ListedUnder string
	listedLine  string
	// Also are the other signatures of the same root cause: new ones its
	// plan shows too (a targeted plan is one fault; a minimal plan the
	// smallest that shows its signature) and, with KeepGoing, those of a
	// later plan shown to be the same bug (package rootcause), listed under
	// it (Result.Listed), not reported as findings of their own.
	Also []string
	// By says which kind of plan first showed it: "a random plan", "a
	// targeted plan (ranked crashes after a write)" (the sweep's, its class
	// and whether ranked: sweep.go), or "no fault at all" (NoFault).
	By string
	// NoFault: the fault-free run of its workload shows it (plan 0, "with
	// no fault at all"): Minimal has no fault, FirstFailure is 0. Such a
	// finding is saved and shown first, and the exploration goes on for
	// the findings that need a fault (nofault.go).
	NoFault    bool
	Minimal    *plan.Plan
	Violations []check.Verdict
	Hash       string
	// FirstFailure is the place of the first plan that showed it in the
	// explorer's sequence; TimeToFind the wall time until then (from the
	// start of its pass), ShrinkTime the time its shrinking took.
	FirstFailure           int
	TimeToFind, ShrinkTime time.Duration
	// ShrinkCandidates are the plans the shrinker tried, ShrinkRuns the
	// runs it cost (candidates not recalled, their reference runs and the
	// runs that judged them again): where a shrink's time went.
	ShrinkCandidates, ShrinkRuns int
	// ShrinkCut: the shrink ran past Options.PlanTimeout of wall time and
	// was cut there, as a plan is (ShrinkBounded is set too): its Minimal
	// depends on the machine's speed.
	ShrinkCut bool
	// ShrinkBounded: the shrink stopped at its bound (shrinkBound), its
	// Minimal the smallest failing plan so far, not one rapid could shrink
	// no further.
	ShrinkBounded bool
	steps         []trace.Step
	// explored is the run that showed it, where kept: what its replay is
	// compared with (determinism.go).
	explored *world.RunResult
	// suspected are the own violations of the run its interleavings-agree
	// violation blames, where that is not its own run and Options.Expect
	// is set (failure.Suspect.Violated): part of its plan's whole.
	suspected []check.Verdict
}

// Explore explores as Run does and returns what it found, without saving,
// replaying or failing the test (for measurements: checks to catch a bug).
// An error is a world that cannot run (the test's setup, bad Options), not a
// finding. With -ctrlsim.plan=FILE it runs that plan only.
func Explore(t *testing.T, o world.Options) (Result, error) {
	defer world.Simulating()()
	o = o.WithDefaults()
	w, err := NewWorld(o)
	if err != nil {
		return Result{}, err
	}
	if err := AimFaultPhase(w, t); err != nil { // phase.go
		return Result{}, err
	}
	call := workers.NextExploration(t)
	if j, n := workers.Role(t, call); j > 0 {
		work(w, t, j, n) // a worker process: it exits
	}
	if job := shrinkRole(t, call); job != nil {
		shrinkAlone(w, t, *job) // a shrinking process (shrinkjobs.go): it exits
	}
	if *world.FlagPlan != "" {
		return replayFile(w, t, *world.FlagPlan)
	}
	return exploreWorld(w, t, nil, nil, call, nil)
}

// replayFile runs the plan in path as an exploration of one plan.
func replayFile(w *world.World, t *testing.T, path string) (Result, error) {
	start := time.Now()
	p, err := readPlanFile(w, t.Name(), path)
	if err != nil {
		return Result{}, err
	}
	w.Phase = world.PhaseReplay
	r, err := reference.Run(w, t, p)
	w.Phase = ""
	if err != nil {
		return Result{}, err
	}
	out := Result{Checks: 1, Hash: r.Hash, Elapsed: time.Since(start)}
	if vs := r.Violated(); len(vs) > 0 {
		f := Finding{Signature: signatures(w, vs)[0], Minimal: p, Violations: vs, Hash: r.Hash, FirstFailure: 1, TimeToFind: out.Elapsed, steps: r.Steps}
		out.Caught, out.FirstFailure, out.Minimal, out.Violations, out.TimeToFirstFailure = true, 1, p, vs, out.Elapsed
		out.Findings = []Finding{f}
	}
	return out, nil
}

// ExploreShards explores each shard of n in turn, as n processes or CI jobs
// would, and returns their results (for workers.Merge).
func ExploreShards(t *testing.T, o world.Options, n int) ([]workers.ShardResult, error) {
	var out []workers.ShardResult
	for i := 1; i <= n; i++ {
		so := o
		so.Shard = world.Shard{Index: i, Count: n}
		r, err := Explore(t, so)
		if err != nil {
			return nil, err
		}
		out = append(out, r.ShardResult(t.Name(), so.WithDefaults()))
	}
	return out, nil
}

// maxFindings bounds the distinct violations KeepGoing looks for.
const maxFindings = 16

// explore searches for violations whose signatures are not in known, the
// signatures of saved, plans saved before that still violate (with
// KeepGoing: one pass per new signature, each over the same sequence of
// plans, the plans already judged recalled rather than run again). With
// several workers (package workers), worker processes judge the places first and
// every pass recalls their verdicts; call is the test's count of
// explorations, this one included.
func exploreWorld(w *world.World, t *testing.T, known map[string]bool, saved []rootcause.Finding, call int, found func(Finding)) (Result, error) {
	start := time.Now()
	defer watchWorld(t, w)()
	long := longOf(w)
	long.start("the fault-free run with no workload (preflight)", "starting the operator", &plan.Plan{Seed: w.Opts.EffectiveSeed()})
	err := Preflight(w, t)
	long.done()
	if err != nil {
		return Result{}, err
	}
	if found == nil {
		found = func(Finding) {}
	}
	// own reports f as a finding of its own, unless KeepGoing lists it
	// under an earlier finding of the same root cause (package rootcause).
	roots := rootcause.New(saved)
	own := func(f Finding) (bool, error) {
		if w.Opts.KeepGoing {
			head, d, err := roots.Under(w, t, rootcause.Finding{Signature: f.Signature, Also: f.Also, Plan: f.Minimal})
			if err != nil {
				return false, err
			}
			if head == "" && d != nil {
				LogProgress(t, "operatortest: %s at plan %d: a root cause of its own; its run first goes wrong in the reconcile %s of process %s, at %s", f.Signature, f.FirstFailure, d.Reconcile, d.Process, d.Said)
			}
			if head != "" {
				f.ListedUnder, f.listedLine = head, rootcause.Line(f.Signature, f.FirstFailure, head, d)
				e := explorationOf(w)
				e.listed = append(e.listed, f)
				found(f) // saved, with its line (Run)
				return false, nil
			}
		}
		found(f)
		return true, nil
	}
	seen := map[string]bool{}
	for sig := range known { // lint:order-independent a set
		seen[sig] = true
	}
	// Plan 0 (nofault.go): what the sweep's workloads show with no fault at
	// all, then systematic before random (sweep.go): the targeted plans.
	var out Result
	var plain []Finding
	if !NoSweep {
		var err error
		if plain, err = faultFree(w, t, seen, own); err != nil {
			return Result{}, err
		}
	}
	if pinsKnownBug(w, plain) {
		// Options.Expect pins a known bug, and the fault-free run shows it:
		// found, and the search does not go on for another signature of it.
		out.Findings = plain
		return finishExploration(w, out, start), nil
	}
	out.Findings = plain
	sw, err := newSweeper(w, t, seen, own, func(f Finding) bool {
		out.Findings = append(out.Findings, f)
		return len(out.Findings) >= maxFindings
	})
	if err != nil {
		return Result{}, err
	}
	out.Targeted = sw.cov // the sweeper counts what it runs in it
	e := explorationOf(w)
	e.swept = len(sw.plans)
	e.randomChecks = w.Opts.Checks - e.swept
	// sweepEnded closes an exploration a finding of the sweep ended (or
	// the sweep alone): without KeepGoing its place is the plans it took.
	sweepEnded := func() (Result, error) {
		switch {
		case len(sw.found) > 0 && !w.Opts.KeepGoing:
			out.Checks = sw.found[0].FirstFailure
		case out.Checks == 0:
			out.Checks = sw.ran // no random plan ran
		}
		listUnder(roots, out.Findings)
		return finishExploration(w, out, start), nil
	}
	if len(out.Findings) >= maxFindings || e.randomChecks <= 0 {
		if err := sw.upTo(w.Opts.Checks); err != nil {
			return Result{}, err
		}
		return sweepEnded()
	}
	// add reports a finding of the random pass, told apart by cause first
	// (nofault.go: split): what its fault-free run shows too, then what
	// needs its fault; it returns whether one needs the fault.
	add := func(f Finding) (bool, error) {
		nf, f, err := split(w, t, f, seen)
		if err != nil {
			return false, err
		}
		// As for plan 0: Options.Expect pins a known bug, and the plan's
		// fault-free run shows it: found, and the search ends; what the
		// plan's fault adds is logged, not judged as another bug (most
		// often another signature of it). Options.KeepGoing reports each.
		pinned := pinsKnownBug(w, nf)
		fs, dropped := reportable(pinned, nf, f, seen)
		if dropped != "" {
			t.Logf("operatortest: %s: violated with the fault of the plan whose fault-free run shows Options.Expect's known bug; not judged as another bug (Options.KeepGoing reports it)", dropped)
			f = Finding{}
		}
		for _, g := range fs {
			mine, err := own(g)
			if err != nil {
				return false, err
			}
			if !mine {
				continue
			}
			out.Findings = append(out.Findings, g)
		}
		return pinned || f.Signature != "" && !f.NoFault, nil
	}
	n, note, err := workerCount(w, t, call)
	if err != nil {
		return Result{}, err
	}
	if note != "" {
		t.Log(note)
	}
	var pre *workers.Verdicts
	limit := -1 // the random places the workers judge (-1: all of them)
	if n > 1 && !w.Opts.KeepGoing {
		// A finding of the sweep ends the search at its place: the
		// workers judge only the random places before it.
		if limit, err = sw.ahead(); err != nil {
			return Result{}, err
		}
	}
	if n > 1 && limit != 0 {
		pre, err = parallel(w, t, n, seen, limit)
		switch {
		case errors.Is(err, workers.ErrInvalidDraw):
			t.Logf("operatortest: a worker met a draw rapid rejected: the places after it are numbered only by drawing every plan; exploring %s in this process", t.Name())
		case errors.Is(err, workers.ErrUnreached) && w.Opts.Workers == 0 && *FlagWorkers == 0:
			// Every core by default, where the test can be re-run by
			// name; where it cannot, this process explores alone.
			t.Logf("operatortest: exploring %s in this process: %v", t.Name(), err)
			pre = nil
		case err != nil:
			return Result{}, err
		}
		if pre != nil {
			for k, note := range pre.Cuts { // lint:order-independent a set of places
				CountCut(w, placeOf(w, k), note)
			}
			for name, k := range pre.Excused { // lint:order-independent a sum
				w.Excused[name] += k
			}
		}
		if w.Opts.KeepGoing && pre != nil {
			// The sweep's plans first, in this process: their findings
			// come before those the workers' shrinks give (with worker
			// processes, findings as found: the Known gap).
			if err := sw.upTo(w.Opts.Checks); err != nil {
				return Result{}, err
			}
			// The distinct violations the workers saw, each shrunk in a
			// process of its own (shrinkjobs.go).
			if jobs := shrinkJobs(w, t, pre, seen, maxFindings-len(out.Findings)); len(jobs) > 1 {
				fs, err := shrinkInParallel(w, t, jobs, n)
				if err != nil {
					t.Logf("operatortest: shrinking some distinct violations in parallel failed; looking for them here one after another: %v", err)
				}
				for _, f := range fs {
					if seen[f.Signature] {
						continue // listed under an earlier finding (the same root cause, or no fault)
					}
					f.FirstFailure = placeOf(w, f.FirstFailure)
					if needsFault(out.Findings) == 0 {
						f.TimeToFind += pre.Decided
					}
					if _, err := add(f); err != nil {
						return Result{}, err
					}
				}
			}
		}
	}
	gen := generator(w, t)
	judged := map[string][]string{} // KeepGoing: plan text -> its violations' signatures
	ended := -1                     // the random place whose finding ended this process's search (-1: it judged them all)
	for !sw.done {
		f, ran, err := pass(w, t, gen, seen, judged, pre, sw)
		if err != nil {
			return Result{}, err
		}
		k := -1
		if f != nil {
			k = f.FirstFailure
			f.FirstFailure = placeOf(w, k) // the targeted plans take turns with the random ones
		}
		if f != nil && pre != nil && needsFault(out.Findings) == 0 {
			f.TimeToFind += pre.Decided // the workers' time until the first failing place was known
		}
		if needsFault(out.Findings) == 0 || w.Opts.KeepGoing {
			out.Checks = sw.ran + ran // this shard's plans
		}
		if f == nil {
			break
		}
		faulted, err := add(*f)
		if err != nil {
			return Result{}, err
		}
		if !w.Opts.KeepGoing && faulted || len(out.Findings) >= maxFindings {
			ended = k
			break
		}
	}
	if sw.done {
		return sweepEnded()
	}
	if pre != nil {
		// A place past the one that ended the search was judged by a
		// worker alone (the workers run ahead of where a finding stops
		// this process, as far as the machine's timing lets them): what it
		// saw there is said, never called unreproduced.
		unrep, past := unreproduced(pre, seen, func(k int) int { return placeOf(w, k) }, ended)
		if !(w.Opts.KeepGoing && len(out.Findings) < maxFindings || needsFault(out.Findings) == 0) {
			unrep = nil
		}
		// Each with the plan its place draws (the worker's, not shrunk), so
		// that it can be replayed.
		for _, s := range append(slices.Clone(unrep), past...) {
			if out.Drawn == nil {
				out.Drawn = map[string]*plan.Plan{}
			}
			out.Drawn[s.String()] = drawnAt(gen, w.Opts.Seed, s.k)
		}
		for _, s := range unrep {
			out.Unreproduced = append(out.Unreproduced, s.String())
		}
		for _, s := range past {
			out.Unjudged = append(out.Unjudged, s.String())
		}
	}
	listUnder(roots, out.Findings)
	return finishExploration(w, out, start), nil
}

// reportable are the findings of one plan to report (nf, what its fault-free
// run shows; f, what needs its fault), each signature they show marked seen.
// Where the fault-free run shows Options.Expect's known bug (pinned), f is
// left out and its signature returned as dropped: shown, not judged as
// another bug, and never "a worker saw it and this process did not"
// (unreproduced).
func reportable(pinned bool, nf []Finding, f Finding, seen map[string]bool) (out []Finding, dropped string) {
	for _, g := range append(nf, f) {
		if g.Signature == "" {
			continue
		}
		seen[g.Signature] = true
		for _, s := range g.Also {
			seen[s] = true
		}
		out = append(out, g)
	}
	if pinned && f.Signature != "" {
		return out[:len(out)-1], f.Signature
	}
	return out, ""
}

// sighting is a signature a worker process saw at a random place k (plan
// place in the exploration's numbering).
type sighting struct {
	sig      string
	k, place int
}

func (s sighting) String() string { return fmt.Sprintf("%s at plan %d", s.sig, s.place) }

// unreproduced are the signatures the workers saw (pre) that the
// exploration, which looked for every one up to the random place ended
// (-1: every place), never showed, each with the first place that showed
// it; past are those the workers saw only past ended, where this process
// judged nothing.
func unreproduced(pre *workers.Verdicts, seen map[string]bool, place func(k int) int, ended int) (out, past []sighting) {
	var said []string
	for _, k := range slices.Sorted(maps.Keys(pre.Sigs)) {
		for _, s := range pre.Sigs[k] {
			if !seen[s] && !slices.Contains(said, s) {
				said = append(said, s)
				if ended >= 0 && k > ended {
					past = append(past, sighting{s, k, place(k)})
				} else {
					out = append(out, sighting{s, k, place(k)})
				}
			}
		}
	}
	return out, past
}

// drawnAt is the plan the random pass draws at place k (from 1): the
// places before it are skipped, not drawn (explore.Places).
func drawnAt(gen *rapid.Generator[*plan.Plan], seed uint64, k int) *plan.Plan {
	var p *plan.Plan
	explore.RunPlaces(gen, k, seed, explore.Places{Skip: func(i int) bool { return i != k }}, func(_ int, drawn *plan.Plan) error {
		p = drawn
		return nil
	})
	return p
}

// pinsKnownBug says whether findings with no fault fs show the known bug
// Options.Expect names, which ends a search that does not keep going (plan
// 0's and a random plan's alike).
func pinsKnownBug(w *world.World, fs []Finding) bool {
	return !w.Opts.KeepGoing && slices.ContainsFunc(fs, func(f Finding) bool {
		return isExpected(w, f.Violations) || isExpected(w, f.suspected)
	})
}

// finishExploration fills in out's summary of its first finding.
func finishExploration(w *world.World, out Result, start time.Time) Result {
	out.Elapsed, out.Excused = time.Since(start), w.Excused
	e := explorationOf(w)
	out.Nondeterminism, out.Carried, out.Listed, out.Unaimed = e.nondeterminism, e.carried, e.listed, e.unaimed
	CutSummary(w, &out)
	if len(out.Findings) > 0 {
		f := out.Findings[0]
		out.Caught, out.FirstFailure, out.Minimal, out.Violations, out.Hash = true, f.FirstFailure, f.Minimal, f.Violations, f.Hash
		out.TimeToFirstFailure, out.ShrinkTime = f.TimeToFind, f.ShrinkTime
		out.ShrinkCandidates, out.ShrinkRuns, out.ShrinkBounded = f.ShrinkCandidates, f.ShrinkRuns, f.ShrinkBounded
	}
	return out
}

// randomBudget is how many random plans a pass explores: the budget less
// the places the sweep took (all of it in a worker process, which judges
// the places its parent gives it).
func randomBudget(w *world.World) int {
	if explorationOf(w).randomChecks > 0 {
		return explorationOf(w).randomChecks
	}
	return w.Opts.Checks
}

// generator draws the explorer's sequence of plans: the world's Space with
// the reference run's targets and writes. The sequential pass and every
// worker (package workers) draw from it, so that a place's plan, and so its
// verdict, is the same whichever process judges it: a place is a function of
// the plan index alone.
func generator(w *world.World, t *testing.T) *rapid.Generator[*plan.Plan] {
	sp := w.Space
	sp.Targets = reference.TargetsOfRun(w, t)
	sp.Writes = reference.Writes(w, t)
	return plan.Generator(sp)
}

// preflight runs the world with no workload and no fault: a manager that
// cannot start fails here, whatever the oracles (no silent pass); so does
// a scripted step on an object that never exists. It runs twice: runs
// that differ are the operator's own nondeterminism (determinism.go).
func Preflight(w *world.World, t *testing.T) error {
	_, r, err := reference.RunOnce(w, t, &plan.Plan{Seed: w.Opts.EffectiveSeed()}, nil, 0)
	if err != nil {
		return err
	}
	if err := CheckScriptTargets(w, t); err != nil { // validate.go
		return err
	}
	return checkDeterminism(w, t, r) // determinism.go
}

// pass is one exploration of the sequence of plans until a violation with a
// signature not in seen (without KeepGoing: any violation), which it
// shrinks; it returns it (nil if none) and how many plans it ran before.
// Places whose verdicts the workers gave (pre) are recalled, not drawn: a
// place that held, or (KeepGoing) whose signatures are all seen.
func pass(w *world.World, t *testing.T, gen *rapid.Generator[*plan.Plan], seen map[string]bool, judged map[string][]string, pre *workers.Verdicts, sw *sweeper) (*Finding, int, error) {
	start := time.Now()
	var found time.Time
	first, ran, shrinking, runsAtFind, bound := 0, 0, 0, 0, 0
	tried := map[string]bool{} // the distinct plans the shrink tried (the default bound counts them)
	bounded, walled := false, false
	target := ""
	var last *world.RunResult
	var lastVs []check.Verdict
	var places explore.Places
	var swErr error // the sweep's plans' error: the pass ends with it
	places.Skip = func(k int) bool {
		// The sweep's plans whose places come before this one first
		// (sweep.go: the budget's places).
		if swErr == nil {
			swErr = sw.upTo(placeOf(w, k) - 1)
		}
		if swErr != nil || sw != nil && sw.done {
			return true // a finding of the sweep ended the search
		}
		if !w.Opts.Shard.Owns(placeOf(w, k)) {
			return pre != nil
		}
		if pre != nil && pre.Judged[k] {
			if sigs, ok := pre.Sigs[k]; ok && (sigs == nil || pick(sigs, seen, "") == "") {
				ran++
				return true
			}
		}
		return false
	}
	defer func() { w.Phase = "" }()
	long := longOf(w)
	lastLog := start
	var smallest *plan.Plan // the smallest failing plan so far (rapid keeps the last)
	// shrinkLine is how far a shrink has got: rapid's and the pass that
	// drops lines say it alike.
	shrinkLine := func(tried int, best *plan.Plan) {
		LogProgress(t, "operatortest: shrinking the violation of plan %d: %d candidates tried, %d runs, in %s; the smallest failing plan so far has %d step%s and %d fault%s",
			first, tried, w.Runs-runsAtFind, time.Since(found).Round(time.Millisecond), len(best.Steps), world.Plural(len(best.Steps)),
			len(best.Faults), world.Plural(len(best.Faults)))
	}
	res := explore.RunPlaces(gen, randomBudget(w), w.Opts.Seed, places, func(place int, p *plan.Plan) error {
		w.Phase = world.PhaseFind
		if first != 0 {
			w.Phase = world.PhaseShrink
			if time.Since(found) >= shrinkWall(w.Opts) {
				bounded, walled = true, true
				return nil // bounded like a plan: rapid keeps the smallest plan so far
			}
			if w.Opts.ShrinkRuns > 0 && shrinking >= w.Opts.ShrinkRuns {
				bounded = true
				return nil // the budget is spent: rapid keeps the smallest plan so far
			}
			if k := p.String(); !tried[k] {
				if w.Opts.ShrinkRuns == 0 && len(tried) >= bound {
					bounded = true
					return nil // as above; a plan tried before is recalled, not counted
				}
				tried[k] = true
			}
			shrinking++ // a candidate tried (past the bound, none is)
		}
		if first == 0 {
			// Drawing the sequence: run only this shard's plans.
			if !w.Opts.Shard.Owns(placeOf(w, place)) {
				return nil
			}
			ran++
		}
		if time.Since(lastLog) >= ProgressEvery {
			lastLog = time.Now()
			if first == 0 {
				LogProgress(t, "operatortest: %d of %d random plans judged in %s (%.0f plans/s)", ran-1, randomBudget(w), time.Since(start).Round(time.Millisecond),
					float64(ran-1)/time.Since(start).Seconds())
			} else {
				shrinkLine(shrinking-1, smallest)
			}
		}
		if first == 0 {
			long.start(fmt.Sprintf("plan %d", place), "judging it against its fault-free runs", p)
		} else {
			long.start(fmt.Sprintf("shrink candidate %d of plan %d's violation", shrinking, first), "judging it to see whether it still violates", p)
		}
		defer long.done()
		key := ""
		if w.Opts.KeepGoing {
			key = p.String()
			if sigs, ok := judged[key]; ok && pick(sigs, seen, target) == "" {
				return nil // judged before: nothing new, nor the signature being shrunk
			}
		}
		// A plan drawn again is recalled (shrinking); a candidate's judging
		// stops once it is decided (shrink.go).
		r, err := reference.RunRecalledAs(w, t, p, first != 0 && !w.Opts.KeepGoing && len(seen) == 0)
		if err != nil {
			return &world.WorldError{Err: err}
		}
		if first == 0 {
			CountCut(w, placeOf(w, place), world.CutNote(r.Verdicts)) // cut.go; the sweep's plans take turns with the random ones
		}
		if r.Partial && target != "" && pick(signatures(w, r.Violated()), seen, target) == "" {
			// Judging stopped at another violation than the one shrunk:
			// judged to the end, the candidate may show it too.
			if r, err = reference.RunRecalledAs(w, t, p, false); err != nil {
				return &world.WorldError{Err: err}
			}
		}
		vs := r.Violated()
		if len(vs) == 0 {
			return nil
		}
		// The shrink keeps to the signature the plan was found by (target):
		// a candidate that shows only another is another bug's plan, and
		// shrinking onto it would lose the one found (a faulted
		// update-summaries shrunk into a fault-free settled-backoff, then
		// reported as neither: bd/slow-cleanup's buggy variant).
		sigs := signatures(w, vs)
		if w.Opts.KeepGoing {
			judged[key] = sigs
		}
		sig := pick(sigs, seen, target)
		if sig == "" {
			return nil // a known violation, one with no fault at all (nofault.go), or not the one shrunk: explore on
		}
		target = sig
		if first == 0 {
			first, found, runsAtFind = place, time.Now(), w.Runs // shrinking follows: every run counts from here
			bound = shrinkBound(place)
			if w.Opts.KeepGoing {
				LogProgress(t, "%s", foundLine(w, target, placeOf(w, place), vs)) // numbered as the report numbers it
			}
		}
		last, lastVs, smallest = r, vs, p
		if w.Opts.KeepGoing {
			// One text per signature: rapid shrinks within it.
			return errors.New("violation " + target)
		}
		return &check.Violation{Verdicts: vs}
	})
	if swErr == nil && !res.Caught {
		swErr = sw.upTo(w.Opts.Checks) // the sweep's plans after the last random one
	}
	if swErr != nil {
		return nil, ran, swErr
	}
	var we *world.WorldError
	if errors.As(res.Err, &we) {
		return nil, ran, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", we.Err)
	}
	if !res.Caught || last == nil {
		return nil, ran, nil
	}
	if last.Partial {
		// The minimal plan's whole verdicts, for its report: the same run
		// (its trace hash), judged to the end.
		var err error
		w.Phase = world.PhaseShrink
		whole, err := reference.Run(w, t, res.Minimal)
		if err != nil {
			return nil, ran, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
		}
		if vs := whole.Violated(); len(vs) > 0 {
			last, lastVs = whole, vs
		} else {
			// Kept, as shrinking saw it: its replay reports that it does
			// not reproduce (report.go), never dropped.
			t.Logf("operatortest: the minimal plan of plan %d violated %s while shrinking (trace hash %s) and nothing when judged to the end (%s): a run that is not a function of its plan; kept as a finding\n%s",
				first, signatures(w, lastVs)[0], last.Hash, whole.Hash, res.Minimal)
		}
	}
	sigs := signatures(w, lastVs)
	sig := target
	if sig == "" {
		if sig = pick(sigs, seen, ""); sig == "" {
			sig = sigs[0]
		}
	}
	minimal := res.Minimal
	if !last.Partial && !walled {
		// The lines rapid left that are not part of the cause (reference.DropLines),
		// within what is left of Options.ShrinkRuns when it is set.
		budget := -1
		if w.Opts.ShrinkRuns > 0 {
			budget = w.Opts.ShrinkRuns - shrinking
		}
		w.Phase = world.PhaseShrink
		shows := func(r *world.RunResult) bool { return slices.Contains(signatures(w, r.Violated()), sig) }
		m, r, n, stopped, err := reference.DropLines(w, t, minimal, last, shows, budget, func(tried int, best *plan.Plan) {
			if time.Since(lastLog) >= ProgressEvery {
				lastLog = time.Now()
				shrinkLine(shrinking+tried, best)
			}
		})
		if err != nil {
			return nil, ran, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
		}
		minimal, last, lastVs, shrinking, bounded = m, r, r.Violated(), shrinking+n, bounded || stopped
		sigs = signatures(w, lastVs)
	}
	var also []string // the minimal plan's other new signatures: the same root cause
	for _, s := range unseen(sigs, seen) {
		if s != sig {
			also = append(also, s)
		}
	}
	return &Finding{By: byRandom, Signature: sig, Also: also, Minimal: minimal, Violations: lastVs, Hash: last.Hash, steps: last.Steps, explored: last,
		FirstFailure: first, TimeToFind: found.Sub(start), ShrinkTime: time.Since(found),
		ShrinkCandidates: shrinking, ShrinkRuns: w.Runs - runsAtFind, ShrinkBounded: bounded, ShrinkCut: walled}, ran, nil
}

// shrinkWall is the wall time a shrink may take, as one plan may
// (Options.PlanTimeout): past it rapid's shrink is cut, its smallest
// failing plan so far the minimal plan, and the report says so (a test's
// hook).
var shrinkWall = func(o world.Options) time.Duration { return o.PlanTimeout }

// shrinkFloor is the fewest candidates a shrink may try under the default
// bound (shrinkBound): a plan found early still has its values narrowed
// (the lines left out after it, reference.DropLines, are not bounded). It was 100:
// on examples/bigrecreate explored with lag faults alone (random plans,
// found at plans 3 to 21 from explorer seeds 1-5) the shrink took a median
// 3.6 times the time to find, at 20 1.6 times, and every seed's minimal
// plan kept the same number of faults.
const shrinkFloor = 20

// shrinkBound is, when Options.ShrinkRuns is not set, how many distinct
// plans the shrink of a violation first seen at the random pass's place
// may try (rapid tries a plan many times over; tried again, it is
// recalled, and costs no run): twice the plans the pass drew to find it,
// shrinkFloor at the least. The goal is a shrink within twice the time to
// find; the bound counts plans, not wall time, so that the minimal plan
// stays a function of the seed and the Options (the same in every
// process, with any number of workers).
func shrinkBound(place int) int { return max(shrinkFloor, 2*place) }

// progressEvery is how often (wall clock) an exploration in this process
// says how far it has got, searching or shrinking: a long one (a CronJob-
// sized operator shrinks for tens of seconds) is never silent for longer.
// logProgress says it (a test's hook).
var (
	ProgressEvery = 5 * time.Second
	LogProgress   = func(t *testing.T, format string, args ...any) { t.Helper(); t.Logf(format, args...) }
)

// pick is the signature of sigs to report: target if it is among them (a
// plan being shrunk), else, with no target, the first one not seen.
func pick(sigs []string, seen map[string]bool, target string) string {
	for _, s := range sigs {
		if target != "" && s == target || target == "" && !seen[s] {
			return s
		}
	}
	return ""
}

// listUnder adds to each finding of fs the signatures roots list under it.
func listUnder(roots *rootcause.Causes, fs []Finding) {
	for i := range fs {
		for _, s := range roots.Also(fs[i].Signature) {
			if !slices.Contains(fs[i].Also, s) {
				fs[i].Also = append(fs[i].Also, s)
			}
		}
	}
}
