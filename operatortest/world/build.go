package world

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A WorkloadSource is where a world's workload comes from: the generator of
// its steps (and the kinds they touch), and the actions those steps name.
// operatortest/workload is the one operatortest builds its worlds with.
type WorkloadSource interface {
	Draw(w *World) (*rapid.Generator[[]plan.Step], []schema.GroupVersionKind, error)
	Actions(w *World) map[string]cluster.Action
}

// Build is the world of o, made and checked in one place: built from its
// Options (New, which validates them), its workload from src, its faults
// narrowed to o.Faults, and what the Options ask of it refused when the
// world can never do it (faults.World.Check): a fault class with no material, an
// API fault template that matches no request. An error is one line naming
// the field.
func Build(o Options, src WorkloadSource) (*World, error) {
	w, err := New(o, src.Draw)
	if err != nil {
		return nil, err
	}
	w.StepActions = func() map[string]cluster.Action { return src.Actions(w) }
	if err := w.FaultWorld().Narrow(); err != nil { // package faults
		return nil, err
	}
	if err := w.FaultWorld().Check(); err != nil {
		return nil, err
	}
	return w, nil
}

// requestAgents are the processes whose requests an API fault's process=
// can name: the operator's and the built-in ones that run.
func (w *World) requestAgents() []string {
	out := w.OperatorProcesses()
	if !w.Opts.NoBuiltinControllers || !w.Opts.NoWorkloadModels {
		out = append(out, KubeControllerManager)
	}
	if !w.Opts.NoWorkloadModels {
		out = append(out, kubeworld.KubeletProcess)
	}
	return out
}
