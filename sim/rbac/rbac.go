package rbac

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// SystemMasters is the privileged group: kube-apiserver puts an authorizer that
// allows every request of a member of this group in front of every other one
// (k8s.io/kubernetes pkg/kubeapiserver/authorizer/reload.go newForConfig,
// k8s.io/apiserver pkg/authorization/authorizerfactory NewPrivilegedGroups).
const SystemMasters = "system:masters"

// rbacAuthorizerName is the name of the RBAC authorizer in kube-apiserver's
// union chain. The union prefixes the reason of every authorizer that has no
// opinion with its name (k8s.io/apiserver pkg/authorization/union/union.go);
// --authorization-mode=RBAC names it "rbac"
// (pkg/kubeapiserver/authorizer GetNameForAuthorizerMode).
const rbacAuthorizerName = "rbac"

// Identity prefixes of ServiceAccount tokens
// (k8s.io/apiserver pkg/authentication/serviceaccount/util.go).
const (
	serviceAccountUsernamePrefix = "system:serviceaccount:"
	serviceAccountGroupPrefix    = "system:serviceaccounts:"
	allServiceAccountsGroup      = "system:serviceaccounts"
	allAuthenticatedGroup        = "system:authenticated"
)

// Attributes describe one resource request (cf.
// k8s.io/apiserver/pkg/authorization/authorizer.Attributes). Every request of
// the model is a resource request.
//
// The caller fills them as kube-apiserver's RequestInfoFactory does
// (k8s.io/apiserver pkg/endpoints/request/requestinfo.go):
//   - a request for a Namespace object itself (namespaces/<n>, and its status
//     and finalize subresources) has Namespace = Name = <n>, so RoleBindings in
//     <n> apply to it and its 403 says `in the namespace "<n>"`;
//   - list, watch and deletecollection have no Name, unless a field selector
//     metadata.name=<n> names one object, which then is the Name;
//   - a list or watch across all namespaces has Namespace "".
type Attributes struct {
	User        string   // e.g. "system:serviceaccount:ns:name"
	Groups      []string // e.g. "system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"
	Verb        string   // get list watch create update patch delete deletecollection
	APIGroup    string
	APIVersion  string
	Resource    string // plural, e.g. "configmaps"
	Subresource string // e.g. "status", "finalize"
	Namespace   string // "" for cluster-scoped requests
	Name        string // "" for create/list/deletecollection
}

// Rules gives the authorizer the live RBAC objects. The apiserver model
// implements it over its store. The authorizer only reads the objects.
type Rules interface {
	ClusterRoleBindings() []*rbacv1.ClusterRoleBinding // deterministic order
	RoleBindings(namespace string) []*rbacv1.RoleBinding
	ClusterRole(name string) *rbacv1.ClusterRole // nil when absent
	Role(namespace, name string) *rbacv1.Role    // nil when absent
}

// Authorizer is kube-apiserver's authorization chain for resource requests:
// the system:masters group authorizer, then the RBAC authorizer over Rules.
type Authorizer struct {
	rules Rules
}

// New returns an Authorizer that reads the live RBAC objects from r on every
// request, so a change to them applies to the next request.
func New(r Rules) *Authorizer {
	return &Authorizer{rules: r}
}

// Authorize decides one request as kube-apiserver's union authorizer does.
//
// When allowed, reason is the reason of the authorizer that allowed: "" for
// system:masters, "RBAC: allowed by <binding>" for RBAC. When denied, reason
// is what the chain reports and Forbidden appends to the 403 message: "" when
// no rule matched, or "rbac: RBAC: <errors>" when RBAC could not resolve some
// binding's role (e.g. `rbac: RBAC: role.rbac.authorization.k8s.io "r" not found`).
func (a *Authorizer) Authorize(attrs Attributes) (allowed bool, reason string) {
	// privilegedGroupAuthorizer.Authorize: no reason either way.
	if slices.Contains(attrs.Groups, SystemMasters) {
		return true, ""
	}
	allowed, reason = a.authorizeRBAC(attrs)
	if allowed {
		return true, reason
	}
	if reason != "" {
		reason = rbacAuthorizerName + ": " + reason
	}
	return false, reason
}

// authorizeRBAC is RBACAuthorizer.Authorize
// (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go).
func (a *Authorizer) authorizeRBAC(attrs Attributes) (bool, string) {
	var errs []error
	var allowedBy string
	a.visitRulesFor(attrs, func(source func() string, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil && RuleAllows(attrs, rule) {
			allowedBy = source()
			return false
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if allowedBy != "" {
		return true, "RBAC: allowed by " + allowedBy
	}
	if len(errs) > 0 {
		return false, fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs))
	}
	return false, ""
}

// visitRulesFor is DefaultRuleResolver.VisitRulesFor
// (k8s.io/kubernetes pkg/registry/rbac/validation/rule.go): the rules of every
// ClusterRoleBinding that applies to the user, then, for a namespaced request,
// those of every RoleBinding of the request's namespace that applies. A
// binding whose role cannot be resolved contributes an error instead of rules.
// The visitor stops the walk by returning false.
func (a *Authorizer) visitRulesFor(attrs Attributes, visit func(source func() string, rule *rbacv1.PolicyRule, err error) bool) {
	for _, crb := range a.rules.ClusterRoleBindings() {
		i, ok := appliesTo(attrs, crb.Subjects, "")
		if !ok {
			continue
		}
		rules, err := a.roleReferenceRules(crb.RoleRef, "")
		if err != nil {
			if !visit(nil, nil, err) {
				return
			}
			continue
		}
		source := func() string {
			return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s",
				crb.Name, crb.RoleRef.Kind, crb.RoleRef.Name, describeSubject(&crb.Subjects[i], ""))
		}
		for r := range rules {
			if !visit(source, &rules[r], nil) {
				return
			}
		}
	}
	if attrs.Namespace == "" {
		return
	}
	for _, rb := range a.rules.RoleBindings(attrs.Namespace) {
		i, ok := appliesTo(attrs, rb.Subjects, attrs.Namespace)
		if !ok {
			continue
		}
		rules, err := a.roleReferenceRules(rb.RoleRef, attrs.Namespace)
		if err != nil {
			if !visit(nil, nil, err) {
				return
			}
			continue
		}
		source := func() string {
			return fmt.Sprintf("RoleBinding %q of %s %q to %s",
				rb.Name+"/"+rb.Namespace, rb.RoleRef.Kind, rb.RoleRef.Name, describeSubject(&rb.Subjects[i], rb.Namespace))
		}
		for r := range rules {
			if !visit(source, &rules[r], nil) {
				return
			}
		}
	}
}

// roleReferenceRules is DefaultRuleResolver.GetRoleReferenceRules. A missing
// role is the NotFound error of kube-apiserver's informer listers
// (k8s.io/client-go listers/generic_helpers.go: the resource is the singular
// "role"/"clusterrole").
func (a *Authorizer) roleReferenceRules(ref rbacv1.RoleRef, bindingNamespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		role := a.rules.Role(bindingNamespace, ref.Name)
		if role == nil {
			return nil, apierrors.NewNotFound(rbacv1.Resource("role"), ref.Name)
		}
		return role.Rules, nil
	case "ClusterRole":
		role := a.rules.ClusterRole(ref.Name)
		if role == nil {
			return nil, apierrors.NewNotFound(rbacv1.Resource("clusterrole"), ref.Name)
		}
		return role.Rules, nil
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
	}
}

// appliesTo returns the index of the first subject that names the requesting
// user and whether there is one.
func appliesTo(attrs Attributes, subjects []rbacv1.Subject, namespace string) (int, bool) {
	for i := range subjects {
		if appliesToUser(attrs, &subjects[i], namespace) {
			return i, true
		}
	}
	return 0, false
}

func appliesToUser(attrs Attributes, s *rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return attrs.User == s.Name
	case rbacv1.GroupKind:
		return slices.Contains(attrs.Groups, s.Name)
	case rbacv1.ServiceAccountKind:
		// A RoleBinding's ServiceAccount subject without a namespace means the
		// binding's namespace; in a ClusterRoleBinding it matches nobody.
		saNamespace := namespace
		if s.Namespace != "" {
			saNamespace = s.Namespace
		}
		if saNamespace == "" {
			return false
		}
		return attrs.User == serviceAccountUsernamePrefix+saNamespace+":"+s.Name
	default:
		return false
	}
}

func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// RuleAllows reports whether rule allows the resource request attrs
// (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows and
// pkg/apis/rbac/v1/evaluation_helpers.go). "*" matches any verb, API group or
// resource; "*/sub" matches subresource sub of any resource; a rule with
// resourceNames matches only requests for one of those names, so never a
// create, list or deletecollection (they carry no name).
func RuleAllows(attrs Attributes, rule *rbacv1.PolicyRule) bool {
	combined := attrs.Resource
	if attrs.Subresource != "" {
		combined = attrs.Resource + "/" + attrs.Subresource
	}
	return verbMatches(rule, attrs.Verb) &&
		apiGroupMatches(rule, attrs.APIGroup) &&
		resourceMatches(rule, combined, attrs.Subresource) &&
		resourceNameMatches(rule, attrs.Name)
}

func verbMatches(rule *rbacv1.PolicyRule, verb string) bool {
	return slices.ContainsFunc(rule.Verbs, func(v string) bool { return v == rbacv1.VerbAll || v == verb })
}

func apiGroupMatches(rule *rbacv1.PolicyRule, group string) bool {
	return slices.ContainsFunc(rule.APIGroups, func(g string) bool { return g == rbacv1.APIGroupAll || g == group })
}

func resourceMatches(rule *rbacv1.PolicyRule, combined, subresource string) bool {
	for _, r := range rule.Resources {
		if r == rbacv1.ResourceAll || r == combined {
			return true
		}
		if subresource != "" && len(r) == len(subresource)+2 &&
			strings.HasPrefix(r, "*/") && strings.HasSuffix(r, subresource) {
			return true
		}
	}
	return false
}

func resourceNameMatches(rule *rbacv1.PolicyRule, name string) bool {
	return len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, name)
}

// ServiceAccountUser is the identity a pod's ServiceAccount token
// authenticates as: the user name of
// k8s.io/apiserver pkg/authentication/serviceaccount MakeUsername, the groups
// of MakeGroupNames, and system:authenticated, which kube-apiserver's
// AuthenticatedGroupAdder appends
// (k8s.io/apiserver pkg/authentication/group/authenticated_group_adder.go).
func ServiceAccountUser(namespace, name string) (user string, groups []string) {
	return serviceAccountUsernamePrefix + namespace + ":" + name,
		[]string{allServiceAccountsGroup, serviceAccountGroupPrefix + namespace, allAuthenticatedGroup}
}
