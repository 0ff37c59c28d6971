package dynread_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/dynread"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// options: the operator runs as ServiceAccount shop/inventory, whose Role in
// shop lets it read and patch ConfigMaps and list Secrets there, as its
// config/rbac would say; the inventory ConfigMap counts the Secrets of shop.
func options(scoped bool) operatortest.Options {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: "shop", Name: name} }
	inventory := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "secrets", Labels: map[string]string{dynread.InventoryLabel: "true"}},
		Data: map[string]string{"version": "v1", "resource": "secrets"}}
	return operatortest.Options{
		Scheme: s,
		Managers: []operatortest.Manager{{Name: "inventory", ServiceAccount: &types.NamespacedName{Namespace: "shop", Name: "inventory"},
			Setup: func(mgr manager.Manager) error {
				return (&dynread.Reconciler{Client: mgr.GetClient(), Scoped: scoped}).SetupWithManager(mgr)
			}}},
		Objects: []client.Object{
			&rbacv1.Role{ObjectMeta: meta("inventory"), Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "patch"}},
				{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}},
			}},
			&rbacv1.RoleBinding{ObjectMeta: meta("inventory"),
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "inventory"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "shop", Name: "inventory"}}},
			&corev1.Secret{ObjectMeta: meta("a")},
			&corev1.Secret{ObjectMeta: meta("b")},
			inventory,
		},
		// The user deletes and re-creates the inventory; the Role and its
		// binding are the operator's installation (its config/rbac), and
		// the operator counts Secrets when its inventory changes, not when a
		// Secret does (it does not watch them), so the Secrets stay.
		Workload:   operatortest.Workload{Objects: []client.Object{inventory}},
		Properties: []operatortest.Property{counted},
		Checks:     20,
	}
}

// counted: at rest the inventory, if the user has not deleted it, says 2.
var counted = operatortest.Property{Name: "inventory-counted", Check: func(h *operatortest.History) error {
	var cm corev1.ConfigMap
	if err := h.Get(client.ObjectKey{Namespace: "shop", Name: "secrets"}, &cm); apierrors.IsNotFound(err) {
		return nil // the user deleted the inventory: nothing to count into
	} else if err != nil {
		return err
	}
	if got := cm.Annotations[dynread.CountAnnotation]; got != "2" {
		return fmt.Errorf("the inventory says %q Secrets, want 2", got)
	}
	return nil
}}

// The operator that lists in its namespace holds: its dynamic-client reads are
// its own calls, allowed by its Role.
func TestTheScopedInventoryHolds(t *testing.T) {
	operatortest.Run(t, options(true))
}

// The operator that lists across all namespaces is caught: its Role does not
// allow it (kube-apiserver's 403 for the dynamic client's request, as its
// ServiceAccount), so its reconciles fail at rest and the count is never made.
func TestTheClusterWideListIsCaught(t *testing.T) {
	res, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || len(res.Violations) == 0 || res.Violations[0].Property != operatortest.NoErrorAtRest ||
		!strings.Contains(res.Violations[0].Detail, `cannot list resource "secrets" in API group "" at the cluster scope`) {
		t.Fatalf("the cluster-wide list was not caught by no-error-at-rest with the 403: %+v", res)
	}
	for _, v := range res.Violations {
		t.Logf("%s: %s", v.Property, v.Detail)
	}
}
