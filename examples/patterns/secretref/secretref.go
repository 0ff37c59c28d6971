package secretref

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
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

// CRD is the Registry CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Registry to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Registry{}, &RegistryList{}) }

// Registry is an image registry whose credentials are a Secret the user
// names.
type Registry struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RegistrySpec   `json:"spec,omitempty"`
	Status            RegistryStatus `json:"status,omitempty"`
}

// RegistrySpec is the number of replicas and the credentials' Secret.
type RegistrySpec struct {
	Replicas  int32     `json:"replicas"`
	SecretRef SecretRef `json:"secretRef,omitempty"`
}

// SecretRef names a Secret of the Registry's namespace.
type SecretRef struct {
	Name string `json:"name,omitempty"`
}

// RegistryStatus records the generation whose ConfigMap was written, and
// whether the registry is ready.
type RegistryStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	Ready              bool  `json:"ready,omitempty"`
}

// RegistryList is a list of Registries.
type RegistryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Registry `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Registry) DeepCopyInto(out *Registry) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Registry.
func (in *Registry) DeepCopyObject() runtime.Object {
	out := new(Registry)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *RegistryList) DeepCopyObject() runtime.Object {
	out := &RegistryList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var r Registry
		in.Items[i].DeepCopyInto(&r)
		out.Items = append(out.Items, r)
	}
	return out
}

// Reconciler writes each Registry's ConfigMap.
type Reconciler struct {
	client.Client
	// Buggy records the observed generation before it writes the
	// ConfigMap, and skips the ConfigMap of a generation it observed.
	Buggy bool
}

// StatusReconciler sets each Registry's status.ready when its ConfigMap
// changes.
type StatusReconciler struct {
	client.Client
	// APIReader reads the Registry live: no Registry event wakes this
	// controller, so a Registry its cache does not show yet (a restart
	// onto a lagging cache) would never be looked at again.
	APIReader client.Reader
}

// SetupWithManager registers both controllers: registry (Registries, the
// ConfigMaps they own and the Secrets they name) and registry-status (the
// ConfigMaps alone).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewControllerManagedBy(mgr).For(&Registry{}).Owns(&corev1.ConfigMap{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.naming)).Complete(r); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).Named("registry-status").
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &Registry{}, handler.OnlyControllerOwner())).
		Complete(&StatusReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader()})
}

// naming are the Registries of the Secret's namespace that name it.
func (r *Reconciler) naming(ctx context.Context, o client.Object) []reconcile.Request {
	var list RegistryList
	if err := r.List(ctx, &list, client.InNamespace(o.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, reg := range list.Items {
		if reg.Spec.SecretRef.Name == o.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&reg)})
		}
	}
	return out
}

// secret fails while the Secret the Registry names is missing.
func secret(ctx context.Context, c client.Client, reg *Registry) error {
	return c.Get(ctx, types.NamespacedName{Namespace: reg.Namespace, Name: reg.Spec.SecretRef.Name}, &corev1.Secret{})
}

// Reconcile checks the Secret, writes the ConfigMap and records the
// generation it wrote.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var reg Registry
	if err := r.Get(ctx, req.NamespacedName, &reg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if reg.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	if err := secret(ctx, r.Client, &reg); err != nil {
		return ctrl.Result{}, err
	}
	observe := func() error {
		if reg.Status.ObservedGeneration == reg.Generation {
			return nil
		}
		reg.Status.ObservedGeneration = reg.Generation
		return r.Status().Update(ctx, &reg)
	}
	if r.Buggy { // the bug: the record says written before the write, and the next reconcile trusts it
		if reg.Status.ObservedGeneration == reg.Generation {
			return ctrl.Result{}, nil
		}
		if err := observe(); err != nil {
			return ctrl.Result{}, err
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: reg.Namespace, Name: reg.Name + "-config"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"replicas": strconv.Itoa(int(reg.Spec.Replicas))}
		return controllerutil.SetControllerReference(&reg, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, observe()
}

// Reconcile checks the Secret again and marks the Registry ready.
func (r *StatusReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var reg Registry
	if err := r.APIReader.Get(ctx, req.NamespacedName, &reg); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if reg.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	if err := secret(ctx, r.Client, &reg); err != nil {
		return ctrl.Result{}, err
	}
	if reg.Status.Ready {
		return ctrl.Result{}, nil
	}
	// A merge patch of its one field: registry writes the status too.
	patch := client.MergeFrom(reg.DeepCopyObject().(*Registry))
	reg.Status.Ready = true
	return ctrl.Result{}, r.Status().Patch(ctx, &reg, patch)
}
