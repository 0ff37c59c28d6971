package statefulset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
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

// CRD is the Cache CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Cache to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Cache{}, &CacheList{}) }

// Cache is a cache cluster run as a StatefulSet behind a headless Service.
type Cache struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CacheSpec   `json:"spec,omitempty"`
	Status            CacheStatus `json:"status,omitempty"`
}

// CacheSpec is the cluster's size and version.
type CacheSpec struct {
	Replicas int32  `json:"replicas"`
	Version  string `json:"version"`
}

// CacheStatus mirrors the StatefulSet's ready pods.
type CacheStatus struct {
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// CacheList is a list of Caches.
type CacheList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cache `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Cache) DeepCopyInto(out *Cache) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Cache.
func (in *Cache) DeepCopyObject() runtime.Object {
	out := new(Cache)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *CacheList) DeepCopyObject() runtime.Object {
	out := &CacheList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var c Cache
		in.Items[i].DeepCopyInto(&c)
		out.Items = append(out.Items, c)
	}
	return out
}

// shutdownGrace is the grace period of a Cache's pods, in seconds: a cache
// saves its data when it stops, which may take minutes for a large one.
const shutdownGrace = 120

// Reconciler keeps each Cache's headless Service, StatefulSet and status.
type Reconciler struct {
	client.Client
	// Buggy does not watch the StatefulSets it owns.
	Buggy bool
	// Parallel makes the StatefulSet's pods start and go all at once
	// (podManagementPolicy Parallel) rather than one by one in ordinal
	// order.
	Parallel bool
}

// SetupWithManager registers the controller: Caches, and the Services and
// StatefulSets they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).For(&Cache{}).Owns(&corev1.Service{})
	if !r.Buggy {
		b = b.Owns(&appsv1.StatefulSet{})
	} // the bug: the StatefulSet's changes (its pods becoming ready) never reach the queue
	return b.Complete(r)
}

// Reconcile makes the headless Service and the StatefulSet what the Cache
// asks for, then mirrors the StatefulSet's ready pods in the status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var c Cache
	if err := r.Get(ctx, req.NamespacedName, &c); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if c.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	labels := map[string]string{"app.kubernetes.io/name": "cache", "app.kubernetes.io/instance": c.Name}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
		svc.Spec.Selector = labels
		// The port as the apiserver stores it (targetPort defaulted to
		// port), so that a reconcile with nothing to change writes nothing.
		svc.Spec.Ports = []corev1.ServicePort{{Name: "cache", Protocol: corev1.ProtocolTCP, Port: 6379, TargetPort: intstr.FromInt32(6379)}}
		return controllerutil.SetControllerReference(&c, svc, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		replicas := c.Spec.Replicas
		sts.Spec.Replicas = &replicas
		sts.Spec.ServiceName = svc.Name
		if r.Parallel {
			sts.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		}
		if sts.Spec.Selector == nil { // immutable once set
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		sts.Spec.Template.Labels = labels
		// The container is set only where it differs from what the Cache
		// asks for: the apiserver defaults its other fields (pull policy,
		// termination message), and setting it whole would write the
		// StatefulSet at every reconcile, changing nothing.
		image := "valkey/valkey:" + c.Spec.Version
		if g := sts.Spec.Template.Spec.TerminationGracePeriodSeconds; g == nil || *g != shutdownGrace {
			grace := int64(shutdownGrace)
			sts.Spec.Template.Spec.TerminationGracePeriodSeconds = &grace
		}
		if cs := sts.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Name != "cache" || cs[0].Image != image {
			sts.Spec.Template.Spec.Containers = []corev1.Container{{
				Name:  "cache",
				Image: image,
				Ports: []corev1.ContainerPort{{Name: "cache", ContainerPort: 6379, Protocol: corev1.ProtocolTCP}},
			}}
		}
		return controllerutil.SetControllerReference(&c, sts, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	if c.Status.ReadyReplicas == sts.Status.ReadyReplicas {
		return ctrl.Result{}, nil
	}
	c.Status.ReadyReplicas = sts.Status.ReadyReplicas
	return ctrl.Result{}, r.Status().Update(ctx, &c)
}
