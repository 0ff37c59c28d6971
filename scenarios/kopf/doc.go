// Package kopf is the world of Seed 3 (002): kopf's hot loop under a persistent
// 422 on its progress PATCH, and its fixes (nolar/kopf #509 and #510). It runs
// controllers/kopf in process "kopf" with two KopfExamples, x and y, in
// namespace default, and states in ginkgo specs what each variant does.
//
// Test builds the world as an operatortest test (operatortest_entries.go;
// Options.Variant picks the operator; Options.Quiet swaps the handler that
// writes the object's status for one that writes nothing), with every step
// of the world declared; the specs (kopf_test.go) replay their plans on it
// with operatortest.Replay and read the trace and the final state. The
// fault of the seed is a plan line, e.g.
//
//	lag process=kopf kind=kopf.dev/v1/KopfExample min=100ms max=300ms
//	api verb=patch resource=kopfexamples name=x code=422 field=metadata.annotations message="Too long: must have at most 262144 bytes"
//
// and the steps (listed on Test) add edits, touches, a spec too
// large for kopf's diff-base annotation (a real 422 from the apiserver model's
// metadata validation, no injected fault), a 422 on every other PATCH
// (alternate-422) and an unreadable watch event (poison).
//
// Attempts reads the operator's PATCHes of an object from the trace;
// BoundedRetryRate is the property bounded-retry-rate (docs/design.md) for one object:
// within a run of failures of one process incarnation, the gap after the i-th
// failure is at least min(kopf's i-th delay, 5ms·2^i). BoundedFailureRate is its
// reading under a flaky fault: failures count across successes until a quiet
// period passes without one.
//
// Entries are the catalogue's Seed 3 entries, with these properties as
// sim/check properties: kopf/persistent-422 (RetryRate: a 422 window on the
// progress PATCH, workload edits, lag, crashes),
// kopf/alternating-422 (RetryRate with Quiet: a 422 on every other PATCH and
// frequent edits), kopf/poison-event (Isolation: an unreadable event of x while
// y is edited) and kopf/no-event-after-failure (converges with AllHandled: the
// quiet handler, a 422 window, no event after it). The envelope starts again at
// every restart of the operator: kopf's throttle and a controller's rate limiter
// both live in memory, restarts are themselves spaced by CrashLoopBackOff, and
// an envelope carried across restarts would catch every variant alike.
//
// Persistent422 is kopf/persistent-422 written as an operatortest test: the operator through its SetupWithManager with crd.yaml, spec edits
// as a domain step, the entry's fault profile (operatortest.Faults: the 422
// templates, lag of KopfExamples, crashes) and RetryRate through
// operatortest/world.FromCheck beside the generic oracles. It finds the buggy kopf
// after 8 plans with the kernel entry's violation (attempt 7 of a streak at
// 961.74 ms, 106.5 ms after the previous) and the fixed one holds 50 plans.
// The example handler's run counter is declared Nondeterministic: kopf runs
// a handler at least once, so a crash between its status write and kopf's
// progress PATCH runs it again (converges flagged 1 against 2 without it).
//
// Alternating422, PoisonEvent and NoEventAfterFailure are the other three
// entries written so (operatortest_entries.go), and OnOperatortest gives
// them, with Persistent422, to the catalogue (scenarios.All).
// The faults the plan's API faults cannot express are systems outside the
// cluster (operatortest.System): Webhook, a flaky admission webhook whose
// fault alternate-422 refuses every other PATCH of x through
// SystemEnv.RefuseNext (the API server's answer, in the trace); Wire, the
// path of the operator's watch events, whose fault poison makes x's
// undecodable to the operator's reads; both end at the heal
// (SystemEnv.Healed). Editor is the user behind edit-every (a stream of
// edits of x on the run's clock, every 200 ms to 2 s for 1 to 40 s). The
// operator is built on a client that asks Webhook and Wire
// (Manager.SetupWithSystems) and on the run's virtual clock (catalogue.ClockOf: the
// simulator's manager gives it; Persistent422 ran on the wall clock until
// then). On seed 1 with 200 plans each gives its kernel entry's outcome per
// variant (alternating-422: buggy and fixed caught at plan 2, robust holds;
// poison-event: fixed caught at plan 1, buggy and robust hold;
// no-event-after-failure: buggy and fixed caught at plan 11 by converges,
// the entry's and the generic oracle's, robust holds).
//
// What the specs show (virtual time, lag 100–300 ms):
//
//   - buggy: ~200 failed PATCHes of x a minute, one per self-induced event, the
//     handler re-run every time; caught by BoundedRetryRate.
//   - fixed: failures exactly at kopf's offsets (9 in the first minute, 13 in ten,
//     then every 610 s); handled at the end of the current delay once the 422
//     stops; but with a handler that writes nothing, never retried after the
//     first failure until some event comes; one success resets the delays, so a
//     422 on every other PATCH keeps it failing about once every 1.5 s; a restart
//     starts the delays at 1 s again; an unreadable event exits the operator and
//     crash-loops it (CrashLoopBackOff 10, 20, 40, 80, 160 s), so no other object
//     is handled.
//   - robust: failures spaced exactly 5ms·2^i (14 in the first minute, 17 in
//     ten), retried by its own timer when no event comes, backing off under
//     alternating failures, and surviving the unreadable event.
//   - all three handle the healthy object y within a second while x fails.
//
// A 300 KB object makes every PATCH cost tens of milliseconds of wall time in
// the patch model, so the specs with grow run for seconds, not minutes.
//
// # Known gaps
//
//   - alternate-422 and poison act through the operator's client: alternate-422
//     refuses every other PATCH of the object with a one-request 422 of the
//     apiserver model (so the trace shows the server's answer), and poison fails the
//     operator's reads of the object (no server fault can make an informer
//     hand an undecodable object to a reconciler, Wire). Both end when the
//     cluster heals (TestAlternate422AndPoisonActThroughTheOperatorsClient).
//   - The catalogue (scenarios.All) runs the four on operatortest (on seed 1
//     with the catalogue's 200 plans: 12 of 12 outcomes as expected, 51 s for
//     the four against 26 s on the kernel's entries, measured when
//     `ctrlsim run --kernel` still ran them, one run each; the kernel's world
//     is gone). Persistent422's
//     shrink now takes 2.6-4.4 s (shrinking got faster); its test still
//     bounds it (ShrinkRuns 100), those of the other three to 50 runs
//     (TestTheCatalogueRunsTheFourEntriesOnOperatortest).
//   - edit-every's stream is a system's timer, not a workload step: a
//     failed edit stops it silently. There is no touch-every (the kernel's
//     world had it; no spec or entry used it)
//     (TestEditEveryIsASystemsTimerThatAFailedEditStops).
//   - The entries' plans draw no grow action (a 300 KB object makes a run cost
//     tens of milliseconds of wall time per PATCH) and no aggregate load: N
//     failing objects each keep to their own envelope, and nothing bounds their
//     sum (SEEDS.md Seed 3 (f), "per-object, not global"), which no variant
//     does either
//     (TestEachObjectKeepsToItsOwnEnvelopeAndNothingBoundsTheirSum).
package kopf
