package kubeworld

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// HostedGarbageCollector hosts kube-controller-manager's own garbage
// collector in p (kcm.SetupGarbageCollector) in place of models/kube's
// GarbageCollector, for a world that may hold only the kinds holds says (nil:
// every kind): its discovery sync collects the served resources of those
// kinds (each its kind as discovery names it), owners of any served
// kind. It hosts nothing and reports false outside a testing/synctest bubble
// (kcm.Available): the caller then sets up the model.
func HostedGarbageCollector(p *process.Process, holds func(schema.GroupKind) bool) (bool, error) {
	if !kcm.Available(p) {
		return false, nil
	}
	var collects func(schema.GroupVersionKind) bool
	if holds != nil {
		collects = func(gvk schema.GroupVersionKind) bool { return holds(gvk.GroupKind()) }
	}
	return true, kcm.SetupGarbageCollector(p, collects)
}
