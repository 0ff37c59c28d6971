package verdict

import (
	"time"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

type Reference struct {
	Seed uint64
	Late bool // the late reference (lateReference)
	// After: a late reference's operator starts after this step's instant
	// (late.go; 0: after the last).
	After time.Duration
	// Downtime: the fault-free run of a faulted run's downtime
	// (downtime.go); like the late one, a candidate end state only.
	Downtime bool
	// Draws: the fault-free run of the plan's seed and workload with the
	// operator's randomness from another seed (random.go).
	Draws bool
	// Excuses are the cases of the table (excuses.go) this reference stands
	// for, set on a late or downtime reference's copy (a schedule's is
	// named by its place: the plan's own none, the other OtherSchedule; a
	// run with other draws by Draws: RandomDraws).
	Excuses []string
	// Cut: the run was cut at its work bound (its note; cut.go): a plan
	// judged against it is not judged.
	Cut     string
	Snap    *Snapshot
	Targets plan.Targets
	Writes  map[string][]int // each process's writes that another of its reconcile follows (the Space's Writes)
}
