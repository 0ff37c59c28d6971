package tenant

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Tenant CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Tenant to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Tenant{}, &TenantList{}) }

// Finalizer holds a Tenant until its Namespace is gone; Prefix+name is the
// Namespace's name; the children in it have fixed names.
const (
	Finalizer   = "patterns.ctrlsim.dev/tenant-namespace"
	Prefix      = "tenant-"
	AdminName   = "tenant-admin"
	QuotaName   = "tenant-quota"
	PolicyName  = "same-namespace-only"
	TenantLabel = "patterns.ctrlsim.dev/tenant"
)

// Tenant is a team's namespace with its admin and its quota.
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              TenantSpec `json:"spec,omitempty"`
}

// TenantSpec is who administers the tenant's namespace and how many pods it may run.
type TenantSpec struct {
	Admin string `json:"admin"`
	Pods  int32  `json:"pods"`
}

// TenantList is a list of Tenants.
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Tenant) DeepCopyInto(out *Tenant) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Tenant.
func (in *Tenant) DeepCopyObject() runtime.Object {
	out := new(Tenant)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *TenantList) DeepCopyObject() runtime.Object {
	out := &TenantList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var t Tenant
		in.Items[i].DeepCopyInto(&t)
		out.Items = append(out.Items, t)
	}
	return out
}

// Reconciler makes each Tenant's Namespace and its content, and deletes the
// Namespace when the Tenant goes.
type Reconciler struct {
	client.Client
	// APIReader reads live (mgr.GetAPIReader()): the finalizer goes only once
	// the apiserver has no Namespace left.
	APIReader client.Reader
	// Buggy forgets to own the Namespace.
	Buggy bool
}

// SetupWithManager registers the controller: Tenants and what they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Tenant{}).
		Owns(&corev1.Namespace{}).Owns(&rbacv1.RoleBinding{}).Owns(&corev1.ResourceQuota{}).Owns(&networkingv1.NetworkPolicy{}).
		Complete(r)
}

// terminatingWait is how long a reconcile waits for a Namespace being
// deleted before it looks again.
const terminatingWait = 5 * time.Second

// Reconcile makes the Tenant's Namespace and content, or deletes its
// Namespace and then lets the Tenant go.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var t Tenant
	if err := r.Get(ctx, req.NamespacedName, &t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !t.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &t)
	}
	if controllerutil.AddFinalizer(&t, Finalizer) {
		if err := r.Update(ctx, &t); err != nil {
			return ctrl.Result{}, err
		}
	}
	ns := &corev1.Namespace{}
	err := r.Get(ctx, client.ObjectKey{Name: Prefix + t.Name}, ns)
	switch {
	case apierrors.IsNotFound(err):
		ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Prefix + t.Name, Labels: map[string]string{TenantLabel: t.Name}}}
		if !r.Buggy { // the bug: a Namespace no owner's deletion collects
			if err := controllerutil.SetControllerReference(&t, ns, r.Scheme()); err != nil {
				return ctrl.Result{}, err
			}
		}
		if err := r.Create(ctx, ns); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	case !ns.DeletionTimestamp.IsZero():
		// A Namespace of the Tenant's name on its way out (a Tenant of
		// that name deleted before): make a new one once it is gone.
		return ctrl.Result{RequeueAfter: terminatingWait}, nil
	}
	for _, child := range r.children(&t) {
		if err := r.ensure(ctx, &t, child); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// finalize deletes the Tenant's Namespace, and removes the finalizer once
// the apiserver holds no Namespace of that name.
func (r *Reconciler) finalize(ctx context.Context, t *Tenant) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(t, Finalizer) {
		return ctrl.Result{}, nil
	}
	ns := &corev1.Namespace{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Name: Prefix + t.Name}, ns)
	switch {
	case err == nil:
		if ns.DeletionTimestamp.IsZero() {
			if err := r.Delete(ctx, ns, client.Preconditions{UID: &ns.UID}); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
		return ctrl.Result{RequeueAfter: terminatingWait}, nil
	case !apierrors.IsNotFound(err):
		return ctrl.Result{}, err
	}
	controllerutil.RemoveFinalizer(t, Finalizer)
	return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, t))
}

// children are the Tenant's objects in its Namespace, as they should be.
func (r *Reconciler) children(t *Tenant) []client.Object {
	ns := Prefix + t.Name
	labels := map[string]string{TenantLabel: t.Name}
	return []client.Object{
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: AdminName, Labels: labels},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: t.Spec.Admin}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
		},
		&corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: QuotaName, Labels: labels},
			Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(int64(t.Spec.Pods), resource.DecimalSI)}},
		},
		&networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: PolicyName, Labels: labels},
			Spec: networkingv1.NetworkPolicySpec{
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}}},
			},
		},
	}
}

// ensure creates want, owned by t, or updates the fields the operator sets.
func (r *Reconciler) ensure(ctx context.Context, t *Tenant, want client.Object) error {
	got := want.DeepCopyObject().(client.Object)
	err := r.Get(ctx, client.ObjectKeyFromObject(want), got)
	if apierrors.IsNotFound(err) {
		if err := controllerutil.SetControllerReference(t, want, r.Scheme()); err != nil {
			return err
		}
		return client.IgnoreAlreadyExists(r.Create(ctx, want))
	}
	if err != nil {
		return err
	}
	changed := false
	switch g := got.(type) {
	case *rbacv1.RoleBinding:
		w := want.(*rbacv1.RoleBinding)
		if !equality.Semantic.DeepEqual(g.Subjects, w.Subjects) {
			g.Subjects, changed = w.Subjects, true
		}
	case *corev1.ResourceQuota:
		w := want.(*corev1.ResourceQuota)
		if !equality.Semantic.DeepEqual(g.Spec.Hard, w.Spec.Hard) {
			g.Spec.Hard, changed = w.Spec.Hard, true
		}
	case *networkingv1.NetworkPolicy:
		w := want.(*networkingv1.NetworkPolicy)
		if !equality.Semantic.DeepEqual(g.Spec, w.Spec) {
			g.Spec, changed = w.Spec, true
		}
	}
	if !changed {
		return nil
	}
	return r.Update(ctx, got)
}
