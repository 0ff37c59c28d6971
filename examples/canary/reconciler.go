// Package canary is a tiny controller with a deliberate stale-cache bug, and the
// example of testing your own reconciler with ctrlsim. For every parent ConfigMap
// (labelled canary.ctrlsim.dev/parent) it wants exactly one child Secret, and it
// creates one whenever its cache does not show one yet: when the Secret cache lags
// behind the ConfigMap cache, it creates two. The harness must catch it every time
// (a canary, as in TigerBeetle's fuzzers: a pipeline that catches nothing is
// noticed).
//
// # Known gaps
//
// It is wrong on purpose. A correct version would name the child after the parent
// (Create then fails with AlreadyExists) or read children with the API reader.
package canary

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Labels and annotations of the canary.
const (
	ParentLabel = "canary.ctrlsim.dev/parent"
	ChildOf     = "canary.ctrlsim.dev/child-of"
	Created     = "canary.ctrlsim.dev/child"
)

// Reconciler gives each parent ConfigMap one child Secret (or so it thinks).
type Reconciler struct {
	client.Client
}

// Reconcile ensures the child exists, then marks the parent.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var parent corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &parent); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var children corev1.SecretList
	if err := r.List(ctx, &children, client.InNamespace(parent.Namespace), client.MatchingLabels{ChildOf: parent.Name}); err != nil {
		return reconcile.Result{}, err
	}
	if len(children.Items) == 0 { // the bug: the cache may not show a child created a moment ago
		child := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: parent.Namespace, GenerateName: parent.Name + "-", Labels: map[string]string{ChildOf: parent.Name},
		}}
		if err := controllerutil.SetControllerReference(&parent, child, r.Scheme()); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Create(ctx, child); err != nil {
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
