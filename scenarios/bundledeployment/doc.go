// Package bundledeployment is the world, the specs and the catalogue entries of
// seed 1 (rukpak PR #596, "fix: bundledeployment install failures should
// eventually settle"; docs/SEEDS.md, docs/seeds/000_297ef58f3d24d948.txt).
//
// The world (Test, operatortest.go, written with the public operatortest
// API): rukpak running the reference BundleDeployment controller
// (controllers/bundledeployment) of one variant as cluster admin, beside
// operatortest's kube-controller-manager, whose namespace controller keeps a
// deleted Namespace Terminating at least Options.Termination (T_term,
// default 8s; operatortest.Options.NamespaceTermination); the release
// namespace rukpak-system; and the cluster-scoped BundleDeployment example,
// plus Options.Failing more. Bundles are served by image reference
// (Content): broken (Namespace n, ConfigMap n/config and a Deployment whose
// annotation key is invalid, which the API server refuses: the
// deterministic root cause), v1 (Namespace and ConfigMap) and v2 (v1 plus
// Namespace n-extra, ConfigMap n-extra/extra and the invalid Deployment).
// The broken BundleDeployments are a user's, applied by a domain step as
// time starts (a seed object would say the test's own world is broken);
// the domain steps:
//
//	at 0s apply-broken                             the user applies the broken BundleDeployments
//	at 20s upgrade bd=example bundle=v2            change the template's image reference
//	at 30s create-bundledeployment name=healthy bundle=v1
//
// The dependent watches rukpak adds after a successful install are registered
// up front for Namespace, ConfigMap and Deployment behind a gate the
// reconciler's Watcher opens kind by kind, one gate per process incarnation.
//
// Entries (Entries, their text): bd/terminating-cleanup and bd/slow-cleanup
// (docs/design.md), bd/rollback-leaves-terminating (SEEDS.md (f)2 and (f)6)
// and bd/blocked-workers ((f)4, I5), with the properties SettledBackoff,
// RootCauseVisible (I1, I2) and InstalledWithin (I5); OnOperatortest gives
// each its test (TerminatingCleanup, ...), the release Secrets declared
// History. The specs (bundledeployment_test.go) replay plans on Test with
// operatortest.Replay and read the trace and the final state. Porting the
// entries made the generic oracles judge a controller that retries a
// failing install by undoing it (operatortest's doc: terminates,
// update-summaries' cycle pace, no-error-at-rest's errors of a failing
// cycle): after `hold process=rukpak kind=/v1/Namespace from=1ms
// until=30.002s` on rollback-leaves-terminating, the robust controller's
// last reconcile ended "waiting for the cleanup of a previous attempt:
// Namespace "example-extra" is being deleted" (it ignores its own cleanup's
// events and retries with back-off, which had grown past the rest of the
// run), where the fault-free run ended on the root cause: both are errors of
// the same failing cycle.
//
// # Known gaps
//
//   - The failure is an invalid object, not the seed's missing CRD kind: helm
//     (and models/helm) fail a kind the cluster does not serve while building
//     the manifest, before any release record exists, so nothing would be
//     uninstalled (TestTheFailureIsAnInvalidObjectNotAMissingKind).
//   - Nothing here deletes a BundleDeployment: the garbage collector and
//     the namespace controller only delete the content of terminating
//     namespaces (TestNoStepDeletesABundleDeployment).
//   - The fault profile leaves out crashes (a crash inside helm leaves a
//     pending-install record, seed 2's bug), API faults (a different root
//     cause) and faults of kube-controller-manager (T_term is a world option)
//     (TestTheEntriesDrawNoCrashesAPIFaultsOrFaultsOfKubeControllerManager).
//   - With zero API latency, a reconcile that requeues itself through its own
//     watch events at one instant never lets virtual time advance: bundles here
//     keep the content shared by v1 and v2 identical, so an upgrade and its
//     rollback patch nothing (a ConfigMap that differs would livelock buggy and
//     fixed at the upgrade's instant: each patch's event requeues the next
//     attempt)
//     (TestTheBundlesSharedContentIsIdenticalSoARollbackPatchesNothing).
package bundledeployment
