// Package reposync is the reference controller of Seed 4 (config-sync PR #1191,
// "Fix a race condition on reconciler finalizer removal", merged as
// 9e28c844beaa88c5bdce3c45bcc8d99f298d00e7, GoogleContainerTools/kpt-config-sync):
// config-sync's reconciler-manager (Manager, the RepoSync reconciler of
// pkg/reconcilermanager/controllers) and the per-RepoSync ns-reconciler
// (Finalizer, pkg/reconciler/finalizer; Syncer, standing for its parser and
// remediator), with the RepoSync custom resource (namespaced,
// configsync.gke.io/v1beta1).
//
// The reconciler-manager creates, for each RepoSync in namespace N, the
// ns-reconciler's ServiceAccount and Deployment in config-management-system and
// the shared RoleBinding in N; the ns-reconciler runs as that ServiceAccount
// (bound to that Deployment) and can write its RepoSync only through that
// RoleBinding. With the Foreground deletion policy the ns-reconciler holds the
// RepoSync with the configsync.gke.io/reconciler finalizer until it has
// destroyed what it applied. When N is deleted, the namespace controller
// deletes the RoleBinding and the RepoSync in some order; if the RoleBinding
// goes first, every write of the ns-reconciler's Finalize is forbidden.
//
// Variants (Manager.Variant; the ns-reconciler is the same in all three):
//   - Buggy (before 9e28c844b): the manager waits while the reconciler
//     finalizer is present, with no requeue: the RepoSync and N hang
//     Terminating forever.
//   - Fixed (9e28c844b): nsReconcilerFinalizerHandler: the manager reads N from
//     its cache and, if it is Terminating, removes the reconciler finalizer and
//     tears down. No Namespace watch, as upstream: a cache that still shows N
//     Active makes it wait, and nothing brings it back.
//   - Robust: reads N live; if N is terminating or gone, removes the reconciler
//     finalizer; if N is Active, keeps the ServiceAccount, RoleBinding and
//     Deployment in place so that the ns-reconciler can finish its Foreground
//     deletion (a revoked RoleBinding is put back); also watches Namespaces.
//
// Every reconciler takes time from an injected clock and has SetupWithManager
// for a real manager; scenarios/reposync registers the same watches and
// predicates in the simulator.
//
// # Known gaps
//
//   - RootSync, the root-reconciler, validation, Secrets and ConfigMaps copied
//     to config-management-system, helm sources, ResourceGroup inventories,
//     metrics and the reconciler Deployment's readiness (kstatus) are not
//     modelled
//     (TestTheManagerMakesOnlyTheServiceAccountRoleBindingAndDeployment).
//   - The reconciler Deployment is created or updated through the typed client
//     after a live Get; upstream applies it with server-side apply, which the
//     simulator does not serve
//     (TestTheReconcilerDeploymentIsWrittenWithoutServerSideApply).
//   - The ns-reconciler's Syncer only creates missing declared objects every
//     PollPeriod; there is no git, no parser, no remediator watch and no drift
//     correction. Its Destroyer deletes the declared objects one by one with
//     Source.Latency each, ignoring depends-on ordering (cli-utils)
//     (TestTheSyncerCorrectsNoDriftAndTheDestroyerKeepsNoDependsOnOrder).
//   - The ns-reconciler adds its finalizer for Foreground and removes it for
//     Orphan, as config-sync did when the seed was written; later releases
//     keep it for Orphan too
//     (TestTheFinalizerIsAddedForForegroundAndRemovedForOrphan).
//   - withRetry (mutate.Spec/Status) sleeps 10ms between attempts without
//     jitter (TestWithRetrySleeps10msBetweenAttemptsWithoutJitter).
package reposync
