package recreate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Cluster CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Cluster.
	GroupVersion  = schema.GroupVersion{Group: "recreate.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Cluster to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Cluster{}, &ClusterList{}) }

// Finalizer holds a Cluster until its data is deleted. ClusterLabel names
// the Cluster a PersistentVolumeClaim belongs to, UIDLabel the uid of the
// Cluster that made it.
const (
	Finalizer    = "recreate.ctrlsim.dev/delete-data"
	ClusterLabel = "recreate.ctrlsim.dev/cluster"
	UIDLabel     = "recreate.ctrlsim.dev/cluster-uid"
)

// Cluster is a database cluster whose data lives in the
// PersistentVolumeClaim data-<name>: not owned by the Cluster (as a
// StatefulSet's volume claims are not), and deleted with it.
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ClusterSpec `json:"spec,omitempty"`
}

// ClusterSpec is the size of the cluster's volume.
type ClusterSpec struct {
	Storage string `json:"storage"`
}

// ClusterList is a list of Clusters.
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cluster `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Cluster) DeepCopyInto(out *Cluster) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Cluster.
func (in *Cluster) DeepCopyObject() runtime.Object {
	out := new(Cluster)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *ClusterList) DeepCopyObject() runtime.Object {
	out := &ClusterList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var c Cluster
		in.Items[i].DeepCopyInto(&c)
		out.Items = append(out.Items, c)
	}
	return out
}

// Reconciler keeps each Cluster's data volume and deletes it with the
// Cluster.
type Reconciler struct {
	client.Client
	// APIReader reads live (the manager's GetAPIReader).
	APIReader client.Reader
	// Buggy deletes every volume claim labelled with the deleted Cluster's
	// name, the new Cluster's of that name included.
	Buggy bool
}

// SetupWithManager registers the controller: Clusters, and their volume
// claims mapped to them by label.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toCluster := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if c := o.GetLabels()[ClusterLabel]; c != "" {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: c}}}
		}
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).For(&Cluster{}).Watches(&corev1.PersistentVolumeClaim{}, toCluster).Complete(r)
}

// Reconcile adds the finalizer and makes the Cluster's volume claim; for a
// Cluster being deleted it deletes the Cluster's claims (found by label),
// then removes the finalizer.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var c Cluster
	if err := r.Get(ctx, req.NamespacedName, &c); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !c.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(&c, Finalizer) {
			return ctrl.Result{}, nil
		}
		// Listed live: a claim made a moment ago may not be in the cache
		// yet (examples/orphanchild's bug).
		var claims corev1.PersistentVolumeClaimList
		if err := r.APIReader.List(ctx, &claims, client.InNamespace(c.Namespace), client.MatchingLabels{ClusterLabel: c.Name}); err != nil {
			return ctrl.Result{}, err
		}
		for i := range claims.Items {
			pvc := &claims.Items[i]
			if !r.Buggy && pvc.Labels[UIDLabel] != string(c.UID) {
				continue // a claim of another Cluster of this name: not this one's data
			}
			// The uid precondition: a claim of this name made since the
			// list (the cache may be behind) is another claim.
			if err := r.Delete(ctx, pvc, client.Preconditions{UID: &pvc.UID}); client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
				return ctrl.Result{}, err
			}
		}
		controllerutil.RemoveFinalizer(&c, Finalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, &c))
	}
	if !controllerutil.ContainsFinalizer(&c, Finalizer) {
		controllerutil.AddFinalizer(&c, Finalizer)
		if err := r.Update(ctx, &c); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.ensureData(ctx, &c)
}

// ensureData creates the Cluster's volume claim, data-<name>, if it has
// none. A claim of that name still being deleted (the previous Cluster's)
// is waited for: its deletion's event brings the Cluster back.
func (r *Reconciler) ensureData(ctx context.Context, c *Cluster) error {
	var pvc corev1.PersistentVolumeClaim
	err := r.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: "data-" + c.Name}, &pvc)
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	// The claim carries the Cluster's uid: confirm live that the cached
	// Cluster is the one there is (a cache behind a re-creation shows the
	// old one, whose uid would outlive it on the new Cluster's data).
	var live Cluster
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(c), &live); err != nil || live.UID != c.UID {
		return client.IgnoreNotFound(err)
	}
	pvc = corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: "data-" + c.Name,
			Labels: map[string]string{ClusterLabel: c.Name, UIDLabel: string(c.UID)}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(c.Spec.Storage)}},
		},
	}
	if err := r.Create(ctx, &pvc); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
