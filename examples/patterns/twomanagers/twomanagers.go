package twomanagers

import (
	"context"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Gateway CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Gateway to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Gateway{}, &GatewayList{}) }

// Gateway is an entry point for spec.host.
type Gateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GatewaySpec   `json:"spec,omitempty"`
	Status            GatewayStatus `json:"status,omitempty"`
}

// GatewaySpec is the host served.
type GatewaySpec struct {
	Host string `json:"host"`
}

// GatewayStatus is written by two managers: Address by dns, Certificate by
// tls.
type GatewayStatus struct {
	Address     string `json:"address,omitempty"`
	Certificate string `json:"certificate,omitempty"`
}

// GatewayList is a list of Gateways.
type GatewayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gateway `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Gateway) DeepCopyInto(out *Gateway) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopy copies the Gateway.
func (in *Gateway) DeepCopy() *Gateway {
	out := new(Gateway)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the Gateway.
func (in *Gateway) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopyObject copies the list.
func (in *GatewayList) DeepCopyObject() runtime.Object {
	out := &GatewayList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var g Gateway
		in.Items[i].DeepCopyInto(&g)
		out.Items = append(out.Items, g)
	}
	return out
}

// DNS writes each Gateway's status.address.
type DNS struct {
	client.Client
	// Unlocked patches without the optimistic lock (the operator as first
	// written): a key derived from a spec the cache shows from the past is
	// written all the same.
	Unlocked bool
}

// lock is the patch of gw's status from its copy as read: under an
// optimistic lock (its resourceVersion), unless unlocked.
func lock(gw *Gateway, unlocked bool) client.Patch {
	if unlocked {
		return client.MergeFrom(gw.DeepCopy())
	}
	return client.MergeFromWithOptions(gw.DeepCopy(), client.MergeFromWithOptimisticLock{})
}

// SetupWithManager registers the dns controller: Gateways' spec changes.
func (r *DNS) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("dns").
		For(&Gateway{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).Complete(r)
}

// Reconcile publishes the host's address.
func (r *DNS) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var gw Gateway
	if err := r.Get(ctx, req.NamespacedName, &gw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := "lb." + gw.Spec.Host
	if gw.Status.Address == want {
		return ctrl.Result{}, nil
	}
	patch := lock(&gw, r.Unlocked)
	gw.Status.Address = want
	return ctrl.Result{}, client.IgnoreNotFound(r.Status().Patch(ctx, &gw, patch))
}

// TLS writes each Gateway's status.certificate.
type TLS struct {
	client.Client
	// Buggy patches the whole status as its cache shows it.
	Buggy bool
	// Unlocked patches its key without the optimistic lock (DNS.Unlocked).
	Unlocked bool
}

// SetupWithManager registers the tls controller: Gateways' spec changes.
func (r *TLS) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("tls").
		For(&Gateway{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).Complete(r)
}

// Reconcile issues the host's certificate.
func (r *TLS) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var gw Gateway
	if err := r.Get(ctx, req.NamespacedName, &gw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := "cert-for-" + gw.Spec.Host
	if gw.Status.Certificate == want {
		return ctrl.Result{}, nil
	}
	patch := lock(&gw, r.Unlocked)
	gw.Status.Certificate = want
	if r.Buggy { // the bug: the whole status, the other manager's key as this cache shows it
		whole, err := json.Marshal(map[string]any{"status": gw.Status})
		if err != nil {
			return ctrl.Result{}, err
		}
		patch = client.RawPatch(types.MergePatchType, whole)
	}
	return ctrl.Result{}, client.IgnoreNotFound(r.Status().Patch(ctx, &gw, patch))
}
