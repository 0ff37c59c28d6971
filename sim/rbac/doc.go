// Package rbac is the authorizer of the apiserver model: kube-apiserver's
// authorization chain for resource requests, evaluated against the live
// Role, ClusterRole, RoleBinding and ClusterRoleBinding objects.
//
// Contract:
//   - Authorize decides one request as kube-apiserver configured with
//     --authorization-mode=RBAC does: members of system:masters are always
//     allowed (the privileged group authorizer comes first in the chain);
//     otherwise the request is allowed iff some rule of some binding that
//     names the user allows it (k8s.io/kubernetes
//     plugin/pkg/auth/authorizer/rbac/rbac.go and
//     pkg/registry/rbac/validation/rule.go). ClusterRoleBindings are visited
//     first, then the RoleBindings of the request's namespace; a RoleBinding
//     may refer to a ClusterRole, which then grants only in that namespace.
//   - Subjects match as upstream: User by name, Group by membership,
//     ServiceAccount by "system:serviceaccount:<ns>:<name>", where an empty
//     subject namespace means the RoleBinding's namespace (and matches nobody
//     in a ClusterRoleBinding). A subject's apiGroup is not checked.
//   - Rules match as upstream: "*" for verbs, apiGroups and resources,
//     "*/<sub>" for a subresource of any resource, "<res>/<sub>" for one
//     subresource; resourceNames restrict a rule to requests for those names,
//     so such a rule never allows create, list, watch of a collection or
//     deletecollection.
//   - Rules are read on every request: creating, changing or deleting a
//     binding or role changes the decision of the next request.
//   - A binding whose role is missing grants nothing and surfaces in the
//     denial reason, as the union authorizer reports it:
//     `rbac: RBAC: role.rbac.authorization.k8s.io "r" not found`.
//   - Forbidden builds the exact 403 StatusError of the real handler
//     (k8s.io/apiserver pkg/endpoints/handlers/responsewriters/errors.go).
//   - ServiceAccountUser is the identity a pod's ServiceAccount token
//     authenticates as.
//
// Known gaps:
//   - No aggregated ClusterRoles: an aggregationRule is not evaluated (upstream
//     the clusterrole-aggregation controller writes the aggregated rules into
//     the ClusterRole; here only the rules stored in the object count)
//     (TestAnAggregationRuleGrantsNothing).
//   - No bootstrap policy: cluster-admin, system:basic-user, system:discovery,
//     the controller roles etc. exist only if the Rules provide them
//     (TestClusterAdminExistsOnlyIfTheRulesHoldIt).
//   - No non-resource URLs (/healthz, /version, discovery paths), no Node,
//     ABAC or webhook authorizers, no impersonation, no anonymous requests,
//     no field/label selector authorization attributes
//     (TestARequestIsAResourceRequestOnly).
//   - No escalation prevention: the RBAC registry's "attempt to grant extra
//     privileges" check on writes of Roles and bindings
//     (pkg/registry/rbac/*/policybased) is not part of this package, nor of
//     the apiserver model
//     (sim/apiserver.TestARoleThatGrantsMoreThanItsWriterHasIsWritten).
//   - No propagation delay: kube-apiserver authorizes from its own informer
//     cache, so a revoked binding still grants for a short while; here the
//     change applies to the very next request
//     (TestRevokingABindingDeniesTheNextRequest).
//   - Order: upstream lists RoleBindings from an informer index in no defined
//     order; here the order is the one Rules returns. It only shows in which
//     binding the "allowed by" reason names and in the order of resolution
//     errors in a denial reason
//     (TestTheAllowingBindingIsTheFirstInTheOrderRulesGives).
package rbac
