package generatename

import (
	"context"
	"slices"
	"strings"

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

// CRD is the Snapshot CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Snapshot to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Snapshot{}, &SnapshotList{}) }

// SnapshotLabel names, on a child ConfigMap, the Snapshot it belongs to.
const SnapshotLabel = "patterns.ctrlsim.dev/snapshot"

// Snapshot keeps a copy of Spec.Source in a ConfigMap of generated name.
type Snapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              SnapshotSpec   `json:"spec,omitempty"`
	Status            SnapshotStatus `json:"status,omitempty"`
}

// SnapshotSpec is what to keep.
type SnapshotSpec struct {
	Source string `json:"source"`
}

// SnapshotStatus names the child.
type SnapshotStatus struct {
	ConfigMapName string `json:"configMapName,omitempty"`
}

// SnapshotList is a list of Snapshots.
type SnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Snapshot `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Snapshot) DeepCopyInto(out *Snapshot) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Snapshot.
func (in *Snapshot) DeepCopyObject() runtime.Object {
	out := new(Snapshot)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *SnapshotList) DeepCopyObject() runtime.Object {
	out := &SnapshotList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var s Snapshot
		in.Items[i].DeepCopyInto(&s)
		out.Items = append(out.Items, s)
	}
	return out
}

// Reconciler keeps each Snapshot's ConfigMap.
type Reconciler struct {
	client.Client
	// APIReader reads live from the apiserver (mgr.GetAPIReader()).
	APIReader client.Reader
	// Buggy lists the children from the cache.
	Buggy bool
}

// SetupWithManager registers the controller: Snapshots, owned ConfigMaps.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Snapshot{}).Owns(&corev1.ConfigMap{}).Complete(r)
}

// Reconcile finds the Snapshot's ConfigMap (creating it if there is none),
// keeps its data, and records its name.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var snap Snapshot
	if err := r.Get(ctx, req.NamespacedName, &snap); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var reader client.Reader = r.APIReader
	if r.Buggy {
		reader = r.Client // the bug: the cache may not show the child created a moment ago
	}
	var list corev1.ConfigMapList
	if err := reader.List(ctx, &list, client.InNamespace(snap.Namespace), client.MatchingLabels{SnapshotLabel: snap.Name}); err != nil {
		return ctrl.Result{}, err
	}
	var children []corev1.ConfigMap
	for _, cm := range list.Items {
		if metav1.IsControlledBy(&cm, &snap) && cm.DeletionTimestamp == nil {
			children = append(children, cm)
		}
	}
	slices.SortFunc(children, func(a, b corev1.ConfigMap) int { return strings.Compare(a.Name, b.Name) })
	want := map[string]string{"source": snap.Spec.Source}
	var child corev1.ConfigMap
	if len(children) == 0 {
		child = corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: snap.Namespace, GenerateName: snap.Name + "-", Labels: map[string]string{SnapshotLabel: snap.Name}},
			Data:       want,
		}
		if err := controllerutil.SetControllerReference(&snap, &child, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &child); err != nil {
			return ctrl.Result{}, err
		}
	} else {
		child = children[0]
		if child.Data["source"] != snap.Spec.Source {
			child.Data = want
			if err := r.Update(ctx, &child); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	if snap.Status.ConfigMapName == child.Name {
		return ctrl.Result{}, nil
	}
	snap.Status.ConfigMapName = child.Name
	return ctrl.Result{}, r.Status().Update(ctx, &snap)
}
