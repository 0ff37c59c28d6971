package conditions

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Page CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Page to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Page{}, &PageList{}) }

// Ready is the condition type saying the page is published.
const Ready = "Ready"

// Page is a page published in a ConfigMap.
type Page struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PageSpec   `json:"spec,omitempty"`
	Status            PageStatus `json:"status,omitempty"`
}

// PageSpec is the page's body.
type PageSpec struct {
	Body string `json:"body"`
}

// PageStatus says which generation is published.
type PageStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// PageList is a list of Pages.
type PageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Page `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Page) DeepCopyInto(out *Page) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = nil
	for _, c := range in.Status.Conditions {
		var cc metav1.Condition
		c.DeepCopyInto(&cc)
		out.Status.Conditions = append(out.Status.Conditions, cc)
	}
}

// DeepCopyObject copies the Page.
func (in *Page) DeepCopyObject() runtime.Object {
	out := new(Page)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *PageList) DeepCopyObject() runtime.Object {
	out := &PageList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var p Page
		in.Items[i].DeepCopyInto(&p)
		out.Items = append(out.Items, p)
	}
	return out
}

// Reconciler publishes each Page and reports it.
type Reconciler struct {
	client.Client
	// Buggy writes the status before the work and trusts it to skip the
	// work.
	Buggy bool
}

// SetupWithManager registers the controller: Pages, owned ConfigMaps.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Page{}).Owns(&corev1.ConfigMap{}).Complete(r)
}

// Reconcile publishes the Page's body, then reports the generation it
// published.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var page Page
	if err := r.Get(ctx, req.NamespacedName, &page); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.Buggy && page.Status.ObservedGeneration == page.Generation {
		return ctrl.Result{}, nil // the bug: trusts a status written before the work
	}
	if r.Buggy {
		if err := r.report(ctx, &page); err != nil { // the bug: reported before it is done
			return ctrl.Result{}, err
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: page.Namespace, Name: page.Name + "-page"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"index.html": page.Spec.Body}
		return controllerutil.SetControllerReference(&page, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.report(ctx, &page)
}

// report sets Ready and observedGeneration for the Page's generation.
func (r *Reconciler) report(ctx context.Context, page *Page) error {
	changed := meta.SetStatusCondition(&page.Status.Conditions, metav1.Condition{
		Type: Ready, Status: metav1.ConditionTrue, Reason: "Published",
		Message: "the page is published", ObservedGeneration: page.Generation,
	})
	if !changed && page.Status.ObservedGeneration == page.Generation {
		return nil
	}
	page.Status.ObservedGeneration = page.Generation
	return r.Status().Update(ctx, page)
}
