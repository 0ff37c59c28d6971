// Package pipeline is the world of Seed 5 (004), weaveworks/pipeline-controller
// PR #214 "Usually once promotions": the pipeline controller (process
// "pipeline-controller", package controllers/pipeline), the external promotion
// system (models/promotion), the apps of three environments (dev, staging, prod:
// one HelmRelease "podinfo" each, all at v1) and the Pipeline default/podinfo,
// created at the start.
//
// Workload actions (plan steps):
//
//	at 1s create-pipeline name=other          another pipeline of the same app
//	at 10s publish version=v2 [env=dev]       Flux deploys v2 to the first environment
//	at 11s app-event env=dev                  helm-controller reconciles the app again (same revision)
//	at 12s app-ready env=staging ready=false  the app's Ready condition
//	at 0s promotion-fails env=staging version=v2 count=1   the next attempts fail with no effect
//	at 11s edit-pipeline branch=release       a spec change (generation bump)
//
// The promotion system's attempts and effects are trace steps of process
// "promotion" (Op "promote", Result "ok" or "error: ..."; Op
// "promotion-applied"), so that Properties (at-most-once over the effects,
// retried-after-failure) judge a run from its trace and final state alone. A spec
// that reads the promotion system's in-memory ledger passes its own system in
// Options.Promotion.
//
// The specs (pipeline_test.go) pin each variant's behaviour on hand-written plans:
// buggy promotes twice under the self-status race (even with no lag configured, as
// upstream saw "almost always"); fixed survives it but not an app event racing the
// record, never retries a failed promotion, and promotes again after a crash
// between Promote and the record; robust promotes exactly once in all of these and
// retries failures.
//
// OnOperatortest is the four entries written with the public operatortest API
// (operatortest.go), which the catalogue runs in place of Entries(): the
// promotion system is an operatortest.System (named "promotion", tracing its
// attempts and effects through SystemEnv.Trace, so that Properties judge the
// run unchanged), publish and app-event are domain steps (publish in every
// plan: DomainStep.Min), promotion-fails is the promotion system's own
// fault, the apps are seed objects with their Ready status, and the generic
// oracles judge beside Properties. The robust claim's status.attempts is
// declared nondeterministic (a crash in doubt makes an attempt more).
//
// # Known gaps
//
//   - The ports run a plan in about 50-70 ms of wall time (the kernel's
//     explorer: about 7 ms): the fault-free reference runs the generic
//     oracles compare with, and a 30 min heal budget.
//   - create-pipeline, app-ready and edit-pipeline are actions of the
//     kernel's world only; no entry draws them.
//   - Every environment has one local target; there are no remote clusters.
//   - Flux is not modelled: publishing and a promotion's effect write the
//     HelmRelease spec and then its status in one instant (helm-controller's
//     upgrade takes no time and never fails).
//   - The promotion lag is drawn per effect from the plan's seed between
//     Config.PromotionLagMin and Max (2m by default); a Promote call takes 2s.
//   - The promotion system runs as cluster admin through the Admin client (its
//     writes are traced as process "admin").
package pipeline
