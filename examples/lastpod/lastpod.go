package lastpod

import (
	"context"
	"fmt"
	"strconv"

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

// CRD is the Pool CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Pool.
	GroupVersion  = schema.GroupVersion{Group: "lastpod.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Pool to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Pool{}, &PoolList{}) }

// PoolLabel names the Pool a pod belongs to; OrdinalLabel is the pod's
// ordinal.
const (
	PoolLabel    = "lastpod.ctrlsim.dev/pool"
	OrdinalLabel = "lastpod.ctrlsim.dev/ordinal"
)

// Pool runs Spec.Replicas pods, <name>-0 to <name>-<replicas-1>.
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PoolSpec `json:"spec,omitempty"`
}

// PoolSpec is how many pods the Pool runs.
type PoolSpec struct {
	Replicas int `json:"replicas"`
}

// PoolList is a list of Pools.
type PoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Pool `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Pool) DeepCopyInto(out *Pool) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Pool.
func (in *Pool) DeepCopyObject() runtime.Object {
	out := new(Pool)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *PoolList) DeepCopyObject() runtime.Object {
	out := &PoolList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var p Pool
		in.Items[i].DeepCopyInto(&p)
		out.Items = append(out.Items, p)
	}
	return out
}

// Reconciler keeps each Pool's pods.
type Reconciler struct {
	client.Client
	// APIReader reads the live Pool before a pod is made (the manager's
	// GetAPIReader): a cache from before a scale-down would make a pod
	// already gone, to delete it once it catches up.
	APIReader client.Reader
	// Buggy scales down by deleting the last pod of the cache's list, not
	// the pod of the highest ordinal.
	Buggy bool
}

// SetupWithManager registers the controller: Pools, and the pods they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Pool{}).Owns(&corev1.Pod{}).Complete(r)
}

// Reconcile makes the Pool's missing pods, or deletes one pod too many.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var p Pool
	if err := r.Get(ctx, req.NamespacedName, &p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(p.Namespace), client.MatchingLabels{PoolLabel: p.Name}); err != nil {
		return ctrl.Result{}, err
	}
	var live []corev1.Pod // not being deleted
	have := map[string]bool{}
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp.IsZero() {
			live = append(live, pod)
			have[pod.Name] = true
		}
	}
	switch {
	case len(live) < p.Spec.Replicas:
		var now Pool // the live Pool: make only the pods it still wants
		if err := r.APIReader.Get(ctx, req.NamespacedName, &now); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		if now.UID != p.UID || !now.DeletionTimestamp.IsZero() {
			return ctrl.Result{}, nil // the view is behind: its events will come
		}
		for i := range min(p.Spec.Replicas, now.Spec.Replicas) {
			if name := fmt.Sprintf("%s-%d", p.Name, i); !have[name] {
				if err := r.create(ctx, &p, name, i); err != nil {
					return ctrl.Result{}, err
				}
			}
		}
	case len(live) > p.Spec.Replicas:
		victim := highestOrdinal(live)
		if r.Buggy {
			victim = &live[len(live)-1] // "the last pod"
		}
		err := r.Delete(ctx, victim, client.Preconditions{UID: &victim.UID})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// highestOrdinal is the pod of the highest ordinal.
func highestOrdinal(pods []corev1.Pod) *corev1.Pod {
	best, bestN := &pods[0], -1
	for i := range pods {
		if n, err := strconv.Atoi(pods[i].Labels[OrdinalLabel]); err == nil && n > bestN {
			best, bestN = &pods[i], n
		}
	}
	return best
}

func (r *Reconciler) create(ctx context.Context, p *Pool, name string, ordinal int) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: name,
			Labels: map[string]string{PoolLabel: p.Name, OrdinalLabel: strconv.Itoa(ordinal)}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
	}
	if err := controllerutil.SetControllerReference(p, pod, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
