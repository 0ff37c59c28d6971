package applyop

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

const (
	// AppLabel marks the ConfigMaps the operator serves.
	AppLabel = "applyop.ctrlsim.dev/app"
	// PhaseAnnotation is the app's phase: Ready once its child is applied.
	PhaseAnnotation = "applyop.ctrlsim.dev/phase"
	// FieldOwner is the operator's field manager.
	FieldOwner = "applyop-controller"
)

// Reconciler applies the rendered child of each app ConfigMap.
type Reconciler struct {
	client.Client
	// Fixed guards the app's apply with its uid; the buggy reconciler does
	// not, and re-creates an app deleted since its read.
	Fixed bool
}

// SetupWithManager registers the controller: app ConfigMaps, and the
// ConfigMaps they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[AppLabel] != "" }))).
		Owns(&corev1.ConfigMap{}).
		Complete(r)
}

// Reconcile applies <name>-rendered, then the app's phase.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if app.Labels[AppLabel] == "" || app.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	opts := []client.ApplyOption{client.FieldOwner(FieldOwner), client.ForceOwnership}
	child := corev1ac.ConfigMap(app.Name+"-rendered", app.Namespace).
		WithData(app.Data).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion("v1").WithKind("ConfigMap").WithName(app.Name).WithUID(app.UID).
			WithController(true).WithBlockOwnerDeletion(true))
	if err := r.Apply(ctx, child, opts...); err != nil {
		return reconcile.Result{}, err
	}
	phase := corev1ac.ConfigMap(app.Name, app.Namespace).
		WithAnnotations(map[string]string{PhaseAnnotation: "Ready"})
	if r.Fixed {
		// The app's uid makes the apply a precondition: the apply of an app
		// deleted since it was read is a 409, where it would create the app
		// again (apply creates what is missing).
		phase.WithUID(app.UID)
	}
	return reconcile.Result{}, r.Apply(ctx, phase, opts...)
}
