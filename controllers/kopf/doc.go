// Package kopf is a kopf operator written as a controller-runtime reconciler: the
// reference controller of Seed 3 (SEEDS.md; seeds/002_48506bcb31005e0a.txt),
// kopf's "crash the whole operator on unrecoverable errors" (zalando-incubator/kopf
// #350 -> nolar/kopf #509, core commit b759b487) and per-resource throttling of
// unexpected errors (#351 -> nolar/kopf #510, commit adc67a90).
//
// It reconciles KopfExample (kopf.dev/v1, namespaced, status subresource) with
// kopf's event loop: every watch event of an object is one handling cycle
// (handle): detect the cause by diffing the object's essence (spec, labels,
// annotations) against the annotation kopf.zalando.org/last-handled-configuration
// (create, update, delete, or nothing), run at most one due handler (kopf's
// default "asap" lifecycle), and send all the changes — handler progress in
// annotations kopf.zalando.org/<handler>, the diff base, the finalizer — in one
// JSON merge PATCH of the object. When that PATCH fails (a 422 Invalid, e.g.
// annotations over 256 KiB), nothing is stored, so the next event is a "create"
// again and the handlers run again.
//
// Variants (Reconciler.Variant):
//
//   - buggy, kopf ≤ 0.27 (349a976, kopf/reactor/queueing.py): the worker waits the
//     batch window (0.1 s), handles, and on any exception logs "Ignoring the
//     event" and carries on. Each handling's own write (ReportHandler's status
//     update) is the next event: in scenarios/kopf, with 100–300 ms of informer
//     lag, about 200 PATCH attempts a minute for as long as the 422 lasts.
//   - fixed, kopf after #509 + #510: the handling cycle runs inside throttled()
//     (kopf/_core/actions/throttlers.py, Throttler): an error starts or continues
//     the delays 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610 s (the
//     last repeats); events during a delay are not handled, the latest is handled
//     once when it ends; without an event nothing is retried; a success restarts
//     the sequence. A reconcile that arrives during a delay returns RequeueAfter
//     its end. An error outside the throttled span (reading the object of the
//     event) is unrecoverable: Exit(1) (#509). Measured: attempts exactly at
//     0, 1, 2, 4, 7, 12, 20, 33, 54, 88, 143, 232, 376, 609, ... s after the first.
//   - robust (this project): no exit and no batch window; any error is retried by
//     a timer after a per-object backoff from RetryLimiter (controller-runtime's
//     per-item 5ms·2^n, capped at 1000 s), events before the backoff ends are
//     deferred to it (watch events bypass a workqueue's backoff, SEEDS.md §0), and
//     the backoff restarts only RobustResetAfter after it ended without failure,
//     so one success in between does not reset it. Measured: 14 attempts in the
//     first minute, 17 in ten; after the fault ends the object is handled at the
//     end of the current backoff with no event needed. Robust also decides
//     nothing a stale body can undo: kopf purges only the progress records its
//     event's body shows and stores every handler's record, so a body older than
//     its own last PATCH (a lost response, informer lag) can leave a failed
//     attempt's record on the object for good; robust purges every handler's
//     record when they are done, stores only the record of the handler it ran,
//     and purges records left on an object whose essence is handled
//     (reports/kopf-persistent-422).
//
// # Known gaps
//
// kopf is Python and asyncio; this port keeps what decides Seed 3 (what triggers
// a handling, what the PATCH stores, what the throttle skips and when) and leaves
// out the rest:
//
//   - kopf runs one worker per object, in parallel; here the objects share the
//     controller's workers (MaxConcurrentReconciles, default 1)
//     (scenarios/kopf.TestObjectsShareTheOperatorsWorkerSoTheirBatchWindowsQueue).
//   - The batch window is a sleep before reading the latest state from the cache;
//     events during the sleep mark the key dirty and cost one more reconcile,
//     where kopf folds them into the batch. Throttling sleeps are RequeueAfter, not
//     sleeps interruptible by new events; the observable timing is the same
//     (TestTheBatchWindowIsASleepBeforeTheReadAndAThrottleDelayARequeue).
//   - Progress lives in annotations only (kopf's default "smart" storage also uses
//     status.kopf.progress); handler return values are not delivered to status;
//     delayed handlers requeue instead of kopf's sleep-and-touch dummy PATCH;
//     handler errors retry after a fixed 60 s with no retry limit, timeout or
//     PermanentError/TemporaryError distinction
//     (TestAFailingHandlerIsRetriedEvery60sForEverWithItsProgressInAnAnnotation).
//   - No resume cause after a restart, no on.event, on.field, daemons or timers,
//     no peering/freezing, no posting of Kubernetes Events, no consistency wait
//     for the PATCHed resourceVersion (kopf ≥ 1.36): with a lagging cache a handler
//     can run twice (TestAStaleReadRunsAHandlerAgainAndARestartResumesNothing).
//   - "Outside the throttled span" is only the cache read of the object: watch and
//     decoding errors belong to controller-runtime's informer, which retries them
//     and never hands them to a reconciler. scenarios/kopf stands a poisoned read
//     in for kopf's unparsable raw event
//     (TestOnlyTheReadIsOutsideTheThrottledSpan).
//   - fixed is #509 and #510 together; #509 alone (every 422 crashes the operator,
//     SEEDS.md I3) is not a variant
//     (TestFixedThrottlesA422WhereKopf509AloneWouldExit).
//   - Throttling and backoff state is per process, in memory, as in kopf: a
//     restart starts every object's sequence again
//     (TestARestartStartsTheThrottlingSequenceAgain).
package kopf
