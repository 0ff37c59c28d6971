package override

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Stream CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Stream to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Stream{}, &StreamList{}) }

// Stream is a stream-processing cluster run as a StatefulSet, with the
// user's override of the StatefulSet's pod management policy.
type Stream struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              StreamSpec   `json:"spec,omitempty"`
	Status            StreamStatus `json:"status,omitempty"`
}

// StreamSpec is the number of nodes and the user's override.
type StreamSpec struct {
	Replicas int32 `json:"replicas"`
	// PodManagementPolicy is passed to the StatefulSet as it is: the CRD's
	// schema accepts any short string, the StatefulSet's validation only
	// OrderedReady and Parallel, and only at its creation.
	PodManagementPolicy string `json:"podManagementPolicy,omitempty"`
}

// StreamStatus records the generation whose StatefulSet was written.
type StreamStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// StreamList is a list of Streams.
type StreamList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Stream `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Stream) DeepCopyInto(out *Stream) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Stream.
func (in *Stream) DeepCopyObject() runtime.Object {
	out := new(Stream)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *StreamList) DeepCopyObject() runtime.Object {
	out := &StreamList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var s Stream
		in.Items[i].DeepCopyInto(&s)
		out.Items = append(out.Items, s)
	}
	return out
}

// Reconciler keeps each Stream's StatefulSet and status.
type Reconciler struct {
	client.Client
	// Buggy records the observed generation before it writes the
	// StatefulSet, and skips the StatefulSet of a generation it observed.
	Buggy bool
}

// SetupWithManager registers the controller: Streams, and the StatefulSets
// they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Stream{}).Owns(&appsv1.StatefulSet{}).Complete(r)
}

// Reconcile writes the StatefulSet the Stream asks for, its override
// included, on creation and on every update (the apiserver refuses a value
// it does not know, and a change of the immutable field, and the operator
// retries until the user fixes it), then records the generation it wrote.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var s Stream
	if err := r.Get(ctx, req.NamespacedName, &s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if s.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	observe := func() error {
		if s.Status.ObservedGeneration == s.Generation {
			return nil
		}
		s.Status.ObservedGeneration = s.Generation
		return r.Status().Update(ctx, &s)
	}
	if r.Buggy { // the bug: the record says written before the write, and the next reconcile trusts it
		if s.Status.ObservedGeneration == s.Generation {
			return ctrl.Result{}, nil
		}
		if err := observe(); err != nil {
			return ctrl.Result{}, err
		}
	}
	labels := map[string]string{"app.kubernetes.io/name": "stream", "app.kubernetes.io/instance": s.Name}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		replicas := s.Spec.Replicas
		sts.Spec.Replicas = &replicas
		if p := s.Spec.PodManagementPolicy; p != "" {
			sts.Spec.PodManagementPolicy = appsv1.PodManagementPolicyType(p)
		}
		if sts.Spec.Selector == nil { // immutable once set
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		sts.Spec.Template.Labels = labels
		sts.Spec.Template.Spec.Containers = []corev1.Container{{Name: "stream", Image: "flink:2.1"}}
		return controllerutil.SetControllerReference(&s, sts, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, observe()
}
