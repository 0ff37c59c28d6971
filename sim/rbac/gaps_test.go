package rbac

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"reflect"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAnAggregationRuleGrantsNothing(t *testing.T) {
	view := clusterRole("view-configmaps", rule(list("get"), list(""), list("configmaps")))
	view.Labels = map[string]string{"aggregate-to-reader": "true"}
	reader := clusterRole("reader") // upstream: the aggregation controller copies view's rules here
	reader.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{"aggregate-to-reader": "true"}}}}
	r := &staticRules{
		clusterRoles:        []*rbacv1.ClusterRole{view, reader},
		clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "reader", sa("ns", "sa"))},
	}
	if ok, reason := New(r).Authorize(saRequest("get", "", "configmaps", "", "ns", "cm")); ok {
		t.Fatalf("an aggregated ClusterRole granted (%q), want only its stored (empty) rules to count", reason)
	}
}

func TestClusterAdminExistsOnlyIfTheRulesHoldIt(t *testing.T) {
	r := &staticRules{clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("admin", "cluster-admin", sa("ns", "sa"))}}
	ok, reason := New(r).Authorize(saRequest("get", "", "configmaps", "", "ns", "cm"))
	if want := `rbac: RBAC: clusterrole.rbac.authorization.k8s.io "cluster-admin" not found`; ok || reason != want {
		t.Fatalf("a binding to cluster-admin with no such ClusterRole: %v, %q; want denied, %q", ok, reason, want)
	}
}

func TestARequestIsAResourceRequestOnly(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[Attributes]().Fields() {
		fields = append(fields, f.Name)
	}
	// No Path or IsResourceRequest (non-resource URLs), no Extra (impersonation),
	// no field or label selector requirements.
	want := []string{"User", "Groups", "Verb", "APIGroup", "APIVersion", "Resource", "Subresource", "Namespace", "Name"}
	if !slices.Equal(fields, want) {
		t.Errorf("Attributes has fields %v, want %v", fields, want)
	}
	everyURL := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "urls"},
		Rules: []rbacv1.PolicyRule{{Verbs: list("*"), NonResourceURLs: list("*")}}}
	r := &staticRules{
		clusterRoles:        []*rbacv1.ClusterRole{everyURL},
		clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("urls", "urls", group("system:authenticated"))},
	}
	u, groups := ServiceAccountUser("ns", "sa")
	if ok, reason := New(r).Authorize(Attributes{User: u, Groups: groups, Verb: "get"}); ok {
		t.Errorf("a nonResourceURLs rule allowed a request (%q), want it to allow none", reason)
	}
}

func TestTheAllowingBindingIsTheFirstInTheOrderRulesGives(t *testing.T) {
	grant := role("ns", "r", rule(list("get"), list(""), list("configmaps")))
	a, b := roleBinding("ns", "a", "Role", "r", sa("ns", "sa")), roleBinding("ns", "b", "Role", "r", sa("ns", "sa"))
	for _, tc := range []struct {
		bindings []*rbacv1.RoleBinding
		want     string
	}{
		{[]*rbacv1.RoleBinding{a, b}, `RBAC: allowed by RoleBinding "a/ns" of Role "r" to ServiceAccount "sa/ns"`},
		{[]*rbacv1.RoleBinding{b, a}, `RBAC: allowed by RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`},
	} {
		r := &staticRules{roles: []*rbacv1.Role{grant}, roleBindings: tc.bindings}
		if _, reason := New(r).Authorize(saRequest("get", "", "configmaps", "", "ns", "cm")); reason != tc.want {
			t.Errorf("reason = %q, want %q", reason, tc.want)
		}
	}
}
