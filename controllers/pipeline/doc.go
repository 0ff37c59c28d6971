// Package pipeline is the reference reconciler of Seed 5 (004): weaveworks
// pipeline-controller's level-triggered Pipeline reconciler
// (controllers/leveltriggered/controller.go), with its API types (Pipeline,
// pipelines.weave.works/v1alpha1, as of PR #214 "Usually once promotions", head
// ed4cfb2d, branch 197-reliable-promotions, not merged), the slice of Flux's
// HelmRelease it reads, and the robust variant's PromotionClaim.
//
// A reconcile reads the Pipeline and each target's app from the cache, patches the
// status (fluxcd patch.SerialPatcher: a status merge patch with no
// resourceVersion precondition), takes the revision all first-environment
// targets run, and promotes it to the first later environment that does not run
// it yet, through a Promoter that is not idempotent.
//
// Variants:
//   - Buggy: f852a075 (the promotion is recorded in
//     status.environments[env].promotion and a record of the revision stops a
//     second promotion) with main's wiring: For(&Pipeline{}) with no predicate, and
//     no requeue when targets are unreadable. The reconcile that its own status
//     patches requeue reads a cache without the record and promotes again. With
//     PreRecord it is main@2ca1d66 before the PR: no record at all, a target at the
//     revision counts as "in progress", and a promotion error is returned (so
//     retried by the workqueue).
//   - Fixed: PR #214 as on its branch: record and check (9244c67d),
//     GenerationChangedPredicate on the Pipeline watch, Requeue when not ready
//     (ed4cfb2d). A failed promotion is recorded with succeeded=false and, since
//     the check compares only the revision, never retried.
//   - Robust: the "create Promotion objects and guard promotions by trying to
//     create" design PR #214 names: a PromotionClaim named after (pipeline,
//     environment, revision) is created before Promote; AlreadyExists stops
//     everyone else. The outcome is written to the claim; a failure is retried
//     after a backoff (30s doubling to 10m) through an Update of the claim with the
//     resourceVersion it was read with (a stale claim gets 409 and does not
//     promote). A claim whose outcome was never written (a crash after Promote) is
//     settled after InDoubtAfter by asking the Promoter whether it took effect
//     (Prober); a Promoter without Prober leaves it in doubt, never promoted again.
//     An environment that already runs the revision gets the promotion recorded
//     from its claim, the claim settled if in doubt (recordDone): the end state
//     of a run without the crash.
//
// Time comes from the injected Clock (status times, claim backoff). App events
// reach the controller through Watches(HelmRelease, RequestsForApp), which maps an
// app to its pipelines through the AppIndex field index of the Cache.
//
// SetupWithManager is the one wiring: it runs on a real manager in the envtest
// suite (envtest_test.go) and on the simulator's manager in scenarios/pipeline.
// It picks client-go's classic queue, which the seed's controller ran on.
//
// # Known gaps
//
//   - Local targets only: GitopsCluster, remote clusters and their per-cluster
//     caches are not modelled (a target with a clusterRef is unready). Upstream
//     reads targets as unstructured objects through caches it starts per cluster
//     and kind and delivers their events on a channel source; here the app kind
//     must be a typed kind of the scheme, read through the manager's cache, and
//     only HelmRelease is watched
//     (TestARemoteTargetIsUnreadyAndAnUntypedAppKindUnreadable).
//   - The patch helper is reduced to what the controller uses: status-only merge
//     patches; fluxcd's separate, conflict-retrying patch of conditions (for
//     objects implementing its conditions.Setter, which Pipeline does not) and
//     field owners are not modelled. Events (the EventRecorder) are not emitted
//     (TestStatusIsWrittenByMergePatchesWithNoFieldOwnerOrConflictRetry).
//   - Promotion strategies (pull request, notification) are one Promoter; the
//     strategy registry and the per-strategy results (pull-request URL in the
//     record) are not modelled
//     (TestEveryStrategyIsOnePromoterAndTheRecordHoldsNoStrategyResult).
package pipeline
