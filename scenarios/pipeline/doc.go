// Package pipeline is the world of Seed 5 (004), weaveworks/pipeline-controller
// PR #214 "Usually once promotions": the pipeline controller (process
// "pipeline-controller", package controllers/pipeline), the external promotion
// system (models/promotion), the apps of three environments (dev, staging, prod:
// one HelmRelease "podinfo" each, all at v1) and the Pipeline default/podinfo,
// created at the start.
//
// The world is written with the public operatortest API (operatortest.go):
// Test(Options, faultPhase) declares every step of it, and each entry's test
// (SelfStatusRace, ...) draws its own. Steps (plan text):
//
//	at 10s publish version=v2                 Flux deploys v2 to the first environment
//	at 11s app-event env=dev                  helm-controller reconciles the app again (same revision)
//	at 0s promotion-fails env=staging version=v2 count=1   the promotion system's next attempts fail with no effect
//
// The promotion system is an operatortest.System (named "promotion",
// models/promotion) whose attempts and effects are trace steps of its own
// (Op "promote", Result "ok" or "error: ..."; Op "promotion-applied",
// SystemEnv.Trace), so that Properties (at-most-once over the effects,
// retried-after-failure) judge a run from its trace and final state alone;
// promotion-fails is its own fault; the apps are seed objects with their
// Ready status; publish is in every plan (DomainStep.Min).
//
// The specs (pipeline_test.go) replay hand-written plans on Test with
// operatortest.Replay and pin each variant's behaviour from the trace and
// the final state: buggy promotes twice under the self-status race (even
// with no lag configured, as upstream saw "almost always"); fixed survives
// it but not an app event racing the record, never retries a failed
// promotion, and promotes again after a crash between Promote and the
// record; robust promotes exactly once in all of these and retries
// failures.
//
// OnOperatortest gives the four entries (Entries, their text) their tests,
// which the catalogue runs; the generic oracles judge beside Properties. The
// robust claim's status.attempts is declared nondeterministic (a crash in
// doubt makes an attempt more).
//
// An entry's plan takes about 50-70 ms of wall time (the kernel's explorer,
// gone: about 7 ms): the fault-free reference runs the generic oracles
// compare with, and a 30 min heal budget.
//
// # Known gaps
//
//   - No step creates another pipeline, edits the Pipeline's spec or makes
//     an app not Ready (the kernel's world had them; no entry drew them)
//     (TestNoStepCreatesAPipelineEditsItsSpecOrMakesAnAppUnready).
//   - Every environment has one local target; there are no remote clusters
//     (TestEveryEnvironmentHasOneLocalTarget).
//   - Flux is not modelled: publishing and a promotion's effect write the
//     HelmRelease spec and then its status in one instant (helm-controller's
//     upgrade takes no time and never fails)
//     (TestPublishingAndAPromotionWriteTheAppsSpecAndStatusInOneInstant).
//   - The promotion lag is drawn per effect from the plan's seed between
//     Options.PromotionLagMin and Max (2m by default); a Promote call takes
//     2s (Options.PromoteCallTime)
//     (TestAPromotionTakesEffectItsLagAfterATwoSecondCall).
//   - The promotion system runs as cluster admin (SystemEnv.Client)
//     (TestThePromotionSystemWritesAsClusterAdmin).
package pipeline
