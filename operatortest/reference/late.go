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

// The late reference (lateReference) starts the operator after the
// workload's last step. A fault delays an operator by any amount, not only
// past the whole workload: a crash and its back-off, or a restart onto a
// lagging apiserver, bring up an incarnation that sees the world as it is at
// its start, after some of the workload's steps and before the rest. What a
// correct operator makes of an object the user deleted before it looked
// (an entry it would have recorded, a child it would have made) then depends
// on where that start falls among the steps. So the candidates converges
// accepts also include, for each instant of a step but the last, the
// fault-free run whose operator starts right after it; they are run one by
// one, only while converges would otherwise fire, and cached like every
// reference.

// convergesAfterEachStep judges got again with the late references of p's
// earlier steps added, one at a time, until converges holds or they are
// exhausted; it returns the last verdict.
func convergesAfterEachStep(w *world.World, t *testing.T, p *plan.Plan, refs []*verdict.Reference, got *verdict.Snapshot, v check.Verdict) (check.Verdict, error) {
	var times []time.Duration
	for _, s := range p.Steps {
		times = append(times, s.At)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	if len(times) < 2 {
		return v, nil
	}
	candidates := slices.Clip(refs)
	for _, at := range times[:len(times)-1] {
		r, err := referenceOf(w, t, &plan.Plan{Seed: p.Seed, Steps: p.Steps}, at+time.Millisecond)
		if err != nil {
			return v, err
		}
		late := *r
		late.Late = true
		late.After = at
		candidates = append(candidates, &late)
		if v = verdict.Converges(w, candidates, got, v.At); v.Holds {
			return v, nil
		}
	}
	return v, nil
}
