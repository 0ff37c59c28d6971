package membervolume

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
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

// CRD is the DBCluster CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds DBCluster to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&DBCluster{}, &DBClusterList{}) }

// DBCluster is a database cluster run as a StatefulSet, a volume per member.
type DBCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              DBClusterSpec   `json:"spec,omitempty"`
	Status            DBClusterStatus `json:"status,omitempty"`
}

// DBClusterSpec is the cluster's size and version.
type DBClusterSpec struct {
	Members int32  `json:"members"`
	Version string `json:"version"`
}

// DBClusterStatus mirrors the StatefulSet's ready members.
type DBClusterStatus struct {
	Members int32 `json:"members,omitempty"`
}

// DBClusterList is a list of DBClusters.
type DBClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DBCluster `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *DBCluster) DeepCopyInto(out *DBCluster) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the DBCluster.
func (in *DBCluster) DeepCopyObject() runtime.Object {
	out := new(DBCluster)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *DBClusterList) DeepCopyObject() runtime.Object {
	out := &DBClusterList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var c DBCluster
		in.Items[i].DeepCopyInto(&c)
		out.Items = append(out.Items, c)
	}
	return out
}

// terminationGracePeriod is how long a member's server has to shut down
// (checkpoint and leave) before it is killed.
const terminationGracePeriod = int64(10)

// The labels of a cluster's pods and volumes.
const (
	nameLabel     = "app.kubernetes.io/name"
	instanceLabel = "app.kubernetes.io/instance"
)

// Reconciler keeps each DBCluster's headless Service, StatefulSet, removed
// members' volumes and status.
type Reconciler struct {
	client.Client
	// APIReader reads the DBCluster live before a volume is deleted.
	APIReader client.Reader
	// Buggy deletes a removed member's volume only when it sees the member's
	// pod Terminating, not once the pod is gone.
	Buggy bool
}

// SetupWithManager registers the controller: DBClusters, the Services and
// StatefulSets they own, and their members' pods and volumes (a volume its
// cache learns of late is one to look at again).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	member := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if o.GetLabels()[nameLabel] != "db" || o.GetLabels()[instanceLabel] == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetLabels()[instanceLabel]}}}
	})
	return ctrl.NewControllerManagedBy(mgr).For(&DBCluster{}).
		Owns(&corev1.Service{}).Owns(&appsv1.StatefulSet{}).
		Watches(&corev1.Pod{}, member).
		Watches(&corev1.PersistentVolumeClaim{}, member).
		Complete(r)
}

// Reconcile makes the headless Service and the StatefulSet what the
// DBCluster asks for, deletes the volumes of removed members, and mirrors
// the ready members in status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var c DBCluster
	if err := r.Get(ctx, req.NamespacedName, &c); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if c.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	labels := map[string]string{nameLabel: "db", instanceLabel: c.Name}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
		svc.Spec.Selector = labels
		svc.Spec.Ports = []corev1.ServicePort{{Name: "db", Protocol: corev1.ProtocolTCP, Port: 5432}}
		return controllerutil.SetControllerReference(&c, svc, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		members := c.Spec.Members
		if sts.CreationTimestamp.IsZero() || sts.Spec.Replicas != nil && *sts.Spec.Replicas != members {
			// A change of the member count is made from a live read: a
			// view of the DBCluster from before the user's last scale (a
			// restart onto a lagging cache) would undo it for a while,
			// bringing a removed member back on a fresh volume and
			// removing it again. So is the set's create: a lagging cache
			// still showing a DBCluster the user has deleted would make a
			// set the collector deletes, but not before the StatefulSet
			// controller made its first member's claim, which the set's
			// claim retention keeps for good.
			live := &DBCluster{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(&c), live); err != nil {
				return err
			}
			if live.DeletionTimestamp != nil {
				return errGone
			}
			members = live.Spec.Members
		}
		sts.Spec.Replicas = &members
		sts.Spec.ServiceName = svc.Name
		// A deleted cluster's claims go with its set (owned by it, the
		// collector takes them after it); a removed member's are the
		// operator's to delete, once the member has left (below).
		sts.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		}
		if sts.CreationTimestamp.IsZero() { // selector and claim templates are immutable
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
			sts.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: labels},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}}
		}
		sts.Spec.Template.Labels = labels
		sts.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To(terminationGracePeriod)
		sts.Spec.Template.Spec.Containers = []corev1.Container{{
			Name:         "db",
			Image:        "postgres:" + c.Spec.Version,
			Ports:        []corev1.ContainerPort{{Name: "db", ContainerPort: 5432, Protocol: corev1.ProtocolTCP}},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}},
		}}
		return controllerutil.SetControllerReference(&c, sts, r.Scheme())
	}); errors.Is(err, errGone) || apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil // deleted since the cache's view: the collector takes the rest
	} else if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteRemovedVolumes(ctx, &c, labels); err != nil {
		return ctrl.Result{}, err
	}
	if c.Status.Members == sts.Status.ReadyReplicas {
		return ctrl.Result{}, nil
	}
	c.Status.Members = sts.Status.ReadyReplicas
	return ctrl.Result{}, r.Status().Update(ctx, &c)
}

// deleteRemovedVolumes deletes the claim of each member at or above
// spec.members whose pod is Terminating or gone, once a live read of the
// DBCluster confirms that the member is removed.
func (r *Reconciler) deleteRemovedVolumes(ctx context.Context, c *DBCluster, labels map[string]string) error {
	var claims corev1.PersistentVolumeClaimList
	if err := r.List(ctx, &claims, client.InNamespace(c.Namespace), client.MatchingLabels(labels)); err != nil {
		return err
	}
	var live *DBCluster
	for i := range claims.Items {
		claim := &claims.Items[i]
		ord, ok := ordinal(claim.Name, "data-"+c.Name+"-")
		if !ok || ord < int(c.Spec.Members) || claim.DeletionTimestamp != nil {
			continue
		}
		pod := &corev1.Pod{}
		err := r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: fmt.Sprintf("%s-%d", c.Name, ord)}, pod)
		switch {
		case apierrors.IsNotFound(err):
			if r.Buggy {
				continue // the bug: only a Terminating pod says the member is leaving
			}
		case err != nil:
			return err
		case pod.DeletionTimestamp == nil:
			continue // still running: the StatefulSet has not scaled down yet
		}
		if live == nil {
			live = &DBCluster{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(c), live); err != nil {
				return client.IgnoreNotFound(err)
			}
		}
		if ord < int(live.Spec.Members) || live.DeletionTimestamp != nil {
			continue // scaled back up since the cache's view: the member stays
		}
		uid := claim.UID
		if err := r.Delete(ctx, claim, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// errGone stops a reconcile whose DBCluster a live read shows deleted.
var errGone = errors.New("the DBCluster is being deleted")

// ordinal reads the member ordinal after prefix in name.
func ordinal(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}
