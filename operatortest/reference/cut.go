package reference

import (
	"slices"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// A run is cut at its work bound (sim/cluster's DefaultMaxSteps task steps,
// DefaultMaxWrites writes, DefaultMaxObjects objects): no plan or shrink
// candidate may cost minutes. A storm of reconciles or writes
// that a stalled watch drives (a controller that re-creates, at the rate of
// API latency, what its cache does not show) can go on for the whole fault
// phase; with correct code too (sim/cluster's hotloop.go), so a cut is never
// a violation. A cut run never reached the end of its heal, so it is not
// judged: its plan tested nothing, and the exploration says so (Result.Cut,
// and a clause of the pass and failure lines) rather than counting it as a
// plan that held. A plan is cut too when a fault-free reference it is judged
// against was cut: there is nothing to compare it with. The kernel's own
// violations up to the cut (a reconcile panic) still count.

// cutVerdicts are the verdicts of a plan that cannot be judged because a run
// was cut: the kernel's violations of the plan's own run, and the cut's note.
func cutVerdicts(own []check.Verdict, note string) []check.Verdict {
	var out []check.Verdict
	for _, v := range own {
		if !v.Holds && slices.Contains(world.KernelVerdicts, v.Property) {
			out = append(out, v)
		}
	}
	return append(out, check.Verdict{Property: cluster.WorkBoundProperty, Holds: true, Detail: note})
}
