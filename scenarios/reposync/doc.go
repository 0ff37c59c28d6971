// Package reposync binds Seed 4 (config-sync #1191) into a simulated cluster
// and holds its specs.
//
// The world (Test, operatortest.go, written with the public operatortest
// API) has three kinds of processes:
//   - kube-controller-manager, a manager of the test (not operatortest's
//     built-in one: NoBuiltinControllers), as cluster admin: models/kube's
//     namespace controller (over ConfigMaps, Secrets, ServiceAccounts,
//     Roles, RoleBindings, Deployments and RepoSyncs) and garbage collector;
//   - reconciler-manager, as ServiceAccount config-management-system/reconciler-manager
//     with cluster-wide rights: controllers/reposync.Manager in the chosen
//     variant;
//   - one ns-reconciler per RepoSync namespace, the pod of its Deployment
//     config-management-system/ns-reconciler-<ns> (operatortest.Manager.Deployment,
//     StartDelay 2s: it runs only while the manager keeps that Deployment)
//     and running as the ServiceAccount of the same name, whose rights come
//     from the shared RoleBinding in <ns> (RepoSyncs) and from a user
//     RoleBinding, ns-reconciler-configmaps (the declared ConfigMaps).
//
// Each namespace starts with a RepoSync "repo-sync" with the Foreground
// deletion policy. The namespace controller's deletion order and pace come
// from the System namespace-deletion: a delete-namespace step sets them
// (first=, pace=), the plan's seed draws them otherwise. Steps:
//
//	at 30s delete-namespace ns=bookstore [first=RoleBinding,RepoSync] [pace=300ms]
//	at 30s delete-reposync ns=bookstore
//	at 30s revoke-rolebinding ns=bookstore [name=<RoleBinding>]   (default: the shared one)
//
// Faults name the processes kube-controller-manager, reconciler-manager and
// ns-reconciler-<ns>, and kinds such as /v1/Namespace and
// configsync.gke.io/v1beta1/RepoSync.
//
// The catalogue runs the entries (Entries, their text) as the tests
// NamespaceDeleted, NamespaceDeletedStaleCache and RoleBindingRevoked: the
// RoleBinding revoked is a domain step drawn within 3 s After the
// RepoSync's deletion; the property deletion-completes is check.Terminates,
// absolute beside the generic, differential terminates (the bug shows with
// no fault). The specs (reposync_test.go) replay their plans on Test with
// operatortest.Replay and read the trace and the final state; the namespace
// controller's and garbage collector's own specs are operatortest/kubeworld's
// namespace_gc_test.go.
//
// # Known gaps
//
//   - No kube-scheduler or kubelet: the ns-reconciler starts 2s after its
//     Deployment appears (process.Spec.StartDelay) and stops when it goes
//     (TestTheNsReconcilerRunsTwoSecondsAfterItsDeploymentAndStopsWhenItGoes).
//   - The namespace controller discovers only the kinds listed above
//     (TestTheNamespaceControllerDiscoversOnlyTheListedKinds).
//   - The entries' plans draw no
//     crashes: a crash planned at a client call that a process makes outside
//     a reconcile (an event handler's cached List) leaves the
//     process running on a stopped cache and never restarts it (a sim/process
//     gap), which would make every variant hang (TestTheEntriesDrawNoCrashes).
//   - A warm but stale Namespace cache in the reconciler-manager comes only
//     from a hold that starts before the deletion (the first cached Get starts
//     the informer with a fresh list); plans draw such holds rarely (about 3%
//     of plans catch the fixed variant)
//     (TestAColdNamespaceCacheListsFreshSoALagAloneDoesNotCatchFixed).
package reposync
