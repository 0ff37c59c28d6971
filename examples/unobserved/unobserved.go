package unobserved

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Probe CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Probe.
	GroupVersion  = schema.GroupVersion{Group: "unobserved.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Probe to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Probe{}, &ProbeList{}) }

// Probe runs Spec.Image once, as the Pod <name>-probe, and records how it
// ended.
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ProbeSpec   `json:"spec,omitempty"`
	Status            ProbeStatus `json:"status,omitempty"`
}

// ProbeSpec is what to run.
type ProbeSpec struct {
	Image string `json:"image"`
}

// ProbeStatus is the Pod's final phase, once it has one.
type ProbeStatus struct {
	Result string `json:"result,omitempty"`
}

// ProbeList is a list of Probes.
type ProbeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Probe `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Probe) DeepCopyInto(out *Probe) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Probe.
func (in *Probe) DeepCopyObject() runtime.Object {
	out := new(Probe)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *ProbeList) DeepCopyObject() runtime.Object {
	out := &ProbeList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var p Probe
		in.Items[i].DeepCopyInto(&p)
		out.Items = append(out.Items, p)
	}
	return out
}

// Reconciler runs each Probe's Pod and records its result.
type Reconciler struct {
	client.Client
	// Buggy reconciles a Probe on its Pod's phase changes only, as update
	// events: a Pod first seen already finished (its creation and its
	// first updates never observed) is never recorded.
	Buggy bool
}

// phaseChanged passes a Pod's updates that change its phase, and its
// deletion; its creation is the operator's own doing, nothing to act on
// (so the buggy operator thinks).
var phaseChanged = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.(*corev1.Pod).Status.Phase != e.ObjectNew.(*corev1.Pod).Status.Phase
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// SetupWithManager registers the controller: Probes, and their Pods.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).For(&Probe{})
	if r.Buggy {
		b = b.Owns(&corev1.Pod{}, builder.WithPredicates(phaseChanged))
	} else {
		b = b.Owns(&corev1.Pod{}) // every event: the state seen, however it was reached
	}
	return b.Complete(r)
}

// Reconcile starts the Probe's Pod, and records its phase once it has
// finished.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var p Probe
	if err := r.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if p.Status.Result != "" {
		return ctrl.Result{}, nil
	}
	var pod corev1.Pod
	err := r.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: p.Name + "-probe"}, &pod)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, r.start(ctx, &p)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if !metav1.IsControlledBy(&pod, &p) || (pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed) {
		return ctrl.Result{}, nil
	}
	p.Status.Result = string(pod.Status.Phase)
	return ctrl.Result{}, r.Status().Update(ctx, &p)
}

// start creates the Probe's Pod (AlreadyExists: it has it).
func (r *Reconciler) start(ctx context.Context, p *Probe) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name + "-probe"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "probe", Image: p.Spec.Image, Command: []string{"sh", "-c", "exit 0"}}},
		},
	}
	if err := controllerutil.SetControllerReference(p, pod, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
