package scaledown

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Ensemble CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Ensemble.
	GroupVersion  = schema.GroupVersion{Group: "scaledown.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Ensemble to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Ensemble{}, &EnsembleList{}) }

// EnsembleLabel names the Ensemble a member's claim belongs to,
// OrdinalLabel the member.
const (
	EnsembleLabel = "scaledown.ctrlsim.dev/ensemble"
	OrdinalLabel  = "scaledown.ctrlsim.dev/ordinal"
)

// Ensemble is a replicated store of Spec.Members members, member i's data
// in the PersistentVolumeClaim <name>-data-<i> (not owned by the Ensemble,
// as a StatefulSet's volume claims are not: a member scaled away and back
// would lose its data with them).
type Ensemble struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EnsembleSpec   `json:"spec,omitempty"`
	Status            EnsembleStatus `json:"status,omitempty"`
}

// EnsembleSpec is how many members the user wants.
type EnsembleSpec struct {
	Members int `json:"members"`
}

// EnsembleStatus is how many members the operator has provisioned: a
// scale-down is recorded here before the members' claims are deleted.
type EnsembleStatus struct {
	Members int `json:"members,omitempty"`
	// Primary is the member the PicksPrimary twin chose to lead.
	Primary string `json:"primary,omitempty"`
}

// EnsembleList is a list of Ensembles.
type EnsembleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Ensemble `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Ensemble) DeepCopyInto(out *Ensemble) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Ensemble.
func (in *Ensemble) DeepCopyObject() runtime.Object {
	out := new(Ensemble)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *EnsembleList) DeepCopyObject() runtime.Object {
	out := &EnsembleList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var e Ensemble
		in.Items[i].DeepCopyInto(&e)
		out.Items = append(out.Items, e)
	}
	return out
}

// ClaimName is member i's claim.
func ClaimName(ensemble string, i int) string { return fmt.Sprintf("%s-data-%d", ensemble, i) }

// Reconciler provisions each Ensemble's members' claims and deletes those
// of the members scaled away.
type Reconciler struct {
	client.Client
	// APIReader reads live (the manager's GetAPIReader).
	APIReader client.Reader
	// Buggy deletes a member's claim on the word of its cache's Ensemble.
	Buggy bool
	// PicksPrimary is a second bug of the same reconcile, one no fault
	// needs: it records as the primary the first claim its cache lists,
	// once, so that two schedules (another list order, another lag) pick
	// two primaries (interleavings-agree). A correct one would pick
	// member 0.
	PicksPrimary bool
}

// SetupWithManager registers the controller: Ensembles, and their members'
// claims mapped to them by label.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toEnsemble := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if e := o.GetLabels()[EnsembleLabel]; e != "" {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: e}}}
		}
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).For(&Ensemble{}).Watches(&corev1.PersistentVolumeClaim{}, toEnsemble).Complete(r)
}

// Reconcile scales the Ensemble. A scale-down is recorded in status first
// (the members the operator keeps), then the claims of the members beyond
// it are deleted; a scale-up makes the new members' claims, then records
// them.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var e Ensemble
	if err := r.Get(ctx, req.NamespacedName, &e); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !e.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if e.Status.Members > e.Spec.Members {
		e.Status.Members = e.Spec.Members // record the scale-down before acting on it
		return ctrl.Result{}, r.Status().Update(ctx, &e)
	}
	var claims corev1.PersistentVolumeClaimList
	if err := r.List(ctx, &claims, client.InNamespace(e.Namespace), client.MatchingLabels{EnsembleLabel: e.Name}); err != nil {
		return ctrl.Result{}, err
	}
	if r.PicksPrimary && e.Status.Primary == "" && len(claims.Items) > 0 {
		e.Status.Primary = claims.Items[0].Name
		return ctrl.Result{}, r.Status().Update(ctx, &e)
	}
	for i := range claims.Items {
		pvc := &claims.Items[i]
		n, err := strconv.Atoi(pvc.Labels[OrdinalLabel])
		if err != nil || n < e.Spec.Members || !pvc.DeletionTimestamp.IsZero() {
			continue
		}
		if !r.Buggy {
			// The cache's Ensemble may be one from before a scale-up:
			// confirm live that the member is gone.
			var live Ensemble
			if err := r.APIReader.Get(ctx, req.NamespacedName, &live); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			if n < live.Spec.Members || n < live.Status.Members {
				continue
			}
		}
		if err := r.Delete(ctx, pvc, client.Preconditions{UID: &pvc.UID}); client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
			return ctrl.Result{}, err
		}
	}
	for i := 0; i < e.Spec.Members; i++ {
		if err := r.ensureClaim(ctx, &e, i); err != nil {
			return ctrl.Result{}, err
		}
	}
	if e.Status.Members != e.Spec.Members {
		e.Status.Members = e.Spec.Members
		return ctrl.Result{}, r.Status().Update(ctx, &e)
	}
	return ctrl.Result{}, nil
}

// ensureClaim creates member i's claim if it has none.
func (r *Reconciler) ensureClaim(ctx context.Context, e *Ensemble, i int) error {
	var pvc corev1.PersistentVolumeClaim
	err := r.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: ClaimName(e.Name, i)}, &pvc)
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	// Confirm live that the member is wanted: a cache from before a
	// scale-down would make a claim for a member already gone.
	var live Ensemble
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(e), &live); err != nil || i >= live.Spec.Members {
		return client.IgnoreNotFound(err)
	}
	pvc = corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.Namespace, Name: ClaimName(e.Name, i),
			Labels: map[string]string{EnsembleLabel: e.Name, OrdinalLabel: strconv.Itoa(i)}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if err := r.Create(ctx, &pvc); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
