package reference

import (
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The late operator. Every fault that delays an operator (a stalled or
// lagging watch, a crash and its back-off, a restart onto a lagging
// apiserver) brings up an incarnation that sees the world as it is at its
// start: after some of the workload's steps and before the rest. What a
// correct level-triggered operator makes of an object the user deleted
// before it looked (an entry it would have recorded, a child it would have
// made) then depends on where that start falls among the steps. So the
// late starts are one family of references, one per instant of a step: the
// fault-free run of the plan's workload whose operator processes start
// right after it (their pods scheduled late), as if they had been down from
// the start until then (downtime.go keeps the faulted run's own windows
// down; this family, a window from the start). The start after the last
// step is tried first (the operator acts on what the workload left), then
// the earlier ones in time order, each added to the candidates only while
// converges would otherwise fire; each is cached as every reference is.
// They are candidates of converges alone, never a source of learned fields.

// lateStarts are the instants of p's steps after which a late start is
// tried, in the order they are tried: the last, then the others in time
// order.
func lateStarts(p *plan.Plan) []time.Duration {
	var at []time.Duration
	for _, s := range p.Steps {
		at = append(at, s.At)
	}
	slices.Sort(at)
	at = slices.Compact(at)
	if len(at) == 0 {
		return nil
	}
	return append([]time.Duration{at[len(at)-1]}, at[:len(at)-1]...)
}

// lateStart is the fault-free run of p's workload whose operator processes
// start right after the step at at; last says that is the last step (the
// reference then names no instant).
func lateStart(w *world.World, t *testing.T, p *plan.Plan, at time.Duration, last bool) (*verdict.Reference, error) {
	r, err := referenceOf(w, t, &plan.Plan{Seed: p.Seed, Steps: p.Steps}, at+time.Millisecond)
	if err != nil {
		return nil, err
	}
	late := *r
	late.Late = true
	late.Excuses = []string{verdict.LateStart}
	if !last {
		late.After = at
	}
	return &late, nil
}

// convergesLate judges v, a converges verdict of got that the schedules and
// the draws leave violated, again with the late starts added one at a time
// (lateStarts' order) until it holds or they are exhausted. It returns the
// last verdict and the late start after the last step (nil when p has no
// step), which the same downtime's judging keeps among its candidates.
func convergesLate(w *world.World, t *testing.T, p *plan.Plan, refs []*verdict.Reference, got *verdict.Snapshot, v check.Verdict) (check.Verdict, *verdict.Reference, error) {
	starts := lateStarts(p)
	if len(starts) == 0 {
		return v, nil, nil
	}
	var afterLast *verdict.Reference
	candidates := slices.Clip(refs)
	for i, at := range starts {
		late, err := lateStart(w, t, p, at, i == 0)
		if err != nil {
			return v, afterLast, err
		}
		if i == 0 {
			afterLast = late
		}
		candidates = append(candidates, late)
		if v = verdict.Converges(w, candidates, got, v.At); v.Holds {
			break
		}
	}
	return v, afterLast, nil
}
