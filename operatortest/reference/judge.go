package reference

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Run runs p in a testing/synctest bubble (so that the operator's wall-clock
// reads follow virtual time), and the fault-free runs of its workload that the
// differential oracles judge it against, and judges it.
func Run(w *world.World, t *testing.T, p *plan.Plan) (*world.RunResult, error) {
	return judgeRun(w, t, p, false)
}

// judgeRun is run; with decide, it stops judging once the run violates a
// property whose verdict no later step revises (shrink.go: decided), and
// marks the result partial.
func judgeRun(w *world.World, t *testing.T, p *plan.Plan, decide bool) (r *world.RunResult, err error) {
	w.JudgeCut = ""
	defer func() {
		if r != nil && w.JudgeCut != "" { // cut.go
			r.Verdicts, r.Partial = w.Opts.Enabled(cutVerdicts(r.Verdicts, w.JudgeCut)), false
		}
	}()
	var refs []*verdict.Reference
	if verdict.On(w, world.Converges) || verdict.On(w, world.UpdateSummaries) || verdict.On(w, world.InterleavingsAgree) || verdict.On(w, world.NoErrorAtRest) || verdict.On(w, world.WritesAtRest) {
		var err error
		if refs, err = References(w, t, p); err != nil {
			return nil, err
		}
	}
	snap, r, err := RunOnce(w, t, p, refs, 0)
	if err != nil {
		return nil, err
	}
	if w.JudgeCut != "" {
		return r, nil // not judged (cut.go)
	}
	if slices.ContainsFunc(r.Verdicts, world.Stops) {
		// A hot loop or a livelock stopped the run: it never came to rest,
		// so nothing that judges its end is judged (as a run cut at its
		// work bound, or one a disabled hot-loop stopped: Options.Enabled),
		// and no further reference runs for it. Its verdicts are the
		// kernel's.
		r.Verdicts = w.Opts.Enabled(slices.DeleteFunc(r.Verdicts, func(v check.Verdict) bool { return !slices.Contains(world.KernelVerdicts, v.Property) }))
		return r, nil
	}
	if decide && !ColdShrink && decided(w, r.Verdicts) {
		r.Verdicts, r.Partial = w.Opts.Enabled(r.Verdicts), true
		return r, nil
	}
	if verdict.On(w, world.InterleavingsAgree) {
		v, err := InterleavingsAgreeOrRandom(w, t, p, refs, snap)
		if err != nil {
			return nil, err
		}
		r.Verdicts = append(r.Verdicts, v)
	}
	var late *verdict.Reference
	for i, v := range r.Verdicts {
		if v.Property != world.Converges || v.Holds {
			continue
		}
		// Before blaming the faults, the fields that differ with the
		// randomness alone (random.go).
		if refs, r.Verdicts[i], err = ConvergesWithDraws(w, t, p, refs, snap, v); err != nil {
			return nil, err
		}
		if r.Verdicts[i].Holds {
			continue
		}
		// Before blaming the faults, the late starts (late.go; run only
		// when needed: most runs converge to a schedule's).
		if r.Verdicts[i], late, err = convergesLate(w, t, p, refs, snap, r.Verdicts[i]); err != nil {
			return nil, err
		}
	}
	// And the fault-free run of the same downtime (downtime.go), when an
	// operator's process was down.
	if err := rejudgeWithDowntime(w, t, p, r, refs, late, snap); err != nil {
		return nil, err
	}
	for i, v := range r.Verdicts {
		if v.Property != world.NoErrorAtRest || !v.Holds || v.Detail == "" {
			continue
		}
		// An error at rest the fault-free run shares is forgiven as the
		// workload's doing only if the workload did it: the fault-free run
		// without the generated steps must not end in it too.
		quiet, err := Reference(w, t, p.Seed, world.ScriptSteps(p.Steps))
		if err != nil {
			return nil, err
		}
		if d := errorWithoutWorkload(snap, quiet.Snap); d != "" {
			r.Verdicts[i] = check.Verdict{Property: world.NoErrorAtRest, At: v.At, Detail: d, Excused: []string{verdict.QuietWorkload}}
		}
	}
	r.Verdicts = w.Opts.Enabled(r.Verdicts)
	if w.Phase == world.PhaseFind {
		for _, v := range r.Verdicts {
			for _, e := range v.Excused {
				w.Excused[e]++
			}
		}
	}
	return r, nil
}

// maxRecalledViolations bounds the violating runs recalled (runRecalled):
// a shrink returns to a few.
const maxRecalledViolations = 32

// HoldingRun is what runRecalled keeps of a run that violated nothing.
var HoldingRun = &world.RunResult{}

// RunRecalled is run, recalled when this world has judged p before. A run is
// a function of its plan, so a plan judged again (rapid's shrinker draws the
// same plan from many byte strings: shrinking twowrites' crash tried 299
// candidates, 28 distinct) need not run again. It keeps a marker for each
// plan that held and the whole result of up to maxRecalledViolations
// violating ones (the first ones; later ones run again). Replays that check
// a plan's determinism (a saved or minimal plan) use run, never this.
func RunRecalled(w *world.World, t *testing.T, p *plan.Plan) (*world.RunResult, error) {
	return RunRecalledAs(w, t, p, false)
}

// RunRecalledAs is runRecalled, the run judged with decide (judgeRun); a
// partial result is recalled only for a caller that decides too.
func RunRecalledAs(w *world.World, t *testing.T, p *plan.Plan, decide bool) (*world.RunResult, error) {
	key := p.String()
	c := refsOf(w)
	if r, ok := c.recalled[key]; ok && !ColdShrink && (decide || !r.Partial) {
		return r, nil
	}
	r, err := judgeRun(w, t, p, decide)
	if err != nil {
		return nil, err
	}
	if c.recalled == nil {
		c.recalled = map[string]*world.RunResult{}
	}
	switch {
	case len(r.Violated()) == 0:
		c.recalled[key] = HoldingRun
	case c.violations < maxRecalledViolations:
		c.violations++
		c.recalled[key] = r
	}
	return r, nil
}

// errorWithoutWorkload names the first error at rest of got that the
// fault-free run with no generated workload (quiet) also ends in: the world
// as the test sets it up leaves the operator failing, whatever the workload
// does, which is the operator's bug (or the test's), not a user's doing.
func errorWithoutWorkload(got, quiet *verdict.Snapshot) string {
	for _, e := range got.AtRest {
		for _, q := range quiet.AtRest {
			if q.Key == e.Key && q.Err == e.Err {
				s := e.Step
				return fmt.Sprintf("%s/%s's last reconcile of %s, at %v, ended in %s, and so does the fault-free run with no generated workload: the operator fails on the world the test sets up, not on something a user did", s.Process, s.Controller, s.Object, s.At, s.Result)
			}
		}
	}
	return ""
}

// RunOnce runs p judged against refs (none: a reference run, judged by the
// oracles that need no reference) and returns its snapshot. startAfter
// delays the start of the operator's processes (the late reference).
func RunOnce(w *world.World, t *testing.T, p *plan.Plan, refs []*verdict.Reference, startAfter time.Duration) (*verdict.Snapshot, *world.RunResult, error) {
	var snap *verdict.Snapshot
	r, err := w.RunPlan(t, p, world.Judging{
		Properties: func() []check.Property { return verdict.Oracles(w, refs) },
		Observe:    func(run *check.Run) { snap = verdict.SnapshotOf(w, run) },
		Judged:     refs != nil,
	}, startAfter)
	return snap, r, err
}

// Recalled is the result this world keeps of p's judged run, if it keeps
// one (a plan that violated, among the first maxRecalledViolations): the
// run a replay of p is compared with (search's determinism.go).
func Recalled(w *world.World, p *plan.Plan) *world.RunResult {
	if r := refsOf(w).recalled[p.String()]; r != HoldingRun {
		return r
	}
	return nil
}
