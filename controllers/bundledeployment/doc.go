// Package bundledeployment is the reference BundleDeployment controller of seed
// 1 (rukpak "fix: bundledeployment install failures should eventually settle",
// https://github.com/operator-framework/rukpak/pull/596, closed unmerged; base
// ae6e7551, fix 5c848f6e): the bundledeploymentProvisioner of
// internal/provisioner/bundledeployment/bundledeployment.go with the plain
// provisioner's flow, on the helm model (models/helm) and its ActionClient
// (helm-operator-plugins pkg/client/actionclient.go, with #196's
// AppendInstallFailureUninstallOptions / AppendUpgradeFailureRollbackOptions).
// The BundleDeployment Go type (core.rukpak.io/v1alpha1, cluster-scoped, status
// subresource) is in api.go.
//
// A reconcile reads the BundleDeployment from the cache, reconciles a copy and
// writes the status when it changed (then, as upstream, an Update of the rest,
// which the status write's new resourceVersion always triggers and the API
// server turns into a no-op). reconcile sets status.observedGeneration, loads
// the bundle (HasValidBundle True/UnpackSuccessful), makes a chart of it
// (labels replaced by core.rukpak.io/owner-kind and owner-name, the
// BundleDeployment as controller owner), and runs getReleaseState: no release is
// NeedsInstall; else a dry-run upgrade whose manifest differs, or a current
// release failed or superseded, is NeedsUpgrade; else Unchanged. Install,
// Upgrade or Reconcile follow; a failure sets Installed=False with reason
// InstallFailed, UpgradeFailed, ReconcileFailed or ErrorGettingReleaseState and
// message err.Error() (NotFound and no-kind-match errors wrapped as "required
// resource not found: ..."), and is returned (rate-limited requeue). Success
// starts a dependent watch per kind of the release (EnqueueRequestForOwner with
// IsController, DependentPredicate: deletes and non-status updates, a new
// deletionTimestamp included) and sets Installed=True/InstallationSucceeded and
// status.activeBundle.
//
// Variants (Reconciler.Variant):
//   - Buggy (ae6e755): the action client uninstalls after a failed install and
//     rolls back after a failed upgrade, without waiting; For has only the
//     provisioner filter (every status write enqueues the BundleDeployment); one
//     worker; controller-runtime's default rate limiter. A Namespace the
//     uninstall deleted is still Terminating when the status write's event runs
//     attempt 2, which fails "because it is being terminated", writes that, and
//     attempt 3 fails the same without a write: three reconciles per backoff
//     firing, the transient error shown in between.
//   - Fixed (#596, 5c848f6): the uninstall and the rollback wait (Wait=true,
//     Timeout=CleanupTimeout, 30s); MaxConcurrentReconciles runtime.NumCPU(),
//     FixedWorkers (4) here. Its weaknesses stay: a cleanup longer than 30s
//     times out with a different message ("uninstall failed: ... timed out
//     waiting for the condition: original install error: ...") and the cascade
//     returns; the rollback waits for the target's readiness, not for the
//     deletion of what only the failed upgrade had; deletion events of owned
//     objects still requeue at once; each failed attempt parks a worker.
//   - Robust (this project): GenerationChangedPredicate on For (status writes do
//     not requeue); failure rollbacks done by the reconciler itself, without
//     waiting, recording the deletions they make (expectations) so that the
//     dependent watches ignore the events of its own cleanup; no install or
//     upgrade while an object of the chart, or a namespace it lives in, is still
//     being deleted (an error without a status change: the rate limiter paces the
//     retries, no worker waits); the Installed message is always the attempt's
//     own error, and a transient one (NamespaceTerminating, "object is being
//     deleted", a wait timeout, a conflict) never replaces a failure already
//     shown; a rate limiter starting at RobustBaseDelay (1s) instead of 5ms.
//
// SetupWithManager registers the controller on a manager, adding the dependent
// watches with controller.Watch; a host that cannot add watches to a running
// controller sets Reconciler.Watcher and registers the watches up front (the
// simulator's scenario does so behind a gate).
//
// # Known gaps
//
//   - No Bundle objects, no unpacking, no bundle provisioner, no Bundle watch:
//     Storage.Load returns the content of the template's image reference at
//     once, so HasValidBundle is always True/UnpackSuccessful and old Bundles are
//     not garbage-collected (reconcileOldBundles)
//     (TestTheBundleIsValidAtTheFirstReconcileWithNoBundleObject).
//   - No post-renderers, values or notes: the chart is the bundle's objects with
//     the owner labels and owner reference set here (rukpak's postrenderer and
//     helm-operator-plugins' owner-ref post-renderer)
//     (TestAnInstalledObjectIsTheBundlesWithOnlyTheOwnerLabelsAndReference).
//   - No finalizers and no deletion handling of BundleDeployments; no
//     spec.config; the provisioner class of the template is not checked
//     (TestABundleDeploymentGetsNoFinalizerAndAnyTemplateClassIsInstalled).
//   - The dynamic watch set lives in the Reconciler, as upstream's does in the
//     provisioner: it is lost on restart and rebuilt by the next successful
//     install
//     (TestTheDynamicWatchesAreForgottenAtARestartAndRebuiltByTheNextInstall).
//   - Robust's expectations are in memory (lost on restart, like the watches they
//     filter) and keyed by kind, namespace and name; an expected deletion that a
//     user re-creates before the deletion event arrives is ignored once
//     (TestAnExpectationIsKeyedByNameSoARecreatedObjectsDeletionIsIgnoredOnce).
package bundledeployment
