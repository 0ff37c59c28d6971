package clusterip

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
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

// CRD is the BrokerService CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds BrokerService to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&BrokerService{}, &BrokerServiceList{}) }

// BrokerService is a broker's client Service, with the user's override of
// its cluster IP.
type BrokerService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BrokerServiceSpec   `json:"spec,omitempty"`
	Status            BrokerServiceStatus `json:"status,omitempty"`
}

// BrokerServiceSpec is the client port and the user's override.
type BrokerServiceSpec struct {
	Port int32 `json:"port"`
	// ClusterIP is passed to the Service as it is: the CRD's schema
	// accepts any short string, kube-apiserver an address of the service
	// range, and only at the Service's creation (the field is immutable).
	ClusterIP string `json:"clusterIP,omitempty"`
}

// BrokerServiceStatus records the generation whose Service was written.
type BrokerServiceStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// BrokerServiceList is a list of BrokerServices.
type BrokerServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BrokerService `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *BrokerService) DeepCopyInto(out *BrokerService) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the BrokerService.
func (in *BrokerService) DeepCopyObject() runtime.Object {
	out := new(BrokerService)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *BrokerServiceList) DeepCopyObject() runtime.Object {
	out := &BrokerServiceList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var s BrokerService
		in.Items[i].DeepCopyInto(&s)
		out.Items = append(out.Items, s)
	}
	return out
}

// Reconciler keeps each BrokerService's Service and status.
type Reconciler struct {
	client.Client
	// Buggy records the observed generation before it writes the Service,
	// and skips the Service of a generation it observed.
	Buggy bool
}

// SetupWithManager registers the controller: BrokerServices, and the
// Services they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&BrokerService{}).Owns(&corev1.Service{}).Complete(r)
}

// Reconcile writes the Service the BrokerService asks for, its override
// included, on creation and on every update (the apiserver refuses an
// address it cannot parse, and a change of the immutable field, and the
// operator retries until the user fixes it), then records the generation
// it wrote.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b BrokerService
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if b.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	observe := func() error {
		if b.Status.ObservedGeneration == b.Generation {
			return nil
		}
		b.Status.ObservedGeneration = b.Generation
		return r.Status().Update(ctx, &b)
	}
	if r.Buggy { // the bug: the record says written before the write, and the next reconcile trusts it
		if b.Status.ObservedGeneration == b.Generation {
			return ctrl.Result{}, nil
		}
		if err := observe(); err != nil {
			return ctrl.Result{}, err
		}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: b.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		if ip := b.Spec.ClusterIP; ip != "" {
			svc.Spec.ClusterIP = ip
		} // else the address the apiserver allocated stays
		svc.Spec.Selector = map[string]string{"app.kubernetes.io/name": "broker", "app.kubernetes.io/instance": b.Name}
		svc.Spec.Ports = []corev1.ServicePort{{Name: "amqp", Port: b.Spec.Port, TargetPort: intstr.FromInt32(b.Spec.Port)}}
		return controllerutil.SetControllerReference(&b, svc, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing Service %q: %w", svc.Name, err)
	}
	return ctrl.Result{}, observe()
}
