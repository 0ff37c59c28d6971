package bigensemble

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
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Ensemble CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Ensemble.
	GroupVersion  = schema.GroupVersion{Group: "bigensemble.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Ensemble to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Ensemble{}, &EnsembleList{}) }

// EnsembleLabel names the Ensemble an object belongs to, OrdinalLabel its
// member.
const (
	EnsembleLabel = "bigensemble.ctrlsim.dev/ensemble"
	OrdinalLabel  = "bigensemble.ctrlsim.dev/ordinal"
)

// Ensemble is a replicated service of Members members.
type Ensemble struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EnsembleSpec   `json:"spec,omitempty"`
	Status            EnsembleStatus `json:"status,omitempty"`
}

// EnsembleSpec is the number of members.
type EnsembleSpec struct {
	Members int `json:"members"`
}

// EnsembleStatus is the members the operator keeps (a scale-down is
// recorded here before it is acted on) and how many are made.
type EnsembleStatus struct {
	Members            int   `json:"members,omitempty"`
	ReadyMembers       int   `json:"readyMembers,omitempty"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
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

// Reconciler scales each Ensemble's members.
type Reconciler struct {
	client.Client
	// APIReader reads live (the manager's GetAPIReader).
	APIReader client.Reader
	// Buggy deletes a member's claim on the word of its cache's Ensemble.
	Buggy bool
}

// SetupWithManager registers the controller: Ensembles, the ConfigMaps
// and Services they own, and their members' claims mapped to them by
// label.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	toEnsemble := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		if e := o.GetLabels()[EnsembleLabel]; e != "" {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: e}}}
		}
		return nil
	})
	return ctrl.NewControllerManagedBy(mgr).For(&Ensemble{}).
		Owns(&corev1.ConfigMap{}).Owns(&corev1.Service{}).
		Watches(&corev1.PersistentVolumeClaim{}, toEnsemble).Complete(r)
}

// Reconcile scales the Ensemble. A scale-down is recorded in status first,
// then the members beyond it are deleted; a scale-up makes the new
// members (their progress written as each is made), then records them.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var e Ensemble
	if err := r.Get(ctx, req.NamespacedName, &e); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !e.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if e.Status.Members > e.Spec.Members {
		e.Status.Members, e.Status.ReadyMembers = e.Spec.Members, min(e.Status.ReadyMembers, e.Spec.Members)
		return ctrl.Result{}, r.Status().Update(ctx, &e) // record the scale-down before acting on it
	}
	if err := r.removeExtra(ctx, &e); err != nil {
		return ctrl.Result{}, err
	}
	if _, err := r.ensureOwned(ctx, &e, r.service(&e, e.Name, -1)); err != nil {
		return ctrl.Result{}, err
	}
	for i := range e.Spec.Members {
		made, err := r.ensureMember(ctx, &e, i)
		if err != nil || !made {
			if err != nil {
				return ctrl.Result{}, err
			}
			continue
		}
		e.Status.ReadyMembers = max(e.Status.ReadyMembers, i+1) // progress, as a member is made
		if err := r.Status().Update(ctx, &e); err != nil {
			return ctrl.Result{}, err
		}
	}
	// Every member is made: the status says so, whatever this reconcile
	// made (a member made by an earlier one, whose progress write a crash
	// or a stale view kept back, counts).
	if e.Status.Members != e.Spec.Members || e.Status.ReadyMembers != e.Spec.Members || e.Status.ObservedGeneration != e.Generation {
		e.Status.Members, e.Status.ReadyMembers, e.Status.ObservedGeneration = e.Spec.Members, e.Spec.Members, e.Generation
		return ctrl.Result{}, r.Status().Update(ctx, &e)
	}
	return ctrl.Result{}, nil
}

// removeExtra deletes the members beyond spec.members: each one's claim
// (the correct operator confirms live that the member is gone first),
// ConfigMap and Service.
func (r *Reconciler) removeExtra(ctx context.Context, e *Ensemble) error {
	var claims corev1.PersistentVolumeClaimList
	if err := r.List(ctx, &claims, client.InNamespace(e.Namespace), client.MatchingLabels{EnsembleLabel: e.Name}); err != nil {
		return err
	}
	for i := range claims.Items {
		pvc := &claims.Items[i]
		n, err := strconv.Atoi(pvc.Labels[OrdinalLabel])
		if err != nil || n < e.Spec.Members || !pvc.DeletionTimestamp.IsZero() {
			continue
		}
		if !r.Buggy {
			// The cache's Ensemble may be one from before a scale-up.
			var live Ensemble
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(e), &live); err != nil {
				return client.IgnoreNotFound(err)
			}
			if n < live.Spec.Members || n < live.Status.Members {
				continue
			}
		}
		if err := r.Delete(ctx, pvc, client.Preconditions{UID: &pvc.UID}); client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
			return err
		}
		for _, o := range []client.Object{
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: e.Namespace, Name: fmt.Sprintf("%s-%d-config", e.Name, n)}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: e.Namespace, Name: fmt.Sprintf("%s-%d", e.Name, n)}},
		} {
			if err := r.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
	}
	return nil
}

// ensureMember makes member i's claim, ConfigMap and Service, and reports
// whether it made any of them.
func (r *Reconciler) ensureMember(ctx context.Context, e *Ensemble, i int) (bool, error) {
	claim, err := r.ensureClaim(ctx, e, i)
	if err != nil {
		return false, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: meta(e, fmt.Sprintf("%s-%d-config", e.Name, i), i),
		Data: map[string]string{"member.conf": fmt.Sprintf("id=%d\n", i)}}
	config, err := r.ensureOwned(ctx, e, cm)
	if err != nil {
		return false, err
	}
	svc, err := r.ensureOwned(ctx, e, r.service(e, fmt.Sprintf("%s-%d", e.Name, i), i))
	return claim || config || svc, err
}

// service is a Service of e's: the headless one (member -1) or member's.
func (r *Reconciler) service(e *Ensemble, name string, member int) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: meta(e, name, member),
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "peer", Port: 2888}},
			Selector: map[string]string{EnsembleLabel: e.Name}}}
	if member < 0 {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	} else {
		svc.Spec.Selector[OrdinalLabel] = strconv.Itoa(member)
	}
	return svc
}

// ensureOwned creates o, owned by e, unless the cache has it, and reports
// whether it did. Only for a member the live Ensemble has: a cache from
// before a scale-down would make one for a member already gone.
func (r *Reconciler) ensureOwned(ctx context.Context, e *Ensemble, o client.Object) (bool, error) {
	err := r.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object))
	if !apierrors.IsNotFound(err) {
		return false, err
	}
	if ok, err := r.wanted(ctx, e, o); !ok || err != nil {
		return false, err
	}
	if err := controllerutil.SetControllerReference(e, o, r.Scheme()); err != nil {
		return false, err
	}
	if err := r.Create(ctx, o); err != nil {
		return false, client.IgnoreAlreadyExists(err)
	}
	return true, nil
}

// ensureClaim makes member i's claim if it has none, and reports whether
// it did.
func (r *Reconciler) ensureClaim(ctx context.Context, e *Ensemble, i int) (bool, error) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: meta(e, ClaimName(e.Name, i), i)}
	if err := r.Get(ctx, client.ObjectKeyFromObject(pvc), pvc); !apierrors.IsNotFound(err) {
		return false, err
	}
	if ok, err := r.wanted(ctx, e, pvc); !ok || err != nil {
		return false, err
	}
	pvc.Spec = corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
	}
	if err := r.Create(ctx, pvc); err != nil {
		return false, client.IgnoreAlreadyExists(err)
	}
	return true, nil
}

// wanted reports whether the live Ensemble has o's member (o has no
// member: the Ensemble is there).
func (r *Reconciler) wanted(ctx context.Context, e *Ensemble, o client.Object) (bool, error) {
	var live Ensemble
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(e), &live); err != nil || live.UID != e.UID {
		return false, client.IgnoreNotFound(err)
	}
	n, err := strconv.Atoi(o.GetLabels()[OrdinalLabel])
	return err != nil || n < live.Spec.Members, nil
}

// meta is the metadata of one of e's objects: its name, e's namespace, and
// the labels that map it back to e (and to its member, if any).
func meta(e *Ensemble, name string, member int) metav1.ObjectMeta {
	labels := map[string]string{EnsembleLabel: e.Name}
	if member >= 0 {
		labels[OrdinalLabel] = strconv.Itoa(member)
	}
	return metav1.ObjectMeta{Namespace: e.Namespace, Name: name, Labels: labels}
}
