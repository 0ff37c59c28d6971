package operatortest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// run runs p in a testing/synctest bubble (so that the operator's wall-clock
// reads follow virtual time), and the fault-free runs of its workload that the
// differential oracles judge it against, and judges it.
func (w *world) run(t *testing.T, p *plan.Plan) (*result, error) {
	return w.judgeRun(t, p, false)
}

// judgeRun is run; with decide, it stops judging once the run violates a
// property whose verdict no later step revises (shrink.go: decided), and
// marks the result partial.
func (w *world) judgeRun(t *testing.T, p *plan.Plan, decide bool) (r *result, err error) {
	w.judgeCut = ""
	defer func() {
		if r != nil && w.judgeCut != "" { // cut.go
			r.verdicts, r.partial = w.o.enabled(cutVerdicts(r.verdicts, w.judgeCut)), false
		}
	}()
	var refs []*refRun
	if w.on(Converges) || w.on(UpdateSummaries) || w.on(InterleavingsAgree) || w.on(NoErrorAtRest) || w.on(WritesAtRest) {
		var err error
		if refs, err = w.references(t, p); err != nil {
			return nil, err
		}
	}
	snap, r, err := w.runOnce(t, p, refs, 0)
	if err != nil {
		return nil, err
	}
	if w.judgeCut != "" {
		return r, nil // not judged (cut.go)
	}
	if decide && !coldShrink && w.decided(r.verdicts) {
		r.verdicts, r.partial = w.o.enabled(r.verdicts), true
		return r, nil
	}
	if w.on(InterleavingsAgree) {
		v, err := w.interleavingsAgreeOrRandom(t, p, refs, snap)
		if err != nil {
			return nil, err
		}
		r.verdicts = append(r.verdicts, v)
	}
	var late *refRun
	for i, v := range r.verdicts {
		if v.Property != Converges || v.Holds {
			continue
		}
		// Before blaming the faults, the fields that differ with the
		// randomness alone (random.go).
		if refs, r.verdicts[i], err = w.convergesWithDraws(t, p, refs, snap, v); err != nil {
			return nil, err
		}
		if r.verdicts[i].Holds {
			continue
		}
		v = r.verdicts[i]
		// Before blaming the faults, the late operator's end state (run
		// only when needed: most runs converge to a schedule's).
		var err error
		if late, err = w.lateReference(t, p); err != nil {
			return nil, err
		}
		if late != nil {
			r.verdicts[i] = w.converges(append(slices.Clip(refs), late), snap, v.At)
		}
		if !r.verdicts[i].Holds && late != nil { // late.go
			if r.verdicts[i], err = w.convergesAfterEachStep(t, p, append(slices.Clip(refs), late), snap, r.verdicts[i]); err != nil {
				return nil, err
			}
		}
	}
	// And the fault-free run of the same downtime (downtime.go), when an
	// operator's process was down.
	if err := w.rejudgeWithDowntime(t, p, r, refs, late, snap); err != nil {
		return nil, err
	}
	for i, v := range r.verdicts {
		if v.Property != NoErrorAtRest || !v.Holds || v.Detail == "" {
			continue
		}
		// An error at rest the fault-free run shares is forgiven as the
		// workload's doing only if the workload did it: the fault-free run
		// without the generated steps must not end in it too.
		quiet, err := w.reference(t, p.Seed, scriptSteps(p.Steps))
		if err != nil {
			return nil, err
		}
		if d := errorWithoutWorkload(snap, quiet.snap); d != "" {
			r.verdicts[i] = check.Verdict{Property: NoErrorAtRest, At: v.At, Detail: d}
		}
	}
	r.verdicts = w.o.enabled(r.verdicts)
	return r, nil
}

// maxRecalledViolations bounds the violating runs recalled (runRecalled):
// a shrink returns to a few.
const maxRecalledViolations = 32

// holdingRun is what runRecalled keeps of a run that violated nothing.
var holdingRun = &result{}

// runRecalled is run, recalled when this world has judged p before. A run is
// a function of its plan, so a plan judged again (rapid's shrinker draws the
// same plan from many byte strings: shrinking twowrites' crash tried 299
// candidates, 28 distinct) need not run again. It keeps a marker for each
// plan that held and the whole result of up to maxRecalledViolations
// violating ones (the first ones; later ones run again). Replays that check
// a plan's determinism (a saved or minimal plan) use run, never this.
func (w *world) runRecalled(t *testing.T, p *plan.Plan) (*result, error) {
	return w.runRecalledAs(t, p, false)
}

// runRecalledAs is runRecalled, the run judged with decide (judgeRun); a
// partial result is recalled only for a caller that decides too.
func (w *world) runRecalledAs(t *testing.T, p *plan.Plan, decide bool) (*result, error) {
	key := p.String()
	if r, ok := w.recalled[key]; ok && !coldShrink && (decide || !r.partial) {
		return r, nil
	}
	r, err := w.judgeRun(t, p, decide)
	if err != nil {
		return nil, err
	}
	if w.recalled == nil {
		w.recalled = map[string]*result{}
	}
	switch {
	case len(r.violated()) == 0:
		w.recalled[key] = holdingRun
	case w.violationsRecalled < maxRecalledViolations:
		w.violationsRecalled++
		w.recalled[key] = r
	}
	return r, nil
}

// errorWithoutWorkload names the first error at rest of got that the
// fault-free run with no generated workload (quiet) also ends in: the world
// as the test sets it up leaves the operator failing, whatever the workload
// does, which is the operator's bug (or the test's), not a user's doing.
func errorWithoutWorkload(got, quiet *snapshot) string {
	for _, e := range got.atRest {
		for _, q := range quiet.atRest {
			if q.key == e.key && q.err == e.err {
				s := e.step
				return fmt.Sprintf("%s/%s's last reconcile of %s, at %v, ended in %s, and so does the fault-free run with no generated workload: the operator fails on the world the test sets up, not on something a user did", s.Process, s.Controller, s.Object, s.At, s.Result)
			}
		}
	}
	return ""
}

// runOnce runs p judged against refs (none: a reference run, judged by the
// oracles that need no reference) and returns its snapshot. startAfter
// delays the start of the operator's processes (the late reference).
func (w *world) runOnce(t *testing.T, p *plan.Plan, refs []*refRun, startAfter time.Duration) (*snapshot, *result, error) {
	var snap *snapshot
	r, err := w.runPlan(t, p, runJudge{
		properties: func() []check.Property { return w.oracles(refs) },
		observe:    func(run *check.Run) { snap = w.snapshotOf(run) },
		judged:     refs != nil,
	}, startAfter)
	return snap, r, err
}
