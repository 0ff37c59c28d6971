// Package clusterextension is the reference ClusterExtension controller of seed 2
// (operator-controller, "Handle interrupted helm releases in applier", #1776
// rebased as #1987): the ClusterExtensionReconciler with its helm applier
// (internal/operator-controller/controllers/clusterextension_controller.go and
// applier/helm.go), on the helm model (models/helm) and the catalog model
// (models/catalog). The ClusterExtension and ClusterCatalog Go types
// (olm.operatorframework.io/v1, cluster-scoped, status subresource) are in api.go.
//
// A reconcile adds the finalizer (and returns), reads the release history (the
// installed bundle is the newest deployed record), resolves a bundle from the
// catalog respecting upgrade edges from the installed version, and applies it:
// a dry-run install or upgrade decides NeedsInstall, NeedsUpgrade or Unchanged,
// then helm installs, upgrades or re-applies the release's objects (action client
// with WithFailureRollbacks(false)). Status (Installed, Progressing,
// status.install) and finalizers are written when they changed; For has no
// predicate, so status writes requeue. ClusterCatalog changes of the resolved
// image reference enqueue every ClusterExtension.
//
// Variants (Reconciler.Variant):
//   - Buggy (base 532c3067): a pending last record makes the dry-run upgrade fail
//     with "another operation (install/upgrade/rollback) is in progress"; the
//     reconcile errors with backoff forever.
//   - Fixed (#1987 head 6e652064, same as #1776's 4e0d40ac): a pending last record
//     is deleted ("removed pending release %q version %d metadata", an error so
//     the next reconcile re-detects the state). Its weaknesses stay: the next
//     reconcile re-resolves from the newest deployed record, so a newer version
//     published meanwhile is installed and the interrupted one never completed;
//     at CP-U3 deleting the record leaves no deployed record (status.install is
//     reset and resolution runs as for a fresh install); objects created only by
//     the aborted attempt are orphaned when the next render differs; a live
//     writer's pending record is deleted too.
//   - Robust (this project): the newest record names the operation in flight. A
//     pending one is marked failed (what helm does itself when an operation fails
//     in-process) instead of deleted, so the deployed record stays; then, while
//     the spec still admits the in-flight bundle, it is completed from the
//     record's own manifest (helm.ChartOf) before anything newer is resolved. A
//     pending record written after this process started is left alone for
//     PendingTimeout (another writer may be live).
//
// # Known gaps
//
//   - No image pulling, no registry+v1 to chart conversion, no preflights, no
//     pre-authorization, no managed-object watches (the content manager cache), no
//     deprecation conditions, no channels; the installer ServiceAccount of the
//     spec is not used: helm acts with the controller's own client
//     (TestAnExtensionInstallsWithTheControllersClientAndNoOtherConditions).
//   - Deleting a ClusterExtension only removes the finalizer; nothing is
//     uninstalled (TestDeletingAnExtensionUninstallsNothing).
//   - Release records live in the install namespace (helm's Secret driver), not in
//     the system namespace with operator-controller's chunked driver; custom
//     storage labels are kept in the record's data as the chunked driver does
//     (TestReleaseRecordsLiveInTheInstallNamespaceWithTheirLabelsInTheData).
//   - Robust's notion of a live writer is per process start; with several
//     replicas (leader election) another replica's pending record is only safe
//     once PendingTimeout has passed, and one written before this process
//     started is taken over at once
//     (TestAReplicaStartedAfterAPendingRecordTakesItOverAtOnce).
package clusterextension
