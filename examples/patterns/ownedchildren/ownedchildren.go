package ownedchildren

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Website CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Website to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Website{}, &WebsiteList{}) }

// Website is served by a ConfigMap and a Service of its name.
type Website struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WebsiteSpec `json:"spec,omitempty"`
}

// WebsiteSpec is the site's title and port.
type WebsiteSpec struct {
	Title string `json:"title"`
	Port  int32  `json:"port"`
}

// WebsiteList is a list of Websites.
type WebsiteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Website `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Website) DeepCopyInto(out *Website) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Website.
func (in *Website) DeepCopyObject() runtime.Object {
	out := new(Website)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *WebsiteList) DeepCopyObject() runtime.Object {
	out := &WebsiteList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var w Website
		in.Items[i].DeepCopyInto(&w)
		out.Items = append(out.Items, w)
	}
	return out
}

// Reconciler keeps each Website's children.
type Reconciler struct {
	client.Client
	// Buggy adds a child's owner reference in a second write, after the
	// create.
	Buggy bool
}

// SetupWithManager registers the controller: Websites, owned ConfigMaps and
// Services.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Website{}).
		Owns(&corev1.ConfigMap{}).Owns(&corev1.Service{}).Complete(r)
}

// Reconcile creates the Website's ConfigMap and Service, or brings them to
// its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var site Website
	if err := r.Get(ctx, req.NamespacedName, &site); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: site.Namespace, Name: site.Name}}
	if err := r.ensure(ctx, &site, cm, func() bool {
		if cm.Data["title"] == site.Spec.Title {
			return false
		}
		cm.Data = map[string]string{"title": site.Spec.Title}
		return true
	}); err != nil {
		return ctrl.Result{}, err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: site.Namespace, Name: site.Name}}
	return ctrl.Result{}, r.ensure(ctx, &site, svc, func() bool {
		port := corev1.ServicePort{Name: "http", Protocol: corev1.ProtocolTCP, Port: site.Spec.Port, TargetPort: intstr.FromInt32(site.Spec.Port)}
		if len(svc.Spec.Ports) == 1 && svc.Spec.Ports[0].Port == port.Port && svc.Spec.Ports[0].TargetPort == port.TargetPort {
			return false
		}
		svc.Spec.Selector = map[string]string{"app": site.Name}
		svc.Spec.Ports = []corev1.ServicePort{port}
		return true
	})
}

// ensure creates obj (named, not yet read) as mutate makes it, or reads it
// and updates it when mutate changes it.
func (r *Reconciler) ensure(ctx context.Context, site *Website, obj client.Object, mutate func() bool) error {
	err := r.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if err == nil {
		if !mutate() {
			return nil
		}
		return r.Update(ctx, obj)
	}
	if !apierrors.IsNotFound(err) {
		return err
	}
	mutate()
	if !r.Buggy {
		if err := controllerutil.SetControllerReference(site, obj, r.Scheme()); err != nil {
			return err
		}
	}
	if err := r.Create(ctx, obj); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil // the cache is behind; its event brings the object back here
		}
		return err
	}
	if r.Buggy { // the bug: owned in a second write, which a crash can prevent
		if err := controllerutil.SetControllerReference(site, obj, r.Scheme()); err != nil {
			return err
		}
		return r.Update(ctx, obj)
	}
	return nil
}
