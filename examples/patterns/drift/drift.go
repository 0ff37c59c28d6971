package drift

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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

// CRD is the Site CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Site to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Site{}, &SiteList{}) }

// FieldManager is the operator's field manager.
const FieldManager = "drift"

// CorrectedAt is the annotation of the Service that says when its drift
// was last corrected.
const CorrectedAt = "drift.ctrlsim.dev/corrected-at"

// Site is a site served on a port.
type Site struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              SiteSpec   `json:"spec,omitempty"`
	Status            SiteStatus `json:"status,omitempty"`
}

// SiteSpec is the port the site is served on.
type SiteSpec struct {
	Port int32 `json:"port"`
}

// SiteStatus gives the Service's address.
type SiteStatus struct {
	ClusterIP string `json:"clusterIP,omitempty"`
}

// SiteList is a list of Sites.
type SiteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Site `json:"items"`
}

// DeepCopyObject copies the Site.
func (in *Site) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject copies the list.
func (in *SiteList) DeepCopyObject() runtime.Object {
	out := &SiteList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		out.Items = append(out.Items, *in.Items[i].DeepCopyObject().(*Site))
	}
	return out
}

// Reconciler keeps each Site's Service as desired.
type Reconciler struct {
	client.Client
	// APIReader reads the live Service (drift is judged against the
	// apiserver, not a cache).
	APIReader client.Reader
	// Buggy judges drift without the dry run.
	Buggy bool
}

// SetupWithManager registers the controller: Sites, owned Services.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Site{}).Owns(&corev1.Service{}).Complete(r)
}

// Reconcile corrects the drift of the Site's Service, then reports its
// address.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var site Site
	if err := r.Get(ctx, req.NamespacedName, &site); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	desired, err := r.desired(&site)
	if err != nil {
		return ctrl.Result{}, err
	}
	live := &corev1.Service{}
	err = r.APIReader.Get(ctx, client.ObjectKeyFromObject(desired), live)
	switch {
	case apierrors.IsNotFound(err):
		if err := r.correct(ctx, desired); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	default:
		drifted, err := r.drifted(ctx, desired, live)
		if err != nil {
			return ctrl.Result{}, err
		}
		if drifted {
			if err := r.correct(ctx, desired); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(desired), live); err != nil {
		return ctrl.Result{}, err
	}
	if site.Status.ClusterIP == live.Spec.ClusterIP {
		return ctrl.Result{}, nil
	}
	site.Status.ClusterIP = live.Spec.ClusterIP
	return ctrl.Result{}, r.Status().Update(ctx, &site)
}

// desired is the Service the Site asks for, as an apply configuration holds
// it: the fields the operator owns, and nothing the server defaults.
func (r *Reconciler) desired(site *Site) (*corev1.Service, error) {
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: site.Namespace, Name: site.Name + "-web", Labels: map[string]string{"app": site.Name}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": site.Name},
			Ports:    []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: site.Spec.Port, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	return svc, controllerutil.SetControllerReference(site, svc, r.Scheme())
}

// drifted reports whether the live Service differs from the desired one: as
// the server would make the desired one (a dry-run apply: its defaults, its
// allocated address), or, in the twin, as it is.
func (r *Reconciler) drifted(ctx context.Context, desired, live *corev1.Service) (bool, error) {
	if r.Buggy {
		return !equality.Semantic.DeepEqual(desired.Spec, live.Spec), nil // the bug: the server's defaults are drift
	}
	dry := desired.DeepCopy()
	if err := r.Patch(ctx, dry, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership, client.DryRunAll); err != nil { //nolint:staticcheck // an apply patch of a typed object, as operators send it
		return false, err
	}
	return !equality.Semantic.DeepEqual(dry.Spec, live.Spec), nil
}

// correct applies the desired Service for real, stamped with the time.
func (r *Reconciler) correct(ctx context.Context, desired *corev1.Service) error {
	svc := desired.DeepCopy()
	svc.Annotations = map[string]string{CorrectedAt: time.Now().UTC().Format(time.RFC3339Nano)}
	return r.Patch(ctx, svc, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership) //nolint:staticcheck // as above
}
