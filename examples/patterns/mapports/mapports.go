package mapports

import (
	"context"
	"fmt"

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

// CRD is the Frontend CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Frontend to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Frontend{}, &FrontendList{}) }

// Frontend is served by a Service with Spec.Ports.
type Frontend struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FrontendSpec `json:"spec,omitempty"`
}

// FrontendSpec has the port numbers by name.
type FrontendSpec struct {
	Ports map[string]int32 `json:"ports"`
}

// FrontendList is a list of Frontends.
type FrontendList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Frontend `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Frontend) DeepCopyInto(out *Frontend) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Ports != nil {
		out.Spec.Ports = make(map[string]int32, len(in.Spec.Ports))
		for k, v := range in.Spec.Ports {
			out.Spec.Ports[k] = v
		}
	}
}

// DeepCopyObject copies the Frontend.
func (in *Frontend) DeepCopyObject() runtime.Object {
	out := new(Frontend)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *FrontendList) DeepCopyObject() runtime.Object {
	out := &FrontendList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var f Frontend
		in.Items[i].DeepCopyInto(&f)
		out.Items = append(out.Items, f)
	}
	return out
}

// Reconciler keeps each Frontend's Service.
type Reconciler struct {
	client.Client
	// Buggy names ports by their position in the map's order.
	Buggy bool
}

// SetupWithManager registers the controller: Frontends, owned Services.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Frontend{}).Owns(&corev1.Service{}).Complete(r)
}

// Reconcile creates the Service, or updates it when its ports, as a set,
// are not the Frontend's.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var fe Frontend
	if err := r.Get(ctx, req.NamespacedName, &fe); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var ports []corev1.ServicePort
	for name, port := range fe.Spec.Ports {
		if r.Buggy {
			name = fmt.Sprintf("port-%d", len(ports)) // the bug: a name from the map's order
		}
		ports = append(ports, corev1.ServicePort{Name: name, Protocol: corev1.ProtocolTCP, Port: port, TargetPort: intstr.FromInt32(port)})
	}
	var svc corev1.Service
	err := r.Get(ctx, req.NamespacedName, &svc)
	if apierrors.IsNotFound(err) {
		svc = corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: fe.Namespace, Name: fe.Name},
			Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": fe.Name}, Ports: ports},
		}
		if err := controllerutil.SetControllerReference(&fe, &svc, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &svc); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if samePorts(svc.Spec.Ports, ports) {
		return ctrl.Result{}, nil
	}
	svc.Spec.Ports = ports
	return ctrl.Result{}, r.Update(ctx, &svc)
}

// samePorts compares two port lists as sets of (name, protocol, port,
// target port).
func samePorts(have, want []corev1.ServicePort) bool {
	type key struct {
		name     string
		protocol corev1.Protocol
		port     int32
		target   intstr.IntOrString
	}
	set := map[key]bool{}
	for _, p := range have {
		set[key{p.Name, p.Protocol, p.Port, p.TargetPort}] = true
	}
	if len(set) != len(want) {
		return false
	}
	for _, p := range want {
		if !set[key{p.Name, p.Protocol, p.Port, p.TargetPort}] {
			return false
		}
	}
	return true
}
