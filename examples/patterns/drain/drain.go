package drain

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the BrokerCluster CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds BrokerCluster to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&BrokerCluster{}, &BrokerClusterList{}) }

// BrokerCluster is a message-broker cluster, a pod per member.
type BrokerCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BrokerClusterSpec   `json:"spec,omitempty"`
	Status            BrokerClusterStatus `json:"status,omitempty"`
}

// BrokerClusterSpec is the cluster's size and version.
type BrokerClusterSpec struct {
	Replicas int32  `json:"replicas"`
	Version  string `json:"version"`
}

// BrokerClusterStatus counts the ready members of the spec's version.
type BrokerClusterStatus struct {
	Ready int32 `json:"ready,omitempty"`
}

// BrokerClusterList is a list of Brokers.
type BrokerClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BrokerCluster `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *BrokerCluster) DeepCopyInto(out *BrokerCluster) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the BrokerCluster.
func (in *BrokerCluster) DeepCopyObject() runtime.Object {
	out := new(BrokerCluster)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *BrokerClusterList) DeepCopyObject() runtime.Object {
	out := &BrokerClusterList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var c BrokerCluster
		in.Items[i].DeepCopyInto(&c)
		out.Items = append(out.Items, c)
	}
	return out
}

const (
	// GracePeriod is a member's grace period: a week, so that no timeout
	// kills a member mid-drain.
	GracePeriod = int64(7 * 24 * 3600)
	// AnnotationDrain, "ok", is the operator's mark: the member may drain
	// and stop (its preStop hook waits for it).
	AnnotationDrain = "patterns.ctrlsim.dev/drain"
	// Finalizer holds a deleted BrokerCluster until every member is marked.
	Finalizer = "patterns.ctrlsim.dev/drain"
	// instanceLabel names a member's BrokerCluster.
	instanceLabel = "app.kubernetes.io/instance"
)

// Reconciler keeps each BrokerCluster's members and status.
type Reconciler struct {
	client.Client
	// APIReader reads the BrokerCluster live before a member is created.
	APIReader client.Reader
	// Buggy creates a missing member from the cache's view of the BrokerCluster.
	Buggy bool
}

// SetupWithManager registers the controller: Brokers and the pods they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	member := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if o.GetLabels()[instanceLabel] == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetLabels()[instanceLabel]}}}
	})
	return ctrl.NewControllerManagedBy(mgr).For(&BrokerCluster{}).Watches(&corev1.Pod{}, member).Complete(r)
}

// Reconcile marks and deletes the members to remove or replace, creates
// the missing ones and counts the ready ones in status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b BrokerCluster
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(b.Namespace), client.MatchingLabels{instanceLabel: b.Name}); err != nil {
		return ctrl.Result{}, err
	}
	if b.DeletionTimestamp != nil {
		return ctrl.Result{}, r.release(ctx, &b, pods.Items)
	}
	if !controllerutil.ContainsFinalizer(&b, Finalizer) {
		controllerutil.AddFinalizer(&b, Finalizer)
		return ctrl.Result{}, r.Update(ctx, &b)
	}
	have := map[int]*corev1.Pod{}
	replacing := false
	for i := range pods.Items {
		p := &pods.Items[i]
		ord, ok := ordinal(p.Name, b.Name+"-")
		if !ok {
			continue
		}
		have[ord] = p
		if p.DeletionTimestamp != nil && ord < int(b.Spec.Replicas) {
			replacing = true // one member at a time
		}
	}
	ords := make([]int, 0, len(have))
	for ord := range have {
		ords = append(ords, ord)
	}
	slices.Sort(ords)
	for _, ord := range ords {
		p := have[ord]
		switch {
		case p.DeletionTimestamp != nil:
		case ord >= int(b.Spec.Replicas):
			if err := r.markAndDelete(ctx, p); err != nil {
				return ctrl.Result{}, err
			}
		case version(p) != b.Spec.Version && !replacing:
			replacing = true
			if err := r.markAndDelete(ctx, p); err != nil {
				return ctrl.Result{}, err
			}
		case p.Annotations[AnnotationDrain] == "ok":
			// A mark of a scale-down cut before its delete (a crash
			// between the two) on a member wanted again: withdrawn, or
			// its hook would skip the drain when it next stops.
			p = p.DeepCopy()
			delete(p.Annotations, AnnotationDrain)
			if err := r.Update(ctx, p); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
	}
	for ord := 0; ord < int(b.Spec.Replicas); ord++ {
		if have[ord] != nil {
			continue
		}
		if err := r.create(ctx, &b, ord); err != nil {
			return ctrl.Result{}, err
		}
	}
	var ready int32
	for ord, p := range have {
		if ord < int(b.Spec.Replicas) && p.DeletionTimestamp == nil && version(p) == b.Spec.Version && podReady(p) {
			ready++
		}
	}
	if b.Status.Ready == ready {
		return ctrl.Result{}, nil
	}
	b.Status.Ready = ready
	return ctrl.Result{}, r.Status().Update(ctx, &b)
}

// create makes member ord of b, once a live read of b says it is one (the
// twin trusts its cache).
func (r *Reconciler) create(ctx context.Context, b *BrokerCluster, ord int) error {
	version := b.Spec.Version
	if !r.Buggy {
		live := &BrokerCluster{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(b), live); err != nil {
			return client.IgnoreNotFound(err)
		}
		if live.DeletionTimestamp != nil || ord >= int(live.Spec.Replicas) {
			return nil // deleted or scaled down since the cache's view
		}
		version = live.Spec.Version
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: fmt.Sprintf("%s-%d", b.Name, ord), Labels: map[string]string{instanceLabel: b.Name}},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To(GracePeriod),
			Containers: []corev1.Container{{
				Name:  "broker",
				Image: "rabbitmq:" + version,
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{
					"/bin/sh", "-c", "until grep -q ok /etc/podinfo/drain; do sleep 5; done; rabbitmq-upgrade drain",
				}}}},
				VolumeMounts: []corev1.VolumeMount{{Name: "podinfo", MountPath: "/etc/podinfo"}},
			}},
			Volumes: []corev1.Volume{{Name: "podinfo", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{{Path: "drain", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + AnnotationDrain + "']"}}},
			}}}},
		},
	}
	if err := controllerutil.SetControllerReference(b, p, r.Scheme()); err != nil {
		return err
	}
	return r.Create(ctx, p)
}

// markAndDelete marks p (an update with the cached resourceVersion: a
// conflict if p's name now holds another pod) and deletes it.
func (r *Reconciler) markAndDelete(ctx context.Context, p *corev1.Pod) error {
	if p.Annotations[AnnotationDrain] != "ok" {
		p = p.DeepCopy()
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[AnnotationDrain] = "ok"
		if err := r.Update(ctx, p); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
	uid := p.UID
	return client.IgnoreNotFound(r.Delete(ctx, p, client.Preconditions{UID: &uid}))
}

// release marks every member of a deleted BrokerCluster, then removes the
// finalizer: the garbage collector deletes the marked members.
func (r *Reconciler) release(ctx context.Context, b *BrokerCluster, pods []corev1.Pod) error {
	if !controllerutil.ContainsFinalizer(b, Finalizer) {
		return nil
	}
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil || p.Annotations[AnnotationDrain] == "ok" {
			continue
		}
		p.Annotations = mapWith(p.Annotations, AnnotationDrain, "ok")
		if err := r.Update(ctx, p); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	controllerutil.RemoveFinalizer(b, Finalizer)
	return client.IgnoreNotFound(r.Update(ctx, b))
}

func mapWith(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// version is the version a member runs: its image's tag.
func version(p *corev1.Pod) string {
	if len(p.Spec.Containers) == 0 {
		return ""
	}
	_, tag, _ := strings.Cut(p.Spec.Containers[0].Image, ":")
	return tag
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ordinal reads the member ordinal after prefix in name.
func ordinal(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}
