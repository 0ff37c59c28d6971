package rbac

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// staticRules serves fixed RBAC objects, in the order given, as the apiserver
// model serves its store.
type staticRules struct {
	roles               []*rbacv1.Role
	clusterRoles        []*rbacv1.ClusterRole
	roleBindings        []*rbacv1.RoleBinding
	clusterRoleBindings []*rbacv1.ClusterRoleBinding
}

func (s *staticRules) ClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return s.clusterRoleBindings
}

func (s *staticRules) RoleBindings(namespace string) []*rbacv1.RoleBinding {
	var out []*rbacv1.RoleBinding
	for _, rb := range s.roleBindings {
		if rb.Namespace == namespace {
			out = append(out, rb)
		}
	}
	return out
}

func (s *staticRules) ClusterRole(name string) *rbacv1.ClusterRole {
	for _, r := range s.clusterRoles {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func (s *staticRules) Role(namespace, name string) *rbacv1.Role {
	for _, r := range s.roles {
		if r.Namespace == namespace && r.Name == name {
			return r
		}
	}
	return nil
}

func rule(verbs, groups, resources []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

func list(s ...string) []string { return s }

func role(ns, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func sa(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
}

func group(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func user(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func roleBinding(ns, name, refKind, refName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: refKind, Name: refName},
		Subjects:   subjects,
	}
}

func clusterRoleBinding(name, refName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: refName},
		Subjects:   subjects,
	}
}

// saRequest is a request of ServiceAccount ns/sa, authenticated as a pod's
// token would be.
func saRequest(verb, group, resource, sub, ns, name string) Attributes {
	u, g := ServiceAccountUser("ns", "sa")
	return Attributes{User: u, Groups: g, Verb: verb, APIGroup: group, APIVersion: "v1",
		Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func TestServiceAccountUserIsTheTokenIdentity(t *testing.T) {
	// k8s.io/apiserver pkg/authentication/serviceaccount MakeUsername and
	// MakeGroupNames, plus AuthenticatedGroupAdder's system:authenticated.
	u, g := ServiceAccountUser("team-a", "manager")
	if u != "system:serviceaccount:team-a:manager" {
		t.Errorf("user = %q", u)
	}
	want := []string{"system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"}
	if !slices.Equal(g, want) {
		t.Errorf("groups = %q, want %q", g, want)
	}
}

func TestAuthorize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules staticRules
		attrs Attributes
		allow bool
	}{
		{
			name:  "no bindings deny",
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
		},
		{
			name: "a Role bound by a RoleBinding grants in its namespace",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get"), list(""), list("configmaps")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
			allow: true,
		},
		{
			name: "a Role grants only the verbs it lists",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get"), list(""), list("configmaps")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "", "configmaps", "", "ns", "cm"),
		},
		{
			name: "a RoleBinding does not grant in another namespace",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("other", "r", rule(list("*"), list("*"), list("*")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("other", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
		},
		{
			name: "a RoleBinding does not grant at the cluster scope",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("list"), list(""), list("configmaps")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("list", "", "configmaps", "", "", ""),
		},
		{
			name: "a RoleBinding to a ClusterRole grants in the binding's namespace",
			rules: staticRules{
				clusterRoles: []*rbacv1.ClusterRole{clusterRole("edit", rule(list("update"), list("apps"), list("deployments")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "ClusterRole", "edit", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "apps", "deployments", "", "ns", "d"),
			allow: true,
		},
		{
			name: "a RoleBinding to a ClusterRole does not grant in other namespaces",
			rules: staticRules{
				clusterRoles: []*rbacv1.ClusterRole{clusterRole("edit", rule(list("update"), list("apps"), list("deployments")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "ClusterRole", "edit", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "apps", "deployments", "", "prod", "d"),
		},
		{
			name: "a ClusterRoleBinding grants in every namespace",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("view", rule(list("get", "list", "watch"), list(""), list("secrets")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "view", sa("ns", "sa"))},
			},
			attrs: saRequest("watch", "", "secrets", "", "prod", ""),
			allow: true,
		},
		{
			name: "a ClusterRoleBinding grants at the cluster scope",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("ns-reader", rule(list("list"), list(""), list("namespaces")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "ns-reader", sa("ns", "sa"))},
			},
			attrs: saRequest("list", "", "namespaces", "", "", ""),
			allow: true,
		},
		{
			name: "wildcard verb, group and resource allow anything",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("admin", rule(list("*"), list("*"), list("*")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "admin", sa("ns", "sa"))},
			},
			attrs: saRequest("deletecollection", "batch", "jobs", "", "x", ""),
			allow: true,
		},
		{
			name: "a resource wildcard covers subresources",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("update"), list("apps"), list("*")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "apps", "deployments", "status", "ns", "d"),
			allow: true,
		},
		{
			name: "the API group must match",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("*"), list(""), list("*")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("get", "apps", "deployments", "", "ns", "d"),
		},
		{
			name: "a resource rule does not cover its subresources",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("update"), list("apps"), list("deployments")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "apps", "deployments", "status", "ns", "d"),
		},
		{
			name: "a resource/subresource rule covers only that subresource",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("update"), list("apps"), list("deployments/status")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "apps", "deployments", "status", "ns", "d"),
			allow: true,
		},
		{
			name: "a resource/subresource rule does not cover the resource",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("update"), list("apps"), list("deployments/status")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "apps", "deployments", "", "ns", "d"),
		},
		{
			name: "a */subresource rule covers that subresource of any resource",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("update"), list(""), list("*/finalize")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "", "namespaces", "finalize", "ns", "ns"),
			allow: true,
		},
		{
			name: "a */subresource rule does not cover another subresource",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("update"), list(""), list("*/finalize")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("update", "", "namespaces", "status", "ns", "ns"),
		},
		{
			// requestinfo.go: a request for namespaces/<n> has namespace <n>.
			name: "a RoleBinding in a namespace grants access to that Namespace object",
			rules: staticRules{
				clusterRoles: []*rbacv1.ClusterRole{clusterRole("ns-admin", rule(list("get", "delete"), list(""), list("namespaces")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("team-a", "rb", "ClusterRole", "ns-admin", sa("ns", "sa"))},
			},
			attrs: saRequest("delete", "", "namespaces", "", "team-a", "team-a"),
			allow: true,
		},
		{
			name: "a RoleBinding in a namespace does not grant access to other Namespace objects",
			rules: staticRules{
				clusterRoles: []*rbacv1.ClusterRole{clusterRole("ns-admin", rule(list("get", "delete"), list(""), list("namespaces")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("team-a", "rb", "ClusterRole", "ns-admin", sa("ns", "sa"))},
			},
			attrs: saRequest("delete", "", "namespaces", "", "team-b", "team-b"),
		},
		{
			name: "resourceNames allow a list or watch whose field selector names the object",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("list", "watch"), list(""), list("configmaps"), "lock"))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("watch", "", "configmaps", "", "ns", "lock"),
			allow: true,
		},
		{
			name: "resourceNames allow the named object",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get", "create", "list"), list(""), list("configmaps"), "lock"))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "lock"),
			allow: true,
		},
		{
			name: "resourceNames deny other objects",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get", "create", "list"), list(""), list("configmaps"), "lock"))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "other"),
		},
		{
			name: "resourceNames never allow create, which has no name",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get", "create", "list"), list(""), list("configmaps"), "lock"))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("create", "", "configmaps", "", "ns", ""),
		},
		{
			name: "resourceNames never allow list, which has no name",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get", "create", "list"), list(""), list("configmaps"), "lock"))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
			},
			attrs: saRequest("list", "", "configmaps", "", "ns", ""),
		},
		{
			name: "a ServiceAccount subject without namespace means the RoleBinding's namespace",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get"), list(""), list("configmaps")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
			allow: true,
		},
		{
			name: "a ServiceAccount subject without namespace matches nobody in a ClusterRoleBinding",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("*"), list("*"), list("*")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", sa("", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
		},
		{
			name: "a ServiceAccount subject of another namespace does not match",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get"), list(""), list("configmaps")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("other", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
		},
		{
			name: "a Group subject matches the ServiceAccount's namespace group",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("get"), list(""), list("configmaps")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", group("system:serviceaccounts:ns"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
			allow: true,
		},
		{
			name: "a Group subject matches system:authenticated",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("get"), list(""), list("configmaps")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", group("system:authenticated"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
			allow: true,
		},
		{
			name: "a Group subject the user is not in does not match",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("get"), list(""), list("configmaps")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", group("system:serviceaccounts:other"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
		},
		{
			name: "a User subject matches the ServiceAccount's user name",
			rules: staticRules{
				clusterRoles:        []*rbacv1.ClusterRole{clusterRole("r", rule(list("get"), list(""), list("configmaps")))},
				clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "r", user("system:serviceaccount:ns:sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
			allow: true,
		},
		{
			name: "a later subject of a binding matches",
			rules: staticRules{
				roles:        []*rbacv1.Role{role("ns", "r", rule(list("get"), list(""), list("configmaps")))},
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", user("alice"), sa("ns", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
			allow: true,
		},
		{
			name: "a binding to a missing role grants nothing",
			rules: staticRules{
				roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "gone", sa("ns", "sa"))},
			},
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
		},
		{
			name: "system:masters is allowed without any binding",
			attrs: Attributes{User: "admin", Groups: []string{SystemMasters, "system:authenticated"},
				Verb: "delete", Resource: "namespaces", Name: "kube-system"},
			allow: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allowed, reason := New(&tc.rules).Authorize(tc.attrs)
			if allowed != tc.allow {
				t.Fatalf("Authorize(%+v) = %v (%q), want %v", tc.attrs, allowed, reason, tc.allow)
			}
		})
	}
}

func TestAllowedReasonNamesTheFirstGrantingBinding(t *testing.T) {
	// rbac.go authorizingVisitor: "RBAC: allowed by " + the source describer of
	// rule.go; ClusterRoleBindings are visited before RoleBindings.
	r := &staticRules{
		roles:               []*rbacv1.Role{role("ns", "r", rule(list("get"), list(""), list("configmaps")))},
		roleBindings:        []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("", "sa"))},
		clusterRoles:        []*rbacv1.ClusterRole{clusterRole("view", rule(list("get"), list(""), list("configmaps")))},
		clusterRoleBindings: []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "view", group("system:serviceaccounts"))},
	}
	a := New(r)
	_, reason := a.Authorize(saRequest("get", "", "configmaps", "", "ns", "cm"))
	if want := `RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "view" to Group "system:serviceaccounts"`; reason != want {
		t.Errorf("reason = %q, want %q", reason, want)
	}

	r.clusterRoleBindings = nil
	_, reason = a.Authorize(saRequest("get", "", "configmaps", "", "ns", "cm"))
	if want := `RBAC: allowed by RoleBinding "rb/ns" of Role "r" to ServiceAccount "sa/ns"`; reason != want {
		t.Errorf("reason = %q, want %q", reason, want)
	}
}

func TestRevokingABindingDeniesTheNextRequest(t *testing.T) {
	r := &staticRules{
		roles:        []*rbacv1.Role{role("ns", "r", rule(list("update"), list(""), list("configmaps")))},
		roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
	}
	a := New(r)
	req := saRequest("update", "", "configmaps", "", "ns", "cm")
	if ok, _ := a.Authorize(req); !ok {
		t.Fatal("update denied while the RoleBinding exists")
	}
	r.roleBindings = nil
	if ok, reason := a.Authorize(req); ok || reason != "" {
		t.Fatalf("after revoking the RoleBinding: allowed=%v reason=%q, want denied with no reason", ok, reason)
	}
	r.roleBindings = []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))}
	r.roles[0].Rules = nil
	if ok, _ := a.Authorize(req); ok {
		t.Fatal("update allowed after the Role lost its rules")
	}
}

func TestMissingRoleSurfacesInTheDenialReason(t *testing.T) {
	// rule.go GetRoleReferenceRules returns the lister's NotFound error
	// (client-go listers: resource "role"/"clusterrole" of rbac.authorization.k8s.io);
	// rbac.go reports "RBAC: <aggregate>"; the union prefixes its authorizer name.
	r := &staticRules{
		roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "gone", sa("ns", "sa"))},
	}
	a := New(r)
	req := saRequest("get", "", "configmaps", "", "ns", "cm")
	ok, reason := a.Authorize(req)
	if want := `rbac: RBAC: role.rbac.authorization.k8s.io "gone" not found`; ok || reason != want {
		t.Errorf("Authorize = %v, %q; want false, %q", ok, reason, want)
	}
	want := `configmaps "cm" is forbidden: User "system:serviceaccount:ns:sa" cannot get resource "configmaps" in API group "" in the namespace "ns": rbac: RBAC: role.rbac.authorization.k8s.io "gone" not found`
	if got := Forbidden(req, reason).Error(); got != want {
		t.Errorf("Forbidden:\n got %s\nwant %s", got, want)
	}

	// Several errors aggregate as "[a, b]" (apimachinery util/errors), in visiting order.
	r.clusterRoleBindings = []*rbacv1.ClusterRoleBinding{clusterRoleBinding("crb", "missing", sa("ns", "sa"))}
	_, reason = a.Authorize(req)
	if want := `rbac: RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "gone" not found]`; reason != want {
		t.Errorf("reason = %q, want %q", reason, want)
	}

	// A resolution error does not prevent another binding from allowing.
	r.clusterRoles = []*rbacv1.ClusterRole{clusterRole("view", rule(list("get"), list(""), list("configmaps")))}
	r.clusterRoleBindings = append(r.clusterRoleBindings, clusterRoleBinding("crb2", "view", sa("ns", "sa")))
	if ok, _ := a.Authorize(req); !ok {
		t.Error("denied although crb2 grants get configmaps")
	}

	// A binding that does not name the user is never resolved, so its missing role is not reported.
	r.clusterRoleBindings = nil
	r.roleBindings = []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "gone", sa("ns", "someone-else"))}
	if _, reason := a.Authorize(req); reason != "" {
		t.Errorf("reason = %q, want empty", reason)
	}
}

func TestSystemMastersHasNoReason(t *testing.T) {
	ok, reason := New(&staticRules{}).Authorize(Attributes{User: "admin", Groups: []string{SystemMasters}, Verb: "get", Resource: "secrets", Namespace: "ns", Name: "s"})
	if !ok || reason != "" {
		t.Errorf("Authorize = %v, %q; want true, \"\"", ok, reason)
	}
}

func TestForbiddenMessage(t *testing.T) {
	// k8s.io/apiserver pkg/endpoints/handlers/responsewriters/errors.go
	// forbiddenMessage + ForbiddenStatusError, and apimachinery NewForbidden.
	for _, tc := range []struct {
		name   string
		attrs  Attributes
		reason string
		want   string
	}{
		{
			name:  "named request in a namespace",
			attrs: saRequest("get", "", "configmaps", "", "ns", "cm"),
			want:  `configmaps "cm" is forbidden: User "system:serviceaccount:ns:sa" cannot get resource "configmaps" in API group "" in the namespace "ns"`,
		},
		{
			name:  "create has no name",
			attrs: saRequest("create", "", "configmaps", "", "ns", ""),
			want:  `configmaps is forbidden: User "system:serviceaccount:ns:sa" cannot create resource "configmaps" in API group "" in the namespace "ns"`,
		},
		{
			name:  "cluster scope: list across all namespaces",
			attrs: saRequest("list", "", "configmaps", "", "", ""),
			want:  `configmaps is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "configmaps" in API group "" at the cluster scope`,
		},
		{
			name:  "cluster-scoped named resource",
			attrs: saRequest("get", "rbac.authorization.k8s.io", "clusterroles", "", "", "edit"),
			want:  `clusterroles.rbac.authorization.k8s.io "edit" is forbidden: User "system:serviceaccount:ns:sa" cannot get resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`,
		},
		{
			name:  "a Namespace object is requested in its own namespace",
			attrs: saRequest("delete", "", "namespaces", "", "team-a", "team-a"),
			want:  `namespaces "team-a" is forbidden: User "system:serviceaccount:ns:sa" cannot delete resource "namespaces" in API group "" in the namespace "team-a"`,
		},
		{
			name:  "the qualified resource carries the group, the message the subresource",
			attrs: saRequest("update", "apps", "deployments", "status", "ns", "d"),
			want:  `deployments.apps "d" is forbidden: User "system:serviceaccount:ns:sa" cannot update resource "deployments/status" in API group "apps" in the namespace "ns"`,
		},
		{
			name:   "a reason is appended",
			attrs:  saRequest("patch", "rbac.authorization.k8s.io", "rolebindings", "", "ns", "rb"),
			reason: `rbac: RBAC: clusterrole.rbac.authorization.k8s.io "edit" not found`,
			want:   `rolebindings.rbac.authorization.k8s.io "rb" is forbidden: User "system:serviceaccount:ns:sa" cannot patch resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "ns": rbac: RBAC: clusterrole.rbac.authorization.k8s.io "edit" not found`,
		},
		{
			name:  "HTML-sensitive characters are escaped",
			attrs: Attributes{User: "a<b>&c", Verb: "get", Resource: "pods", Namespace: "ns", Name: "p"},
			want:  `pods "p" is forbidden: User "a&lt;b&gt;&amp;c" cannot get resource "pods" in API group "" in the namespace "ns"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Forbidden(tc.attrs, tc.reason)
			if err.Error() != tc.want {
				t.Errorf("message:\n got %s\nwant %s", err.Error(), tc.want)
			}
			if !apierrors.IsForbidden(err) {
				t.Errorf("apierrors.IsForbidden(%v) = false", err)
			}
			st := err.Status()
			if st.Code != http.StatusForbidden || st.Reason != metav1.StatusReasonForbidden || st.Status != metav1.StatusFailure {
				t.Errorf("status = %d %s %s", st.Code, st.Reason, st.Status)
			}
			d := st.Details
			if d == nil || d.Group != tc.attrs.APIGroup || d.Kind != tc.attrs.Resource || d.Name != tc.attrs.Name {
				t.Errorf("details = %+v, want group %q kind(resource) %q name %q", d, tc.attrs.APIGroup, tc.attrs.Resource, tc.attrs.Name)
			}
		})
	}
}

func TestDeniedRequestEndToEnd(t *testing.T) {
	// What a controller whose RoleBinding lacks "update" sees from the apiserver model.
	r := &staticRules{
		roles:        []*rbacv1.Role{role("ns", "r", rule(list("get", "list", "watch"), list(""), list("configmaps")))},
		roleBindings: []*rbacv1.RoleBinding{roleBinding("ns", "rb", "Role", "r", sa("ns", "sa"))},
	}
	req := saRequest("update", "", "configmaps", "", "ns", "cm")
	ok, reason := New(r).Authorize(req)
	if ok {
		t.Fatal("update allowed by a read-only Role")
	}
	err := Forbidden(req, reason)
	want := `configmaps "cm" is forbidden: User "system:serviceaccount:ns:sa" cannot update resource "configmaps" in API group "" in the namespace "ns"`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("got %v (forbidden=%v), want %s", err, apierrors.IsForbidden(err), want)
	}
}

// TestGrantsAreAdditive: RBAC has no deny rules (rbac.go: "rules are deny by
// default"), so adding a binding never turns an allowed request into a
// denied one, and a request no binding names the user in is always denied.
func TestGrantsAreAdditive(t *testing.T) {
	words := func(ws ...string) *rapid.Generator[[]string] {
		return rapid.SliceOfN(rapid.SampledFrom(ws), 1, 2)
	}
	genRule := rapid.Custom(func(t *rapid.T) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{
			Verbs:         words("*", "get", "list", "update").Draw(t, "verbs"),
			APIGroups:     words("*", "", "apps").Draw(t, "groups"),
			Resources:     words("*", "configmaps", "deployments", "deployments/status", "*/status").Draw(t, "resources"),
			ResourceNames: rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b"}), 0, 1).Draw(t, "names"),
		}
	})
	genSubject := rapid.SampledFrom([]rbacv1.Subject{sa("ns", "sa"), sa("", "sa"), sa("other", "sa"),
		group("system:serviceaccounts"), group("system:masters"), user("alice")})
	genAttrs := rapid.Custom(func(t *rapid.T) Attributes {
		return saRequest(
			rapid.SampledFrom([]string{"get", "list", "update", "create"}).Draw(t, "verb"),
			rapid.SampledFrom([]string{"", "apps"}).Draw(t, "group"),
			rapid.SampledFrom([]string{"configmaps", "deployments"}).Draw(t, "resource"),
			rapid.SampledFrom([]string{"", "status"}).Draw(t, "subresource"),
			rapid.SampledFrom([]string{"", "ns", "other"}).Draw(t, "namespace"),
			rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "name"))
	})
	addBinding := func(t *rapid.T, r *staticRules, label string) {
		subjects := rapid.SliceOfN(genSubject, 1, 2).Draw(t, label+"/subjects")
		rules := rapid.SliceOfN(genRule, 1, 2).Draw(t, label+"/rules")
		name := fmt.Sprintf("%s-%d", label, len(r.clusterRoles)+len(r.roles))
		switch rapid.IntRange(0, 2).Draw(t, label+"/kind") {
		case 0:
			r.clusterRoles = append(r.clusterRoles, clusterRole(name, rules...))
			r.clusterRoleBindings = append(r.clusterRoleBindings, clusterRoleBinding(name, name, subjects...))
		case 1:
			ns := rapid.SampledFrom([]string{"ns", "other"}).Draw(t, label+"/ns")
			r.clusterRoles = append(r.clusterRoles, clusterRole(name, rules...))
			r.roleBindings = append(r.roleBindings, roleBinding(ns, name, "ClusterRole", name, subjects...))
		default:
			ns := rapid.SampledFrom([]string{"ns", "other"}).Draw(t, label+"/ns")
			r.roles = append(r.roles, role(ns, name, rules...))
			r.roleBindings = append(r.roleBindings, roleBinding(ns, name, "Role", name, subjects...))
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		r := &staticRules{}
		for i := range rapid.IntRange(0, 3).Draw(t, "bindings") {
			addBinding(t, r, fmt.Sprintf("b%d", i))
		}
		attrs := genAttrs.Draw(t, "request")
		a := New(r)
		before, _ := a.Authorize(attrs)
		addBinding(t, r, "extra")
		if after, _ := a.Authorize(attrs); before && !after {
			t.Fatalf("adding a binding revoked %+v", attrs)
		}
		r.clusterRoleBindings, r.roleBindings = nil, nil
		if ok, reason := a.Authorize(attrs); ok || reason != "" {
			t.Fatalf("without bindings: allowed=%v reason=%q", ok, reason)
		}
	})
}
