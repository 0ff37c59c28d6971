package guard

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Pipeline CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Pipeline to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Pipeline{}, &PipelineList{}) }

// Pipeline is a pipeline of workers run as a StatefulSet, with the user's
// free-form override of the StatefulSet's spec.
type Pipeline struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PipelineSpec   `json:"spec,omitempty"`
	Status            PipelineStatus `json:"status,omitempty"`
}

// PipelineSpec is the number of workers and the user's override.
type PipelineSpec struct {
	Replicas int32 `json:"replicas"`
	// Override is passed to the StatefulSet as it is: the CRD's schema
	// accepts any short strings, the StatefulSet's validation only some.
	Override Override `json:"override,omitempty"`
}

// Override is the user's override of the StatefulSet's spec.
type Override struct {
	PodManagementPolicy string `json:"podManagementPolicy,omitempty"`
	ServiceName         string `json:"serviceName,omitempty"`
}

// PipelineStatus records the generation whose StatefulSet was written, and
// why the last one's was not.
type PipelineStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Blocked            string `json:"blocked,omitempty"`
}

// PipelineList is a list of Pipelines.
type PipelineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Pipeline `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Pipeline) DeepCopyInto(out *Pipeline) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Pipeline.
func (in *Pipeline) DeepCopyObject() runtime.Object {
	out := new(Pipeline)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *PipelineList) DeepCopyObject() runtime.Object {
	out := &PipelineList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var p Pipeline
		in.Items[i].DeepCopyInto(&p)
		out.Items = append(out.Items, p)
	}
	return out
}

// Reconciler keeps each Pipeline's StatefulSet and status.
type Reconciler struct {
	client.Client
	// APIReader reads the Pipeline and the StatefulSet's state live.
	APIReader client.Reader
	// Buggy records the observed generation before it writes the
	// StatefulSet, and skips the StatefulSet of a generation it observed.
	Buggy bool
}

// SetupWithManager registers the controller: Pipelines, and the
// StatefulSets they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Pipeline{}).Owns(&appsv1.StatefulSet{}).Complete(r)
}

// Reconcile leaves a running pipeline that the user scales down as it is
// (the guard: status.blocked says why), and otherwise writes the
// StatefulSet the Pipeline asks for, its override included (the apiserver
// refuses a value it does not know, and the operator retries until the
// user fixes it); then it records the generation it handled.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// The Pipeline is read live, not from the cache: the guard makes the
	// StatefulSet's history count, so a view from before the user's last
	// edit (a restart onto a lagging cache) would make a StatefulSet of
	// replicas the user had already scaled away, and the guard would then
	// refuse, for good, the scale-down the user asked for before the set
	// was made.
	var p Pipeline
	if err := r.APIReader.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if p.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	observe := func(blocked string) error {
		if p.Status.ObservedGeneration == p.Generation && p.Status.Blocked == blocked {
			return nil
		}
		p.Status.ObservedGeneration, p.Status.Blocked = p.Generation, blocked
		return r.Status().Update(ctx, &p)
	}
	if r.Buggy { // the bug: the record says written before the write, and the next reconcile trusts it
		if p.Status.ObservedGeneration == p.Generation {
			return ctrl.Result{}, nil
		}
		if err := observe(""); err != nil {
			return ctrl.Result{}, err
		}
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}
	live := &appsv1.StatefulSet{}
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(sts), live)
	switch {
	case err == nil && live.Spec.Replicas != nil && p.Spec.Replicas < *live.Spec.Replicas && p.Spec.Replicas < live.Status.ReadyReplicas:
		// The guard: running workers are drained by hand before the
		// pipeline shrinks past them. Whether a worker runs is the
		// StatefulSet's state (read live: a cache behind it would let a
		// scale-down remove a running worker), not its history: a set
		// made a moment before the user's scale-down, whose workers have
		// not started, has nothing to drain.
		return ctrl.Result{}, observe(fmt.Sprintf("scale-down from %d to %d refused: %d workers running, drain the pipeline first", *live.Spec.Replicas, p.Spec.Replicas, live.Status.ReadyReplicas))
	case err != nil && !apierrors.IsNotFound(err):
		return ctrl.Result{}, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "pipeline", "app.kubernetes.io/instance": p.Name}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		replicas := p.Spec.Replicas
		sts.Spec.Replicas = &replicas
		if v := p.Spec.Override.PodManagementPolicy; v != "" {
			sts.Spec.PodManagementPolicy = appsv1.PodManagementPolicyType(v)
		}
		if v := p.Spec.Override.ServiceName; v != "" {
			sts.Spec.ServiceName = v
		}
		if sts.Spec.Selector == nil { // immutable once set
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		sts.Spec.Template.Labels = labels
		sts.Spec.Template.Spec.Containers = []corev1.Container{{Name: "worker", Image: "busybox:1.36"}}
		return controllerutil.SetControllerReference(&p, sts, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing StatefulSet %q: %w", sts.Name, err)
	}
	return ctrl.Result{}, observe("")
}
