package search

import (
	"github.com/ctrlsim/ctrlsim/operatortest/workload"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
)

// NewWorld is the world of o, its workload drawn (workload.go), its faults
// narrowed (faults.go) and checked (validate.go).
func NewWorld(o world.Options) (*world.World, error) {
	w, err := world.New(o, func(w *world.World) (*rapid.Generator[[]plan.Step], []schema.GroupVersionKind, error) {
		return workload.Draw(w)
	})
	if err != nil {
		return nil, err
	}
	w.StepActions = func() map[string]cluster.Action { return workload.Actions(w) }
	if err := w.Narrow(w.Opts.Faults); err != nil {
		return nil, err
	}
	if err := validateWorld(w); err != nil { // validate.go
		return nil, err
	}
	return w, nil
}
