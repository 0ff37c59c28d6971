// Package promotion models the external promotion system of a GitOps pipeline:
// what weaveworks/pipeline-controller calls a promotion strategy (a pull request
// against the environment's git repository, a notification to CI, ...). The
// pipeline controller triggers a promotion of {pipeline, environment, version} with
// Promote; the effect reaches the cluster a human-scale lag later (the pull request
// is reviewed and merged, Flux applies it), when the system updates the
// environment's app objects through its client.
//
// Upstream: weaveworks/pipeline-controller PR #214 "Usually once promotions"
// (head ed4cfb2d, branch 197-reliable-promotions, not merged). Its test harness
// (controllers/leveltriggered/promote_test.go) models the strategy as a small
// state machine: startPromotion(env, v) then, later, completePromotion(env, v)
// which sets the target app's status.lastAppliedRevision. This package is that
// machine with time in it.
//
// # Contract
//
//   - Promote(ctx, key) is one attempt. It is decided when it is called: either it
//     fails with no effect (an *Error, planned with FailNext), or it takes effect: an
//     Effect is appended to the Ledger at once (the pull request now exists, the
//     notification was sent) and Apply is scheduled on the injected clock after Lag.
//     The call then takes CallTime on the clock (clock.Sleep) before it returns, as
//     cloning, pushing and opening a pull request does; a caller killed while it
//     waits has still caused the effect.
//   - Nothing is idempotent, as upstream says of its strategies ("none of the current
//     strategies are idepontent"): every attempt that does not fail is one more side
//     effect, and each is applied when its lag ends. at-most-once counts the Ledger.
//   - Apply runs in a clock.AfterFunc callback (in the simulator, in the kernel),
//     through Client; its error is kept on the Effect.
//   - Promoted(ctx, key) answers whether an effect of key exists, as a strategy
//     could by looking for the pull request of its deterministic branch; the robust
//     pipeline controller uses it to settle a promotion left in doubt.
//   - The order of Attempts and Ledger is the order of the calls; nothing depends on
//     map iteration order.
//
// # Known gaps
//
//   - A failed attempt has no effect at all; an ambiguous outcome (the pull request
//     is opened but the caller sees an error) is not modelled
//     (TestAFailedAttemptHasNoEffect).
//   - Effects are never rejected or reverted: a pull request is always merged after
//     its lag, even when a newer one for the same environment exists; no human
//     closes a duplicate (TestAnOlderPromotionMergedLastIsAppliedOverANewerOne).
//   - The system keeps its state in memory and never forgets it; it does not read
//     the cluster to decide anything
//     (TestThePromotionSystemDecidesWithoutReadingTheCluster).
//   - Apply is given by the world (which app objects a promotion changes is the
//     world's, not the strategy's); one Apply per effect, with no partial
//     application over several targets (TestEachEffectIsOneCallOfApply).
package promotion
