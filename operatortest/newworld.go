package operatortest

import (
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
)

// newWorld is the world of o, its workload drawn (workload.go), its faults
// narrowed (faults.go) and checked (validate.go).
func newWorld(o Options) (*world, error) {
	w, err := newWorldOf(o, func(w *world) (*rapid.Generator[[]plan.Step], []schema.GroupVersionKind, error) { return w.workload() })
	if err != nil {
		return nil, err
	}
	w.stepActions = func() map[string]cluster.Action { return w.actions() }
	if err := w.narrow(w.o.Faults); err != nil {
		return nil, err
	}
	if err := w.validateWorld(); err != nil { // validate.go
		return nil, err
	}
	return w, nil
}
