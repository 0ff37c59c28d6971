package cluster

import (
	"fmt"

	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// CheckDeterminism runs p twice, each time on a fresh world from opts and driven by
// run, and returns an error naming the first divergent step when the two traces
// differ. opts is a function so that each run gets fresh reconcilers.
func CheckDeterminism(p *plan.Plan, opts func() Options, run func(c *Cluster)) error {
	var traces [2]*trace.Trace
	for i := range traces {
		c, err := New(p, opts())
		if err != nil {
			return err
		}
		run(c)
		c.Close()
		traces[i] = c.Trace
	}
	if traces[0].Hash() == traces[1].Hash() {
		return nil
	}
	if d, ok := trace.Diverge(traces[0], traces[1]); ok {
		return fmt.Errorf("plan is not deterministic: %s", d)
	}
	return fmt.Errorf("plan is not deterministic: hashes differ (%s vs %s) but the kept steps agree", traces[0].Hash(), traces[1].Hash())
}
