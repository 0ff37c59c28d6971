package banner

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Key is the ConfigMap key the banner's text is published under.
const Key = "banner"

// Reconciler publishes each Banner (read in v1) as a ConfigMap
// <name>-banner holding its lines joined, owned by the Banner, and records
// the generation published.
type Reconciler struct {
	Client client.Client
}

// Reconcile publishes one Banner.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b Banner
	if err := r.Client.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !b.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: b.Name + "-banner"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{Key: strings.Join(b.Spec.Lines, "\n")}
		return controllerutil.SetControllerReference(&b, cm, r.Client.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	if b.Status.ObservedGeneration != b.Generation {
		b.Status.ObservedGeneration = b.Generation
		if err := r.Client.Status().Update(ctx, &b); err != nil && !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// SetupWithManager registers the controller (on v1 Banners and the
// ConfigMaps they own) and the conversion webhook (/convert) that lets
// users keep writing v1alpha1.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &Banner{}).Complete(); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).For(&Banner{}).Owns(&corev1.ConfigMap{}).Complete(r)
}
