// Package envtestenv runs reference controllers on a real kube-apiserver:
// controller-runtime's envtest (etcd and kube-apiserver built by `make
// envtest-assets`) with RBAC authorization, custom resources whose CRDs are
// derived from their Go types, and real controller-runtime managers running the
// controllers' own SetupWithManager, with models/kube's namespace controller
// standing in for kube-controller-manager so that deleted namespaces finish
// terminating. The ginkgo suites controllers/<noun>/envtest_test.go use it.
//
//   - Assets and Require find KUBEBUILDER_ASSETS; Require skips a test without
//     it, or fails it under CI=true.
//   - Start starts envtest (checking with a SubjectAccessReview that RBAC is
//     enforced) and installs CRDs; CRD.Definition and SchemaOf build a
//     structural schema from a Go type by reflection, as controller-gen would
//     from its json tags.
//   - Env.StartManager runs a manager in the background (as the admin, or
//     impersonating a user such as a ServiceAccount, optionally with a cache
//     restricted to some namespaces) until Manager.Stop;
//     Env.StartNamespaceController runs models/kube's NamespaceController;
//     DeleteNamespace deletes a namespace and waits until it is gone;
//     Env.WaitAllowed waits until the authorizer has seen an RBAC write.
//   - Recorder wraps a controller's client and records each write with the
//     server's answer (the simulator's trace, for a real server).
//   - Promotions is models/promotion's System made safe for a real manager's
//     goroutines (one lock around every call and every applied effect).
//   - cmd/ctrlsim/internal/promobench uses all of these to time one scripted pipeline
//     promotion on envtest and on the simulator, for `ctrlsim bench`'s
//     speedup_vs_envtest.
//
// Everything here runs on the wall clock and starts goroutines (managers,
// timers): it is test infrastructure, not part of the deterministic kernel.
//
// # Known gaps
//
//   - envtest runs no kube-controller-manager: besides the namespace
//     controller started here, there is no garbage collector (owned objects
//     outlive their owners unless their namespace is deleted), no Deployment or
//     ReplicaSet controller (no Pods), no ServiceAccount token or
//     root-CA controllers
//     (TestAnEnvStartsNoControllerButTheNamespaceController).
//   - The namespace controller deletes only the kinds it is given (no
//     discovery), as in the simulator
//     (TestTheNamespaceControllerDeletesOnlyTheKindsItIsGiven).
//   - CRD schemas have no required fields, defaults, enums, patterns, list
//     types or validation rules: controller-gen would add the markers' and
//     non-omitempty fields' constraints. They prune unknown fields and check
//     types only (TestSchemaOfFollowsTheJSONForm).
//   - Impersonation stands in for a ServiceAccount's token: the identity and
//     groups are the same, the authentication path is not
//     (TestAUserIsImpersonatedNotAuthenticatedByAToken).
package envtestenv
