package orphanchild

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Site CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Site.
	GroupVersion  = schema.GroupVersion{Group: "orphanchild.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Site to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Site{}, &SiteList{}) }

// Finalizer holds a Site until its pages are deleted; SiteLabel names the
// Site a page belongs to.
const (
	Finalizer = "orphanchild.ctrlsim.dev/cleanup"
	SiteLabel = "orphanchild.ctrlsim.dev/site"
)

// Site publishes Spec.Greeting as a page, the ConfigMap <name>-page.
type Site struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              SiteSpec `json:"spec,omitempty"`
}

// SiteSpec is what the page says.
type SiteSpec struct {
	Greeting string `json:"greeting"`
}

// SiteList is a list of Sites.
type SiteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Site `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Site) DeepCopyInto(out *Site) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Site.
func (in *Site) DeepCopyObject() runtime.Object {
	out := new(Site)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *SiteList) DeepCopyObject() runtime.Object {
	out := &SiteList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var s Site
		in.Items[i].DeepCopyInto(&s)
		out.Items = append(out.Items, s)
	}
	return out
}

// Reconciler publishes each Site's page and deletes it with the Site.
type Reconciler struct {
	client.Client
	// Buggy makes pages with no owner reference: the finalizer's list of
	// them, from the cache, is all that deletes them.
	Buggy bool
}

// SetupWithManager registers the controller: Sites, and ConfigMaps (the
// pages) mapped to their Site by label.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toSite := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if site := o.GetLabels()[SiteLabel]; site != "" {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: site}}}
		}
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).For(&Site{}).Watches(&corev1.ConfigMap{}, toSite).Complete(r)
}

// Reconcile adds the finalizer and publishes the page; for a Site being
// deleted it deletes the Site's pages (listed by label) and then removes
// the finalizer.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var s Site
	if err := r.Get(ctx, req.NamespacedName, &s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !s.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(&s, Finalizer) {
			return ctrl.Result{}, nil
		}
		// The cache's list: a page created a moment ago, or while the
		// ConfigMap watch was stalled, is not in it yet.
		var pages corev1.ConfigMapList
		if err := r.List(ctx, &pages, client.InNamespace(s.Namespace), client.MatchingLabels{SiteLabel: s.Name}); err != nil {
			return ctrl.Result{}, err
		}
		for i := range pages.Items {
			if err := r.Delete(ctx, &pages.Items[i]); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
		controllerutil.RemoveFinalizer(&s, Finalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, &s))
	}
	if !controllerutil.ContainsFinalizer(&s, Finalizer) {
		controllerutil.AddFinalizer(&s, Finalizer)
		if err := r.Update(ctx, &s); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.publish(ctx, &s)
}

// publish creates or updates the Site's page.
func (r *Reconciler) publish(ctx context.Context, s *Site) error {
	var page corev1.ConfigMap
	err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: s.Name + "-page"}, &page)
	if apierrors.IsNotFound(err) {
		page = corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name + "-page", Labels: map[string]string{SiteLabel: s.Name}},
			Data:       map[string]string{"greeting": s.Spec.Greeting},
		}
		if !r.Buggy {
			// The collector deletes the page once the Site is gone,
			// whatever the finalizer's list missed.
			if err := controllerutil.SetControllerReference(s, &page, r.Scheme()); err != nil {
				return err
			}
		}
		if err := r.Create(ctx, &page); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	}
	if err != nil || page.Data["greeting"] == s.Spec.Greeting {
		return err
	}
	page.Data = map[string]string{"greeting": s.Spec.Greeting}
	return r.Update(ctx, &page)
}
