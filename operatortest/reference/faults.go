package reference

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// aimedAt reports whether the reference run's changes of object (as
// plan.Write names it: "namespace/name", or "name" when cluster-scoped) are
// targets of aimed faults: Options.Faults.Objects names it, or names none.
func aimedAt(w *world.World, object string) bool { return w.FaultWorld().Aims(object) }

// checkObjects checks Options.Faults.Objects against res, a reference run,
// when the workload is the author's script alone (every plan's workload is
// then the same): it says in one line which named objects the run never
// changed, and which it changed (nil: each named one is there, none is
// named, or the workload draws steps, which may change it in another plan).
// A name the script's run never touches is a typing error: aimed faults
// would fall on nothing.
func checkObjects(w *world.World, res *world.RunResult) error {
	wl := w.Opts.Workload
	if len(w.Opts.Faults.Objects) == 0 || wl.Steps == nil || len(wl.Steps) > 0 || len(wl.Domain) > 0 {
		return nil
	}
	var all []string
	for _, ev := range res.Log {
		if k := writeObject(ev.Object); slices.Contains(w.Collected, ev.GVK) && !slices.Contains(all, k) {
			all = append(all, k)
		}
	}
	var missing []string
	for _, o := range w.Opts.Faults.Objects {
		key := o.Name
		if o.Namespace != "" {
			key = o.Namespace + "/" + o.Name
		}
		if !slices.Contains(all, key) {
			missing = append(missing, key)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(all)
	return fmt.Errorf("Options.Faults.Objects: %s is changed by no write of the script's fault-free run (its objects: %s)", strings.Join(missing, ", "), strings.Join(all, ", "))
}
