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
// kinds (each mapped to its kind by p's RESTMapper), owners of any served
// kind. It hosts nothing and reports false outside a testing/synctest bubble
// (kcm.Available): the caller then sets up the model.
func HostedGarbageCollector(p *process.Process, holds func(schema.GroupKind) bool) (bool, error) {
	if !kcm.Available(p) {
		return false, nil
	}
	var collects func(schema.GroupVersionResource) bool
	if holds != nil {
		mapper := p.Manager().GetRESTMapper()
		collects = func(gvr schema.GroupVersionResource) bool {
			gvk, err := mapper.KindFor(gvr)
			return err == nil && holds(gvk.GroupKind())
		}
	}
	return true, kcm.SetupGarbageCollector(p, collects)
}
