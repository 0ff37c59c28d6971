// Package canary is a tiny controller with a deliberate stale-cache bug: the
// canary of the catalogue and the example of testing your own reconciler with
// ctrlsim (examples/canary). For every parent ConfigMap (labelled
// canary.ctrlsim.dev/parent) it wants exactly one child Secret.
//
//   - buggy: it creates a child whenever its cache does not show one yet, so when
//     the Secret cache lags behind the ConfigMap cache it creates two. The harness
//     must catch it every time (a canary, as in TigerBeetle's fuzzers: a pipeline
//     that catches nothing is noticed).
//   - fixed: the child is named after the parent, so a second Create fails with
//     AlreadyExists.
//   - robust: children are listed with the API reader (no cache), and named as in
//     fixed.
//
// # Known gaps
//
// Not an upstream controller: it models no repository.
package canary

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

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

// Labels and annotations of the canary.
const (
	ParentLabel = "canary.ctrlsim.dev/parent"
	ChildOf     = "canary.ctrlsim.dev/child-of"
	Created     = "canary.ctrlsim.dev/child"
)

// Reconciler gives each parent ConfigMap one child Secret (or, buggy, thinks so).
type Reconciler struct {
	client.Client
	// APIReader reads from the API server (mgr.GetAPIReader()); used by Robust.
	APIReader client.Reader
	Variant   variant.Variant
}

// SetupWithManager registers the controller: parent ConfigMaps, owned Secrets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(IsParent)).
		Owns(&corev1.Secret{}).
		Complete(r)
}

// IsParent selects parent ConfigMaps.
var IsParent = predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[ParentLabel] != "" })

// Reconcile ensures the child exists, then marks the parent.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var parent corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &parent); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var reader client.Reader = r.Client
	if r.Variant == variant.Robust {
		reader = r.APIReader
	}
	var children corev1.SecretList
	if err := reader.List(ctx, &children, client.InNamespace(parent.Namespace), client.MatchingLabels{ChildOf: parent.Name}); err != nil {
		return reconcile.Result{}, err
	}
	if len(children.Items) == 0 { // buggy: the cache may not show a child created a moment ago
		child := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: parent.Namespace, Labels: map[string]string{ChildOf: parent.Name},
		}}
		if r.Variant == variant.Buggy {
			child.GenerateName = parent.Name + "-"
		} else {
			child.Name = parent.Name + "-child"
		}
		if err := controllerutil.SetControllerReference(&parent, child, r.Scheme()); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Create(ctx, child); err != nil && !apierrors.IsAlreadyExists(err) {
			return reconcile.Result{}, err
		}
	}
	if parent.Annotations[Created] == "" {
		patch := client.MergeFrom(parent.DeepCopy())
		metav1.SetMetaDataAnnotation(&parent.ObjectMeta, Created, "yes")
		return reconcile.Result{}, r.Patch(ctx, &parent, patch)
	}
	return reconcile.Result{}, nil
}
