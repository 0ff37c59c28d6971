package probe

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
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

// CRD is the Probe CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Probe to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Probe{}, &ProbeList{}) }

// Ready is the condition type saying the key is there.
const Ready = "Ready"

// Interval is how often a Probe is checked.
const Interval = 5 * time.Second

// Probe checks that a ConfigMap holds a key.
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ProbeSpec   `json:"spec,omitempty"`
	Status            ProbeStatus `json:"status,omitempty"`
}

// ProbeSpec names the ConfigMap and the key.
type ProbeSpec struct {
	ConfigMap string `json:"configMap"`
	Key       string `json:"key"`
}

// ProbeStatus says what the last check found, and for which generation.
type ProbeStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	LastProbeTime      *metav1.Time       `json:"lastProbeTime,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
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
	if in.Status.LastProbeTime != nil {
		t := *in.Status.LastProbeTime
		out.Status.LastProbeTime = &t
	}
	out.Status.Conditions = nil
	for _, c := range in.Status.Conditions {
		var cc metav1.Condition
		c.DeepCopyInto(&cc)
		out.Status.Conditions = append(out.Status.Conditions, cc)
	}
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

// Reconciler checks each Probe every Interval.
type Reconciler struct {
	client.Client
	// Buggy refreshes status.lastProbeTime at every check and writes the
	// status every time.
	Buggy bool
	// Flips reports Ready=False (Probing) before each check.
	Flips bool
}

// SetupWithManager registers the controller: Probes, woken by their spec
// changes (not by their status) and by their own RequeueAfter.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&Probe{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// Reconcile checks the Probe's key and reports what it found, then asks to
// be woken after Interval.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var probe Probe
	if err := r.Get(ctx, req.NamespacedName, &probe); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.Flips { // the bug: a transient state written before each check
		meta.SetStatusCondition(&probe.Status.Conditions, metav1.Condition{
			Type: Ready, Status: metav1.ConditionFalse, Reason: "Probing",
			Message: "checking the key", ObservedGeneration: probe.Generation,
		})
		if err := r.Status().Update(ctx, &probe); err != nil {
			return ctrl.Result{}, err
		}
	}
	cond := metav1.Condition{Type: Ready, Status: metav1.ConditionTrue, Reason: "KeyFound",
		Message: "the key is in the ConfigMap", ObservedGeneration: probe.Generation}
	var cm corev1.ConfigMap
	err := r.Get(ctx, types.NamespacedName{Namespace: probe.Namespace, Name: probe.Spec.ConfigMap}, &cm)
	switch {
	case apierrors.IsNotFound(err):
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "ConfigMapMissing", "the ConfigMap does not exist"
	case err != nil:
		return ctrl.Result{}, err
	default:
		if _, ok := cm.Data[probe.Spec.Key]; !ok {
			cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, "KeyMissing", "the ConfigMap has no such key"
		}
	}
	changed := meta.SetStatusCondition(&probe.Status.Conditions, cond)
	if r.Buggy { // the bug: a heartbeat in status
		now := metav1.Now()
		probe.Status.LastProbeTime, changed = &now, true
	}
	if changed || probe.Status.ObservedGeneration != probe.Generation {
		probe.Status.ObservedGeneration = probe.Generation
		if err := r.Status().Update(ctx, &probe); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{RequeueAfter: Interval}, nil
}
