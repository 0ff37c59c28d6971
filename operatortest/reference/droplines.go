package reference

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Dropping lines, the last pass of a shrink (shrink.go's neighbour).
//
// Rapid shrinks a plan by shrinking its draws, within a bound (package
// search's shrinkBound): a plan found late may stop with a line that is not
// part of its cause, a fault rapid could not draw away before the bound.
// The shrink ends with a pass over the plan's lines themselves: each fault,
// then each drawn step (a scripted step is the author's, never dropped), is
// left out in turn, and the plan without it is kept when its run still
// shows the finding; after a line is dropped the pass starts over, until no
// line can go. It is at most n×(n+1)/2 runs for a plan of n lines (rapid's
// minimal plans have a handful), each a run of a plan, so the minimal plan
// stays a function of the seed and the Options.

// DropLines is the dropping pass over p, whose run r shows the finding
// (shows), trying at most budget plans (negative: no bound but its own) and
// calling progress before each with the plans tried and the smallest
// failing plan so far: the plan with no line that can go (stopped: the
// budget ended the pass first), its run, and the plans it tried.
func DropLines(w *world.World, t *testing.T, p *plan.Plan, r *world.RunResult, shows func(*world.RunResult) bool, budget int, progress func(tried int, smallest *plan.Plan)) (_ *plan.Plan, _ *world.RunResult, tried int, stopped bool, _ error) {
	for {
		dropped := false
		for _, c := range withoutALine(p) {
			if tried == budget {
				return p, r, tried, true, nil
			}
			progress(tried, p)
			tried++
			cr, err := RunRecalled(w, t, c)
			if err != nil {
				return nil, nil, tried, false, err
			}
			if shows(cr) {
				p, r, dropped = c, cr, true
				break
			}
		}
		if !dropped {
			return p, r, tried, false, nil
		}
	}
}

// withoutALine are p without one of its lines: each fault, then each
// drawn step, in order.
func withoutALine(p *plan.Plan) []*plan.Plan {
	var out []*plan.Plan
	for i := range p.Faults {
		out = append(out, &plan.Plan{Seed: p.Seed, Steps: p.Steps, Faults: slices.Delete(slices.Clone(p.Faults), i, i+1)})
	}
	for i, s := range p.Steps {
		if !s.Script {
			out = append(out, &plan.Plan{Seed: p.Seed, Steps: slices.Delete(slices.Clone(p.Steps), i, i+1), Faults: p.Faults})
		}
	}
	return out
}
