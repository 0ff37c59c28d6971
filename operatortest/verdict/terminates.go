package verdict

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
)

// Terminates: nothing is stuck deleting at the end of the heal budget (a
// finalizer never removed, a namespace Terminating for good), judged
// against the fault-free runs of the same workload. The end comes after
// the pods' kills the kubelet had scheduled at the heal budget's end
// (sim/cluster's Phases.Scheduled). An object still deleting at the end is
// in its grace period, not stuck, when the cluster has scheduled its stop
// for after the end (check.Run's Scheduled: a kill the deletions of a chain
// scheduled one after the other, a rolling update of pods that ignore
// SIGTERM). It is in progress, not stuck, when its deletion has
// lasted no longer than a fault-free run took to delete the same object
// (one stuck there too never finished deleting: it counts): an operator that
// retries a failing install by uninstalling and waiting for its namespace
// to terminate has a namespace Terminating at every turn of its cycle, and
// where the run's end falls in the cycle is the schedule's doing.
func Terminates(w *world.World, refs []*Reference, got *Snapshot, r *check.Run) check.Verdict {
	v := check.Terminates{}.Check(r)
	if v.Holds {
		return v
	}
	var stuck, inProgress, inGrace []string
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
			switch {
			case stopScheduled(r, gvk, o):
				inGrace = append(inGrace, line)
			case slices.ContainsFunc(refs, func(ref *Reference) bool {
				took, ok := ref.Snap.deleteTook[key]
				return ok && age <= took+time.Second
			}):
				inProgress = append(inProgress, line)
			default:
				stuck = append(stuck, line)
			}
		}
	}
	if len(stuck) > 0 && len(refs) == 0 && len(inGrace) == 0 {
		return v
	}
	slices.Sort(stuck)
	slices.Sort(inProgress)
	slices.Sort(inGrace)
	if len(stuck) > 0 {
		return check.Verdict{Property: world.Terminates, At: r.End, Detail: "still deleting at the end of the heal budget: " + strings.Join(stuck, "; ")}
	}
	var notes []string
	var excused []string
	if len(inProgress) > 0 {
		notes = append(notes, fmt.Sprintf("%d object%s still deleting at the end, for no longer than a fault-free run of the same workload took to delete %s: %s",
			len(inProgress), world.Plural(len(inProgress)), pronoun(len(inProgress)), strings.Join(inProgress, "; ")))
		excused = append(excused, DeletionInFlight)
	}
	if len(inGrace) > 0 {
		notes = append(notes, fmt.Sprintf("%d object%s still deleting at the end, in the grace period of a stop the cluster has scheduled for after the end: %s",
			len(inGrace), world.Plural(len(inGrace)), strings.Join(inGrace, "; ")))
		excused = append(excused, StopScheduled)
	}
	return check.Verdict{Property: world.Terminates, Holds: true, Detail: strings.Join(notes, "; and ")}.Excuse(excused...)
}

// stopScheduled reports whether the cluster has scheduled the stop of o,
// of kind gvk, for after the run's end (check.Run's Scheduled).
func stopScheduled(r *check.Run, gvk schema.GroupVersionKind, o client.Object) bool {
	key := o.GetName()
	if o.GetNamespace() != "" {
		key = o.GetNamespace() + "/" + key
	}
	return slices.ContainsFunc(r.Scheduled, func(s check.Scheduled) bool {
		return s.Kind == gvk.Kind && s.Key == key && s.Due > r.End
	})
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
