package scoped

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// AppLabel marks the ConfigMaps the operator serves.
const AppLabel = "scoped.ctrlsim.dev/app"

// The platform Secret copied into each app's namespace.
const (
	PlatformNamespace = "platform"
	SecretName        = "registry-credentials"
)

// Options are the manager.Options main builds: with a watch namespace (its
// WATCH_NAMESPACE), the cache holds that namespace only.
func Options(watchNamespace string) manager.Options {
	o := manager.Options{}
	if watchNamespace != "" {
		o.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{watchNamespace: {}}}
	}
	return o
}

// Reconciler copies the platform Secret for each app ConfigMap.
type Reconciler struct {
	client.Client
	// Platform reads the platform Secret: mgr.GetClient() in the buggy
	// operator, mgr.GetAPIReader() in the fixed one.
	Platform client.Reader
}

// New is the reconciler main sets up: the fixed one reads the platform
// Secret from the apiserver, the buggy one from the manager's cache.
func New(mgr manager.Manager, fixed bool) *Reconciler {
	r := &Reconciler{Client: mgr.GetClient(), Platform: mgr.GetClient()}
	if fixed {
		r.Platform = mgr.GetAPIReader()
	}
	return r
}

// SetupWithManager registers the controller: app ConfigMaps, owned Secrets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[AppLabel] != "" }))).
		Owns(&corev1.Secret{}).
		Complete(r)
}

// Reconcile copies platform/registry-credentials into the app's namespace.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var src corev1.Secret
	if err := r.Platform.Get(ctx, client.ObjectKey{Namespace: PlatformNamespace, Name: SecretName}, &src); apierrors.IsNotFound(err) {
		// Not there yet (or not yet in a cache that lags): nothing watches
		// the platform namespace, so look again later.
		return reconcile.Result{RequeueAfter: 30 * time.Second}, nil
	} else if err != nil {
		return reconcile.Result{}, err
	}
	var copied corev1.Secret
	err := r.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: SecretName}, &copied)
	if err == nil || !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	copied = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: SecretName},
		Type: src.Type, Data: src.Data}
	if err := controllerutil.SetControllerReference(&app, &copied, r.Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.Create(ctx, &copied); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}
