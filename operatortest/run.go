package operatortest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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
func Run(t *testing.T, o Options) {
	t.Helper()
	defer simulating()()
	o, err := o.withDefaults().withFlags()
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	w, err := newWorld(o)
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	call := nextExploration(t)
	if j, n := workerRole(t, call); j > 0 {
		w.work(t, j, n) // a worker process: it exits
	}
	if job := shrinkRole(t, call); job != nil {
		w.shrinkAlone(t, *job) // a shrinking process (shrinkjobs.go): it exits
	}
	rep := &reporter{t: t, w: w}
	if *flagPlan != "" {
		p, err := w.readPlanFile(t.Name(), *flagPlan) // validate.go
		if err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		rep.judge(p, *flagPlan)
		rep.finish(1)
		return
	}
	known := map[string]bool{}
	for _, path := range savedPlans(t.Name()) {
		p, err := w.readPlanFile(t.Name(), path)
		if err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		for _, sig := range rep.judge(p, path) {
			known[sig] = true
		}
	}
	if len(known) > 0 && !o.KeepGoing {
		rep.finish(0)
		return
	}
	res, err := w.explore(t, known, call)
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	if *flagJSON != "" {
		if err := writeShardResult(*flagJSON, res.shardResult(t.Name(), o)); err != nil {
			t.Fatalf("operatortest: %v", err)
		}
	}
	if len(res.Findings) == 0 && res.Checks > 0 && res.Cut == res.Checks {
		// No silent pass: nothing was judged (cut.go).
		t.Fatalf("operatortest: every one of the %d plans explored (seed %d) was cut at the work bound, none judged: %s", res.Checks, o.effectiveSeed(), res.CutNote)
	}
	if len(res.Findings) == 0 {
		t.Logf("operatortest: %d plans explored (seed %d) in %s, no %sviolation%s", res.Checks, o.effectiveSeed(),
			res.Elapsed.Round(time.Millisecond), map[bool]string{true: "new ", false: ""}[len(known) > 0], clause(coverageLine(res.Targeted))+clause(cutLine(res)))
	}
	for _, f := range res.Findings {
		if err := os.MkdirAll(filepath.Dir(savedPath(t.Name(), "")), 0o755); err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		path := savedPath(t.Name(), "")
		if o.KeepGoing {
			path = savedPath(t.Name(), f.Signature)
		}
		if err := os.WriteFile(path, []byte(planHeader(t.Name(), path)+f.Minimal.String()), 0o644); err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		t.Logf("operatortest: %s: violated after %d plans (seed %d), found in %s, shrunk in %s (%d candidates, %d runs); the minimal plan is saved as %s%s",
			f.Signature, f.FirstFailure, o.effectiveSeed(), f.TimeToFind.Round(time.Millisecond), f.ShrinkTime.Round(time.Millisecond),
			f.ShrinkCandidates, f.ShrinkRuns, path, clause(coverageLine(res.Targeted))+clause(cutLine(res)))
		rep.replay(f, path)
	}
	if o.KeepGoing {
		t.Logf("operatortest: kept going: %d distinct violation%s over %d plans (seed %d)", len(res.Findings)+len(known),
			map[bool]string{true: "", false: "s"}[len(res.Findings)+len(known) == 1], res.Checks, o.effectiveSeed())
	}
	rep.finish(res.Checks)
}

// Result is what an exploration found.
type Result struct {
	// Caught: a plan violated a property. Checks is then how many plans it
	// took to find one; otherwise how many were explored (this shard's).
	// With KeepGoing, Checks is how many plans the last pass explored (the
	// budget, unless it stopped at maxFindings).
	Caught bool
	Checks int
	// FirstFailure is the place of the first violating plan in the
	// explorer's sequence (the same as Checks unless sharded).
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
	// ShrinkCandidates and ShrinkRuns are the first finding's (Finding).
	ShrinkCandidates, ShrinkRuns int
	// Targeted says how many of the targeted plans of each class the
	// exploration ran before its random ones, of how many its workload gave
	// (sweep.go): "stale pairs 48 of 212".
	Targeted []Coverage
	// Cut is how many of the plans explored were cut at the work bound and
	// not judged (cut.go), CutNote the first one's place and why.
	Cut     int
	CutNote string
	// Findings are the distinct violations found, in order (the first is
	// Minimal's): one without KeepGoing, each signature once with it.
	Findings []Finding
}

// Finding is one distinct violation an exploration found.
type Finding struct {
	// Signature tells violations apart: the property, the kinds its report
	// names and, for a panic, the code that panicked (Signature).
	Signature  string
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
	steps                        []trace.Step
}

// Explore explores as Run does and returns what it found, without saving,
// replaying or failing the test (for measurements: checks to catch a bug).
// An error is a world that cannot run (the test's setup, bad Options), not a
// finding. With -ctrlsim.plan=FILE it runs that plan only.
func Explore(t *testing.T, o Options) (Result, error) {
	defer simulating()()
	o = o.withDefaults()
	w, err := newWorld(o)
	if err != nil {
		return Result{}, err
	}
	call := nextExploration(t)
	if j, n := workerRole(t, call); j > 0 {
		w.work(t, j, n) // a worker process: it exits
	}
	if job := shrinkRole(t, call); job != nil {
		w.shrinkAlone(t, *job) // a shrinking process (shrinkjobs.go): it exits
	}
	if *flagPlan != "" {
		return w.replayFile(t, *flagPlan)
	}
	return w.explore(t, nil, call)
}

// replayFile runs the plan in path as an exploration of one plan.
func (w *world) replayFile(t *testing.T, path string) (Result, error) {
	start := time.Now()
	p, err := w.readPlanFile(t.Name(), path)
	if err != nil {
		return Result{}, err
	}
	w.phase = phaseReplay
	r, err := w.run(t, p)
	w.phase = ""
	if err != nil {
		return Result{}, err
	}
	out := Result{Checks: 1, Hash: r.hash, Elapsed: time.Since(start)}
	if vs := r.violated(); len(vs) > 0 {
		f := Finding{Signature: w.signatures(vs)[0], Minimal: p, Violations: vs, Hash: r.hash, FirstFailure: 1, TimeToFind: out.Elapsed, steps: r.steps}
		out.Caught, out.FirstFailure, out.Minimal, out.Violations, out.TimeToFirstFailure = true, 1, p, vs, out.Elapsed
		out.Findings = []Finding{f}
	}
	return out, nil
}

// ExploreShards explores each shard of n in turn, as n processes or CI jobs
// would, and returns their results (for Merge).
func ExploreShards(t *testing.T, o Options, n int) ([]ShardResult, error) {
	var out []ShardResult
	for i := 1; i <= n; i++ {
		so := o
		so.Shard = Shard{Index: i, Count: n}
		r, err := Explore(t, so)
		if err != nil {
			return nil, err
		}
		out = append(out, r.shardResult(t.Name(), so.withDefaults()))
	}
	return out, nil
}

// maxFindings bounds the distinct violations KeepGoing looks for.
const maxFindings = 16

// explore searches for violations whose signatures are not in known (with
// KeepGoing: one pass per new signature, each over the same sequence of
// plans, the plans already judged recalled rather than run again). With
// several workers (parallel.go), worker processes judge the places first and
// every pass recalls their verdicts; call is the test's count of
// explorations, this one included.
func (w *world) explore(t *testing.T, known map[string]bool, call int) (Result, error) {
	start := time.Now()
	if err := w.preflight(t); err != nil {
		return Result{}, err
	}
	seen := map[string]bool{}
	for sig := range known { // lint:order-independent a set
		seen[sig] = true
	}
	// Systematic before random (sweep.go): the targeted plans first.
	var out Result
	swept, offset, sweptHere, cov, err := w.sweep(t, seen)
	if err != nil {
		return Result{}, err
	}
	out.Targeted, out.Findings = cov, swept
	w.randomChecks = w.o.Checks - offset
	if len(swept) > 0 && !w.o.KeepGoing || len(swept) >= maxFindings || w.randomChecks <= 0 {
		out.Checks = sweptHere
		if len(swept) > 0 && !w.o.KeepGoing {
			out.Checks = swept[0].FirstFailure
		}
		return w.finishExploration(out, start), nil
	}
	n, note, err := w.workers(t, call)
	if err != nil {
		return Result{}, err
	}
	if note != "" {
		t.Log(note)
	}
	var pre *verdicts
	if n > 1 {
		pre, err = w.parallel(t, n)
		switch {
		case errors.Is(err, errInvalidDraw):
			t.Logf("operatortest: a worker met a draw rapid rejected: the places after it are numbered only by drawing every plan; exploring %s in this process", t.Name())
		case errors.Is(err, errUnreached) && w.o.Workers == 0 && *flagWorkers == 0:
			// Every core by default, where the test can be re-run by
			// name; where it cannot, this process explores alone.
			t.Logf("operatortest: exploring %s in this process: %v", t.Name(), err)
			pre = nil
		case err != nil:
			return Result{}, err
		}
		if pre != nil {
			for k, note := range pre.cuts { // lint:order-independent a set of places
				w.countCut(offset+k, note)
			}
		}
		if w.o.KeepGoing && pre != nil {
			// The distinct violations the workers saw, each shrunk in a
			// process of its own (shrinkjobs.go).
			if jobs := w.shrinkJobs(t, pre, seen, maxFindings-len(out.Findings)); len(jobs) > 1 {
				fs, err := w.shrinkInParallel(t, jobs, n)
				if err != nil {
					t.Logf("operatortest: shrinking the distinct violations in parallel failed; shrinking them here one after another: %v", err)
				}
				for i, f := range fs {
					f.FirstFailure += offset
					if i == 0 && len(out.Findings) == 0 {
						f.TimeToFind += pre.decided
					}
					out.Findings = append(out.Findings, f)
					seen[f.Signature] = true
				}
			}
		}
	}
	gen := w.generator(t)
	judged := map[string][]string{} // KeepGoing: plan text -> its violations' signatures
	for {
		f, ran, err := w.pass(t, gen, seen, judged, pre)
		if err != nil {
			return Result{}, err
		}
		if f != nil {
			f.FirstFailure += offset // the targeted plans came first
		}
		if f != nil && pre != nil && len(out.Findings) == 0 {
			f.TimeToFind += pre.decided // the workers' time until the first failing place was known
		}
		if len(out.Findings) == 0 || w.o.KeepGoing {
			out.Checks = sweptHere + ran // this shard's plans
		}
		if f == nil {
			break
		}
		out.Findings = append(out.Findings, *f)
		seen[f.Signature] = true
		if !w.o.KeepGoing || len(out.Findings) >= maxFindings {
			break
		}
	}
	return w.finishExploration(out, start), nil
}

// finishExploration fills in out's summary of its first finding.
func (w *world) finishExploration(out Result, start time.Time) Result {
	out.Elapsed = time.Since(start)
	w.cutSummary(&out)
	if len(out.Findings) > 0 {
		f := out.Findings[0]
		out.Caught, out.FirstFailure, out.Minimal, out.Violations, out.Hash = true, f.FirstFailure, f.Minimal, f.Violations, f.Hash
		out.TimeToFirstFailure, out.ShrinkTime = f.TimeToFind, f.ShrinkTime
		out.ShrinkCandidates, out.ShrinkRuns = f.ShrinkCandidates, f.ShrinkRuns
	}
	return out
}

// randomBudget is how many random plans a pass explores: the budget less
// the places the sweep took (all of it in a worker process, which judges
// the places its parent gives it).
func (w *world) randomBudget() int {
	if w.randomChecks > 0 {
		return w.randomChecks
	}
	return w.o.Checks
}

// generator draws the explorer's sequence of plans: the world's Space with
// the reference run's targets and writes. The sequential pass and every
// worker (parallel.go) draw from it, so that a place's plan, and so its
// verdict, is the same whichever process judges it: a place is a function of
// the plan index alone.
func (w *world) generator(t *testing.T) *rapid.Generator[*plan.Plan] {
	sp := w.space
	sp.Targets = w.targets(t)
	sp.Writes = w.writes(t)
	return plan.Generator(sp)
}

// preflight runs the world once with no workload and no fault: a manager
// that cannot start fails here, whatever the oracles (no silent pass); so
// does a scripted step on an object that never exists.
func (w *world) preflight(t *testing.T) error {
	if _, _, err := w.runOnce(t, &plan.Plan{Seed: w.o.effectiveSeed()}, nil, 0); err != nil {
		return err
	}
	return w.checkScriptTargets(t) // validate.go
}

// pass is one exploration of the sequence of plans until a violation with a
// signature not in seen (without KeepGoing: any violation), which it
// shrinks; it returns it (nil if none) and how many plans it ran before.
// Places whose verdicts the workers gave (pre) are recalled, not drawn: a
// place that held, or (KeepGoing) whose signatures are all seen.
func (w *world) pass(t *testing.T, gen *rapid.Generator[*plan.Plan], seen map[string]bool, judged map[string][]string, pre *verdicts) (*Finding, int, error) {
	start := time.Now()
	var found time.Time
	first, ran, shrinking, runsAtFind := 0, 0, 0, 0
	target := ""
	var last *result
	var lastVs []check.Verdict
	var places explore.Places
	if pre != nil {
		places.Skip = func(k int) bool {
			if !w.o.Shard.owns(k) {
				return true
			}
			if pre.judged[k] {
				if sigs, ok := pre.sigs[k]; ok && (sigs == nil || w.o.KeepGoing && pick(sigs, seen, "") == "") {
					ran++
					return true
				}
			}
			return false
		}
	}
	defer func() { w.phase = "" }()
	lastLog := start
	var smallest *plan.Plan // the smallest failing plan so far (rapid keeps the last)
	res := explore.RunPlaces(gen, w.randomBudget(), w.o.Seed, places, func(place int, p *plan.Plan) error {
		w.phase = phaseFind
		if first != 0 {
			w.phase = phaseShrink
			if shrinking++; w.o.ShrinkRuns > 0 && shrinking > w.o.ShrinkRuns {
				return nil // the budget is spent: rapid keeps the smallest plan so far
			}
		}
		if first == 0 {
			// Drawing the sequence: run only this shard's plans.
			if !w.o.Shard.owns(place) {
				return nil
			}
			ran++
		}
		if time.Since(lastLog) >= progressEvery {
			lastLog = time.Now()
			if first == 0 {
				logProgress(t, "operatortest: %d of %d random plans judged in %s (%.0f plans/s)", ran-1, w.randomBudget(), time.Since(start).Round(time.Millisecond),
					float64(ran-1)/time.Since(start).Seconds())
			} else {
				logProgress(t, "operatortest: shrinking the violation of plan %d: %d candidates tried, %d runs, in %s; the smallest failing plan so far has %d step%s and %d fault%s",
					first, shrinking-1, w.runs-runsAtFind, time.Since(found).Round(time.Millisecond), len(smallest.Steps), plural(len(smallest.Steps)),
					len(smallest.Faults), plural(len(smallest.Faults)))
			}
		}
		key := ""
		if w.o.KeepGoing {
			key = p.String()
			if sigs, ok := judged[key]; ok && pick(sigs, seen, target) == "" {
				return nil // judged before: nothing new, nor the signature being shrunk
			}
		}
		// A plan drawn again is recalled (shrinking); a candidate's judging
		// stops once it is decided (shrink.go).
		r, err := w.runRecalledAs(t, p, first != 0 && !w.o.KeepGoing)
		if err != nil {
			return &worldError{err}
		}
		if first == 0 {
			w.countCut(w.o.Checks-w.randomBudget()+place, cutNote(r.verdicts)) // cut.go; the sweep's places come first
		}
		vs := r.violated()
		if len(vs) == 0 {
			return nil
		}
		if w.o.KeepGoing {
			sigs := w.signatures(vs)
			judged[key] = sigs
			sig := pick(sigs, seen, target)
			if sig == "" {
				return nil // a known violation: explore on
			}
			target = sig
		}
		if first == 0 {
			first, found, runsAtFind = place, time.Now(), w.runs // shrinking follows: every run counts from here
		}
		last, lastVs, smallest = r, vs, p
		if w.o.KeepGoing {
			// One text per signature: rapid shrinks within it.
			return errors.New("violation " + target)
		}
		return &check.Violation{Verdicts: vs}
	})
	var we *worldError
	if errors.As(res.Err, &we) {
		return nil, ran, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", we.err)
	}
	if !res.Caught || last == nil {
		return nil, ran, nil
	}
	if last.partial {
		// The minimal plan's whole verdicts, for its report: the same run
		// (its trace hash), judged to the end.
		var err error
		w.phase = phaseShrink
		if last, err = w.run(t, res.Minimal); err != nil {
			return nil, ran, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
		}
		if lastVs = last.violated(); len(lastVs) == 0 {
			return nil, ran, fmt.Errorf("the minimal plan violated a property while shrinking and none when judged to the end: a run that is not a function of its plan\n%s", res.Minimal)
		}
	}
	sig := target
	if sig == "" {
		sig = w.signatures(lastVs)[0]
	}
	if w.o.ShrinkRuns > 0 {
		shrinking = min(shrinking, w.o.ShrinkRuns) // the ones past the budget were not tried
	}
	return &Finding{Signature: sig, Minimal: res.Minimal, Violations: lastVs, Hash: last.hash, steps: last.steps,
		FirstFailure: first, TimeToFind: found.Sub(start), ShrinkTime: time.Since(found),
		ShrinkCandidates: shrinking, ShrinkRuns: w.runs - runsAtFind}, ran, nil
}

// progressEvery is how often (wall clock) an exploration in this process
// says how far it has got, searching or shrinking: a long one (a CronJob-
// sized operator shrinks for tens of seconds) is never silent for longer.
// logProgress says it (a test's hook).
var (
	progressEvery = 5 * time.Second
	logProgress   = func(t *testing.T, format string, args ...any) { t.Helper(); t.Logf(format, args...) }
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
