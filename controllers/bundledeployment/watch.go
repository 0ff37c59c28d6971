package bundledeployment

import (
	"context"
	"reflect"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

// ProvisionerFilter passes BundleDeployments of one provisioner class
// (internal/util BundleDeploymentProvisionerFilter). It has no generation
// predicate: status writes pass.
func ProvisionerFilter(id string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		bd, ok := obj.(*BundleDeployment)
		return ok && bd.Spec.ProvisionerClassName == id
	})
}

// DependentPredicate is helm-operator-plugins' DependentPredicateFuncs
// (rukpak internal/helm-operator-plugins/predicate/depedent.go): creates and
// generic events are ignored, deletes always pass, updates pass when anything
// but status and resourceVersion changed (a new deletionTimestamp does).
func DependentPredicate() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !reflect.DeepEqual(withoutStatus(e.ObjectOld), withoutStatus(e.ObjectNew))
		},
	}
}

// withoutStatus is obj as unstructured content without status and
// resourceVersion.
func withoutStatus(obj client.Object) map[string]any {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	delete(u, "status")
	if md, ok := u["metadata"].(map[string]any); ok {
		delete(md, "resourceVersion")
	}
	return u
}

// DependentHandler maps a release object's event to its controller owner
// BundleDeployment: handler.EnqueueRequestForOwner with IsController (Buggy,
// Fixed). Robust ignores the events of the deletions its own cleanup made
// (expectations, as kube-controller-manager's controllers keep them): they
// must not defeat the backoff of the attempt that caused them.
func (r *Reconciler) DependentHandler(scheme *runtime.Scheme, mapper apimeta.RESTMapper) handler.EventHandler {
	owner := handler.EnqueueRequestForOwner(scheme, mapper, &BundleDeployment{}, handler.OnlyControllerOwner())
	if r.Variant != variant.Robust {
		return owner
	}
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) { owner.Create(ctx, e, q) },
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) {
			if !r.ownDeletion(e.ObjectNew, scheme, false) {
				owner.Update(ctx, e, q)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) {
			if !r.ownDeletion(e.Object, scheme, true) {
				owner.Delete(ctx, e, q)
			}
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q queue) { owner.Generic(ctx, e, q) },
	}
}
