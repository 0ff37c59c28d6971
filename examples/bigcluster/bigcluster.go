package bigcluster

import (
	"context"
	"fmt"

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

// CRD is the Cluster CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Cluster.
	GroupVersion  = schema.GroupVersion{Group: "bigcluster.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Cluster to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Cluster{}, &ClusterList{}) }

// Finalizer holds a Cluster until its data is deleted. ClusterLabel names
// the Cluster an object belongs to, UIDLabel the uid of the Cluster that
// made a claim, MemberLabel the member.
const (
	Finalizer    = "bigcluster.ctrlsim.dev/delete-data"
	ClusterLabel = "bigcluster.ctrlsim.dev/cluster"
	UIDLabel     = "bigcluster.ctrlsim.dev/cluster-uid"
	MemberLabel  = "bigcluster.ctrlsim.dev/member"
)

// Cluster is a database cluster of Members members, each with its data in
// a claim data-<name>-<i>.
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ClusterSpec   `json:"spec,omitempty"`
	Status            ClusterStatus `json:"status,omitempty"`
}

// ClusterSpec is the number of members and the size of each one's volume.
type ClusterSpec struct {
	Members int    `json:"members"`
	Storage string `json:"storage"`
}

// ClusterStatus is how far the operator has got.
type ClusterStatus struct {
	Phase              string `json:"phase,omitempty"`
	ReadyMembers       int    `json:"readyMembers,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
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

// Reconciler keeps each Cluster's members and deletes their data with the
// Cluster.
type Reconciler struct {
	client.Client
	// APIReader reads live (the manager's GetAPIReader).
	APIReader client.Reader
	// Buggy deletes every claim labelled with the deleted Cluster's name,
	// the new Cluster's of that name included.
	Buggy bool
}

// SetupWithManager registers the controller: Clusters, the ConfigMaps and
// Services they own, and their claims mapped to them by label.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toCluster := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if c := o.GetLabels()[ClusterLabel]; c != "" {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: c}}}
		}
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).For(&Cluster{}).
		Owns(&corev1.ConfigMap{}).Owns(&corev1.Service{}).
		Watches(&corev1.PersistentVolumeClaim{}, toCluster).Complete(r)
}

// Reconcile adds the finalizer and makes the Cluster's members one by
// one, writing the status after each; for a Cluster being deleted it
// deletes the Cluster's claims (found by label), then removes the
// finalizer (the garbage collector deletes the owned objects).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var c Cluster
	if err := r.Get(ctx, req.NamespacedName, &c); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !c.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, &c)
	}
	if !controllerutil.ContainsFinalizer(&c, Finalizer) {
		controllerutil.AddFinalizer(&c, Finalizer)
		if err := r.Update(ctx, &c); err != nil {
			return ctrl.Result{}, err
		}
	}
	if _, err := r.ensureService(ctx, &c, c.Name, -1); err != nil {
		return ctrl.Result{}, err
	}
	for i := range c.Spec.Members {
		made, err := r.ensureMember(ctx, &c, i)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !made {
			continue
		}
		if err := r.writeStatus(ctx, &c, "Creating", i+1); err != nil { // progress, as a member is made
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, r.writeStatus(ctx, &c, "Running", c.Spec.Members)
}

// finalize deletes the Cluster's claims, listed live by label, then
// removes the finalizer.
func (r *Reconciler) finalize(ctx context.Context, c *Cluster) error {
	if !controllerutil.ContainsFinalizer(c, Finalizer) {
		return nil
	}
	var claims corev1.PersistentVolumeClaimList
	if err := r.APIReader.List(ctx, &claims, client.InNamespace(c.Namespace), client.MatchingLabels{ClusterLabel: c.Name}); err != nil {
		return err
	}
	for i := range claims.Items {
		pvc := &claims.Items[i]
		if !r.Buggy && pvc.Labels[UIDLabel] != string(c.UID) {
			continue // another Cluster of this name: not this one's data
		}
		if err := r.Delete(ctx, pvc, client.Preconditions{UID: &pvc.UID}); client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
			return err
		}
	}
	controllerutil.RemoveFinalizer(c, Finalizer)
	return client.IgnoreNotFound(r.Update(ctx, c))
}

// writeStatus writes the phase and ready members when they changed.
func (r *Reconciler) writeStatus(ctx context.Context, c *Cluster, phase string, ready int) error {
	want := ClusterStatus{Phase: phase, ReadyMembers: ready, ObservedGeneration: c.Generation}
	if c.Status == want {
		return nil
	}
	c.Status = want
	return r.Status().Update(ctx, c)
}

// ensureMember makes member i's claim, ConfigMap and Service, and
// reports whether it made any of them.
func (r *Reconciler) ensureMember(ctx context.Context, c *Cluster, i int) (bool, error) {
	claim, err := r.ensureClaim(ctx, c, i)
	if err != nil {
		return false, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: r.meta(c, fmt.Sprintf("%s-%d-config", c.Name, i), i),
		Data: map[string]string{"member.conf": fmt.Sprintf("id=%d\nmembers=%d\n", i, c.Spec.Members)}}
	config, err := r.ensureOwned(ctx, c, cm)
	if err != nil {
		return false, err
	}
	svc, err := r.ensureService(ctx, c, fmt.Sprintf("%s-%d", c.Name, i), i)
	return claim || config || svc, err
}

// ensureOwned creates o, owned by c, unless the cache has it, and reports
// whether it did.
func (r *Reconciler) ensureOwned(ctx context.Context, c *Cluster, o client.Object) (bool, error) {
	err := r.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object))
	if !apierrors.IsNotFound(err) {
		return false, err
	}
	if err := controllerutil.SetControllerReference(c, o, r.Scheme()); err != nil {
		return false, err
	}
	if err := r.Create(ctx, o); err != nil {
		return false, client.IgnoreAlreadyExists(err)
	}
	return true, nil
}

// ensureService makes a Service owned by c, the headless one of the whole
// cluster (member -1) or member's, and reports whether it did.
func (r *Reconciler) ensureService(ctx context.Context, c *Cluster, name string, member int) (bool, error) {
	svc := &corev1.Service{ObjectMeta: r.meta(c, name, member),
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "db", Port: 5432}},
			Selector: map[string]string{ClusterLabel: c.Name}}}
	if member < 0 {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	} else {
		svc.Spec.Selector[MemberLabel] = fmt.Sprint(member)
	}
	return r.ensureOwned(ctx, c, svc)
}

// ensureClaim makes member i's claim if it has none, for the Cluster that
// is there live (a claim carries its Cluster's uid: a cached Cluster since
// re-created would put a gone uid on the new Cluster's data), and reports
// whether it did.
func (r *Reconciler) ensureClaim(ctx context.Context, c *Cluster, i int) (bool, error) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: r.meta(c, fmt.Sprintf("data-%s-%d", c.Name, i), i)}
	if err := r.Get(ctx, client.ObjectKeyFromObject(pvc), pvc); !apierrors.IsNotFound(err) {
		return false, err
	}
	var live Cluster
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(c), &live); err != nil || live.UID != c.UID {
		return false, client.IgnoreNotFound(err)
	}
	pvc.Labels[UIDLabel] = string(c.UID)
	pvc.Spec = corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(c.Spec.Storage)}},
	}
	if err := r.Create(ctx, pvc); err != nil {
		return false, client.IgnoreAlreadyExists(err)
	}
	return true, nil
}

// meta is the metadata of one of c's objects: its name, c's namespace,
// and the labels that map it back to c (and to its member, if any).
func (r *Reconciler) meta(c *Cluster, name string, member int) metav1.ObjectMeta {
	labels := map[string]string{ClusterLabel: c.Name}
	if member >= 0 {
		labels[MemberLabel] = fmt.Sprint(member)
	}
	return metav1.ObjectMeta{Namespace: c.Namespace, Name: name, Labels: labels}
}
