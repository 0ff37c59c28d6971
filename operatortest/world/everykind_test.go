package world_test

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// grants gives each ConfigMap a RoleBinding it owns and a Lease it does
// not: kinds no world names (not its objects', not its CRDs', not a common
// child's).
type grants struct{ client.Client }

func (r *grants) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !cm.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name + "-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}}}
	if err := controllerutil.SetControllerReference(&cm, rb, r.Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.Create(ctx, rb); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name}}
	if err := r.Create(ctx, lease); err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

func grantsOptions(objects ...client.Object) world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&grants{Client: mgr.GetClient()})
		}}},
		Objects: objects,
	}
}

// last is the last event of the object of kind gk named ns/name in log.
func last(log []apiserver.Event, gk schema.GroupKind, ns, name string) (apiserver.Event, bool) {
	for j := len(log) - 1; j >= 0; j-- {
		if e := log[j]; e.GVK.GroupKind() == gk && e.Object.GetNamespace() == ns && e.Object.GetName() == name {
			return e, true
		}
	}
	return apiserver.Event{}, false
}

var (
	roleBindingGK = schema.GroupKind{Group: rbacv1.GroupName, Kind: "RoleBinding"}
	leaseGK       = schema.GroupKind{Group: coordinationv1.GroupName, Kind: "Lease"}
)

// A RoleBinding the operator owns through its ConfigMap (a kind the world
// does not name) is collected once the ConfigMap is deleted: the world holds
// RoleBindings for their owner relation and its collector collects them; the
// Lease the operator makes beside it, in no owner relation, starts no
// collector.
func TestAnOwnedKindTheWorldDoesNotNameIsCollected(t *testing.T) {
	w, err := search.NewWorld(grantsOptions(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 3\nat 5s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := watched(r.Steps)
	if got["RoleBinding"] == 0 {
		t.Errorf("the collector does not watch RoleBindings; kube-controller-manager watched %v", got)
	}
	if got["Lease"] > 0 {
		t.Errorf("the collector watches Leases, though no Lease is in an owner relation; kube-controller-manager watched %v", got)
	}
	e, ok := last(r.Log, roleBindingGK, "team", "app-reader")
	if !ok {
		t.Fatalf("the operator made no RoleBinding: the test shows nothing")
	}
	if e.Type != watch.Deleted {
		t.Errorf("the RoleBinding of the deleted ConfigMap was not collected (its last event: %s)", e.Type)
	}
}

// A Namespace deleted by the workload takes with it the operator's
// RoleBinding and Lease (kinds the world does not name): the namespace
// controller deletes every kind the world holds in it before it finalizes
// the namespace.
func TestADeletedNamespaceTakesEveryKindInIt(t *testing.T) {
	w, err := search.NewWorld(grantsOptions(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 3\nat 5s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := last(r.Log, schema.GroupKind{Kind: "Namespace"}, "", "team"); !ok || e.Type != watch.Deleted {
		t.Fatalf("the namespace was not deleted (last event %+v): the test shows nothing", e.Type)
	}
	for _, gk := range []schema.GroupKind{roleBindingGK, leaseGK, {Kind: "ConfigMap"}} {
		name := "app"
		if gk == roleBindingGK {
			name = "app-reader"
		}
		e, ok := last(r.Log, gk, "team", name)
		if !ok {
			t.Errorf("the operator made no %s: the test shows nothing", gk)
			continue
		}
		if e.Type != watch.Deleted {
			t.Errorf("the %s team/%s outlived its namespace (its last event: %s)", gk.Kind, name, e.Type)
		}
	}
}
