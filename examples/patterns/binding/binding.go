package binding

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Store CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Store to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Store{}, &StoreList{}) }

// Store is a key-value store run as a StatefulSet, whose credentials are
// a Secret an application binds to.
type Store struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              StoreSpec   `json:"spec,omitempty"`
	Status            StoreStatus `json:"status,omitempty"`
}

// StoreSpec is the number of nodes and the user's override of the
// StatefulSet's pod management policy, passed as it is.
type StoreSpec struct {
	Replicas            int32  `json:"replicas"`
	PodManagementPolicy string `json:"podManagementPolicy,omitempty"`
}

// StoreStatus holds the binding, once a reconcile has made everything, and
// the Ready condition: True once bound, False with the error of a
// reconcile that failed.
type StoreStatus struct {
	Binding    *Binding           `json:"binding,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Binding names the Secret of the Service Binding specification's
// provisioned service.
type Binding struct {
	Name string `json:"name"`
}

// StoreList is a list of Stores.
type StoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Store `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Store) DeepCopyInto(out *Store) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Status.Binding != nil {
		b := *in.Status.Binding
		out.Status.Binding = &b
	}
	out.Status.Conditions = nil
	for _, c := range in.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, *c.DeepCopy())
	}
}

// DeepCopyObject copies the Store.
func (in *Store) DeepCopyObject() runtime.Object {
	out := new(Store)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *StoreList) DeepCopyObject() runtime.Object {
	out := &StoreList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var s Store
		in.Items[i].DeepCopyInto(&s)
		out.Items = append(out.Items, s)
	}
	return out
}

// Reconciler keeps each Store's Secret, StatefulSet and binding.
type Reconciler struct {
	client.Client
	// Buggy records the binding only in the reconcile that created the
	// Secret.
	Buggy bool
}

// SetupWithManager registers the controller: Stores, and the Secrets and
// StatefulSets they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Store{}).Owns(&corev1.Secret{}).Owns(&appsv1.StatefulSet{}).Complete(r)
}

// Reconcile writes the credentials' Secret, then the StatefulSet (the
// user's override included: the apiserver may refuse it, and the reconcile
// fails and retries until the user fixes it), and once both are made
// records the binding in status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var s Store
	if err := r.Get(ctx, req.NamespacedName, &s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if s.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name + "-binding"}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, secret, func() error {
		secret.Type = "servicebinding.io/redis"
		secret.StringData = nil
		secret.Data = map[string][]byte{
			"type": []byte("redis"),
			"host": []byte(s.Name + "." + s.Namespace + ".svc"),
			"port": []byte("6379"),
		}
		return controllerutil.SetControllerReference(&s, secret, r.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "store", "app.kubernetes.io/instance": s.Name}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		replicas := s.Spec.Replicas
		sts.Spec.Replicas = &replicas
		if p := s.Spec.PodManagementPolicy; p != "" {
			sts.Spec.PodManagementPolicy = appsv1.PodManagementPolicyType(p)
		}
		if sts.Spec.Selector == nil { // immutable once set
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		sts.Spec.Template.Labels = labels
		sts.Spec.Template.Spec.Containers = []corev1.Container{{Name: "store", Image: "valkey/valkey:8.0"}}
		return controllerutil.SetControllerReference(&s, sts, r.Scheme())
	}); err != nil {
		// Say why in status, and retry with back-off.
		if meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "StatefulSetFailed", Message: err.Error()}) {
			_ = r.Status().Update(ctx, &s)
		}
		return ctrl.Result{}, err
	}
	if r.Buggy && op != controllerutil.OperationResultCreated { // the bug: only the reconcile that made the Secret records it
		return ctrl.Result{}, nil
	}
	changed := meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Bound", Message: "bound to Secret " + secret.Name})
	if s.Status.Binding == nil || s.Status.Binding.Name != secret.Name {
		s.Status.Binding, changed = &Binding{Name: secret.Name}, true
	}
	if !changed {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, r.Status().Update(ctx, &s)
}
