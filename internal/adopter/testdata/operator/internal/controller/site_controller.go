package controller

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	webv1 "github.com/example/site-operator/api/v1"
)

// SiteReconciler reconciles a Site object: it makes the site's ConfigMap
// (<name>-config, its domain and replicas) and its Secret
// (<name>-credentials), both owned by the Site, then marks the Site ready.
type SiteReconciler struct {
	client.Client
	Scheme *runtime.Scheme

	// TrustConfig is the planted bug: when the ConfigMap exists, the
	// reconciler takes the Secret to exist too (it is created second). A
	// crash between the two creates leaves a Site without credentials,
	// marked ready, for ever.
	TrustConfig bool
}

// +kubebuilder:rbac:groups=web.example.com,resources=sites,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=web.example.com,resources=sites/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=configmaps;secrets,verbs=get;list;watch;create;update;patch;delete

// Reconcile moves the cluster towards the Site's spec.
func (r *SiteReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	var site webv1.Site
	if err := r.Get(ctx, req.NamespacedName, &site); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !site.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: site.Namespace, Name: site.Name + "-config"}}
	if r.TrustConfig {
		err := r.Get(ctx, client.ObjectKeyFromObject(cm), cm)
		if err == nil {
			return r.markReady(ctx, &site) // the bug: the Secret is not checked
		}
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
	}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"domain": site.Spec.Domain, "replicas": replicas(site.Spec.Replicas)}
		return controllerutil.SetControllerReference(&site, cm, r.Scheme)
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	log.V(1).Info("config", "operation", op)

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: site.Namespace, Name: site.Name + "-credentials"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, secret, func() error {
		if secret.Data == nil {
			secret.Data = map[string][]byte{"user": []byte(site.Name)}
		}
		return controllerutil.SetControllerReference(&site, secret, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, err
	}
	return r.markReady(ctx, &site)
}

func (r *SiteReconciler) markReady(ctx context.Context, site *webv1.Site) (ctrl.Result, error) {
	if site.Status.Ready {
		return ctrl.Result{}, nil
	}
	site.Status.Ready = true
	return ctrl.Result{}, r.Status().Update(ctx, site)
}

func replicas(n int32) string {
	if n == 0 {
		n = 1
	}
	return strconv.Itoa(int(n))
}

// SetupWithManager sets up the controller with the Manager.
func (r *SiteReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webv1.Site{}).
		Owns(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		Named("site").
		Complete(r)
}
