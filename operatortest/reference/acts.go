package reference

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// actsOf are the actions of res, a fault-free run (plan.Act, what a sweep
// ranks its plans by): each write of a process's reconcile in the
// fault phase that changed something, with the reads that reconcile made
// before it (a write's answer among them: the version it made). A write changed something when it succeeded and, but for a
// delete, made a version newer than every one the run had made before it:
// an update or patch that changes nothing answers with the object's
// current version (the apiserver commits nothing). A read or write names
// its kind by the trace's kind name, resolved among the world's collected
// kinds ("" when none, or more than one group, has it).
func actsOf(w *world.World, res *world.RunResult) []plan.Act {
	type reconcile struct {
		process, controller string
		worker, n           int
	}
	reads := map[reconcile][]plan.Observed{}
	var out []plan.Act
	var newest uint64 // the newest version the run made before a step
	logAt := 0        // the log's events before it
	for _, s := range res.Steps {
		if s.At > w.Opts.FaultPhase {
			break
		}
		for ; logAt < len(res.Log) && res.Log[logAt].At.Sub(res.Start) < s.At; logAt++ {
			newest = max(newest, res.Log[logAt].ResourceVersion)
		}
		made := s.RVWritten > newest
		newest = max(newest, s.RVWritten)
		if s.Reconcile == 0 || s.Result != "ok" {
			continue
		}
		r := reconcile{s.Process, s.Controller, s.Worker, s.Reconcile}
		verb, _, _ := strings.Cut(strings.TrimPrefix(s.Op, "cached-"), "/")
		name, object, _ := strings.Cut(s.Object, " ")
		kind := kindOf(w, name)
		switch verb {
		case "get", "list":
			if verb == "list" {
				if object == "" {
					object = "*"
				}
			}
			reads[r] = append(reads[r], plan.Observed{At: s.At, Kind: kind, Object: object, RV: s.RVSeen})
		case "create", "update", "patch", "delete":
			if verb != "delete" && !made {
				continue // a no-op write acts on nothing
			}
			out = append(out, plan.Act{At: s.At, Process: s.Process, Kind: kind, Object: object, Reads: slices.Clone(reads[r])})
			if verb != "delete" {
				// The write's answer is the version it made: the reconcile
				// goes on from it as from a read (its object updated in place).
				reads[r] = append(reads[r], plan.Observed{At: s.At, Kind: kind, Object: object, RV: s.RVWritten})
			}
		}
	}
	return out
}

// kindOf is the collected kind whose name is name, as a plan.Write names
// kinds ("group/version/Kind"); "" when none or more than one is.
func kindOf(w *world.World, name string) string {
	var found []schema.GroupVersionKind
	for _, gvk := range w.Collected {
		if gvk.Kind == name {
			found = append(found, gvk)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0].Group + "/" + found[0].Version + "/" + found[0].Kind
}
