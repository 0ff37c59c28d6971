package twowrites

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// AppLabel marks the ConfigMaps the operator serves.
const AppLabel = "twowrites.ctrlsim.dev/app"

// Reconciler creates the two Secrets of each app ConfigMap.
type Reconciler struct {
	client.Client
	// Fixed checks each Secret; the buggy reconciler stops when the first exists.
	Fixed bool
}

// SetupWithManager registers the controller: app ConfigMaps, owned Secrets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[AppLabel] != "" }))).
		Owns(&corev1.Secret{}).
		Complete(r)
}

// Reconcile creates <name>-config, then <name>-credentials.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	for i, suffix := range []string{"-config", "-credentials"} {
		var s corev1.Secret
		err := r.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name + suffix}, &s)
		if err == nil {
			if i == 0 && !r.Fixed {
				return reconcile.Result{}, nil // the bug: the first Secret stands for both
			}
			continue
		}
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + suffix},
			StringData: map[string]string{"app": app.Name}}
		if err := controllerutil.SetControllerReference(&app, &s, r.Scheme()); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Create(ctx, &s); err != nil && !apierrors.IsAlreadyExists(err) {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}
