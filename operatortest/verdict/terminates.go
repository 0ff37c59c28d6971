package verdict

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
)

// Terminates: nothing is stuck deleting at the end of the heal budget (a
// finalizer never removed, a namespace Terminating for good), judged
// against the fault-free runs of the same workload. The end comes after
// the pods' kills the kubelet has scheduled (sim/cluster's
// Phases.Scheduled): a pod still in its grace period is not judged. An object still
// deleting at the end is in progress, not stuck, when its deletion has
// lasted no longer than a fault-free run took to delete the same object
// (one stuck there too never finished deleting: it counts): an operator that
// retries a failing install by uninstalling and waiting for its namespace
// to terminate has a namespace Terminating at every turn of its cycle, and
// where the run's end falls in the cycle is the schedule's doing.
func Terminates(w *world.World, refs []*Reference, got *Snapshot, r *check.Run) check.Verdict {
	v := check.Terminates{}.Check(r)
	if v.Holds || len(refs) == 0 {
		return v
	}
	var stuck, inProgress []string
	for _, gvk := range r.Kinds {
		for _, o := range r.Objects(gvk) {
			ts := o.GetDeletionTimestamp()
			if ts == nil {
				continue
			}
			key := got.Key(gvk, o)
			// The timestamp has whole seconds: the deletion began up to a
			// second after it. A graceful deletion's timestamp is its
			// deadline, its grace period after it began (a pod's).
			began := ts.Time
			if g := o.GetDeletionGracePeriodSeconds(); g != nil && *g > 0 {
				began = began.Add(-time.Duration(*g) * time.Second)
			}
			age := r.Start.Add(r.End).Sub(began)
			line := fmt.Sprintf("%s (finalizers %v, deleting for %s)", key, o.GetFinalizers(), age.Round(time.Millisecond))
			if slices.ContainsFunc(refs, func(ref *Reference) bool {
				took, ok := ref.Snap.deleteTook[key]
				return ok && age <= took+time.Second
			}) {
				inProgress = append(inProgress, line)
				continue
			}
			stuck = append(stuck, line)
		}
	}
	slices.Sort(stuck)
	slices.Sort(inProgress)
	if len(stuck) > 0 {
		return check.Verdict{Property: world.Terminates, At: r.End, Detail: "still deleting at the end of the heal budget: " + strings.Join(stuck, "; ")}
	}
	return check.Verdict{Property: world.Terminates, Holds: true, Detail: fmt.Sprintf("%d object%s still deleting at the end, for no longer than a fault-free run of the same workload took to delete %s: %s",
		len(inProgress), world.Plural(len(inProgress)), pronoun(len(inProgress)), strings.Join(inProgress, "; "))}.Excuse(DeletionInFlight)
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
