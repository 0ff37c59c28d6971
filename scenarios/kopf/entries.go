package kopf

import (
	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

const (
	seedName = "3 (002)"
	seedFile = "002_48506bcb31005e0a.txt"
	upstream = "https://github.com/nolar/kopf/pull/510"
)

// patch422 are the API faults of the entries: kopf's PATCH of x, or of every
// KopfExample, refused as Invalid (zalando-incubator/kopf#346, nolar/kopf#1087).
var patch422 = []apiserver.Fault{
	{Verb: "patch", Resource: kopfop.Plural, Namespace: Namespace, Name: "x", Code: 422,
		Field: "metadata.annotations", Message: "Too long: must have at most 262144 bytes"},
	{Verb: "patch", Resource: kopfop.Plural, Namespace: Namespace, Code: 422,
		Field: "metadata.annotations", Message: "Too long: must have at most 262144 bytes"},
}

func expect(buggy, fixed, robust catalogue.Outcome) map[variant.Variant]catalogue.Outcome {
	return map[variant.Variant]catalogue.Outcome{variant.Buggy: buggy, variant.Fixed: fixed, variant.Robust: robust}
}

func base() catalogue.Entry {
	return catalogue.Entry{Seed: seedName, SeedFile: seedFile, Upstream: upstream}
}

// Entries are the Seed 3 entries of the catalogue.
func Entries() []*catalogue.Entry {
	const c, h = catalogue.Caught, catalogue.Holds

	persistent := base()
	persistent.ID = "kopf/persistent-422"
	persistent.Summary = "kopf applies the handlers' progress and its diff base in one PATCH of the object. When the API server refuses that PATCH with " +
		"422 Invalid (zalando-incubator/kopf#346: annotations over 256 KiB), kopf ≤ 0.27 logs the error and ignores the event; nothing was stored, so the next " +
		"watch event of the object, such as the one its own handler's status write makes, runs the handlers and the PATCH again: one attempt per event, " +
		"hundreds a minute, for as long as the 422 lasts.\n\n" +
		"nolar/kopf #510 throttles errors per object (delays 1, 1, 2, 3, 5, ... 610 s, events in between skipped) and #509 exits the operator on errors " +
		"outside that span. The robust operator retries on a timer with controller-runtime's per-item backoff (5 ms·2^n) and defers events to it. " +
		"bounded-retry-rate requires each streak of failed PATCHes of an object (a success or a restart ends it) to keep gaps of at least min(kopf's i-th " +
		"delay, 5 ms·2^i). Faults: a 422 window on x's or every object's PATCH, informer lag, crashes; workload: edits of x and y."
	persistent.Expect = expect(c, h, h)
	persistent.Why = "Robust was caught once API errors were drawn by default, by converges, and the finding was real: a progress record " +
		"decided from a stale body stayed on x for good. Plan `lag process=kopf kind=kopf.dev/v1/KopfExample min=8ms max=15ms` + a lost response to " +
		"the handler's status update of x (it was stored): the handler's error is recorded (`kopf.zalando.org/report`, retries 1) in a PATCH; " +
		"the next handling reads x from a cache that has not seen that PATCH, runs the handler again, succeeds, and purges only the records its body " +
		"shows (none), as kopf does:\n\n" +
		"    2.835145ms  kopf/kopfexample#1 r1  update/status KopfExample default/x rv=5 -> Timeout: ... may still be processing the request\n" +
		"    5.711918ms  kopf/kopfexample#1 r1  patch      KopfExample default/x rv=5 (current 7, stale) wrote rv=8 -> ok\n" +
		"   19.619724ms  kopf/kopfexample#1 r3  patch      KopfExample default/x rv=7 (current 11, stale) wrote rv=12 -> ok\n" +
		"   22.322725ms  kopf/kopfexample#1 r4  patch      KopfExample default/x rv=8 (current 12, stale) wrote rv=12 -> ok\n\n" +
		"(r4, from the body of rv=8, stores the failed record again.) kopf ≥ 1.36 waits for the resourceVersion of its own PATCH before handling " +
		"the next event; the robust operator instead decides nothing a stale body can undo: it purges every handler's record when the handlers are " +
		"done, stores only the record of the handler it ran, and purges any record left on an object whose essence is handled. With that, robust " +
		"holds its budget again; buggy and fixed keep kopf's body-based purge (the studied revisions), a weakness the search may find in them too. " +
		"Buggy's minimal plan is a 422 on every object's PATCH from 15 ms to 14.32 s; catalogues before the shrink's default bound fell from 100 " +
		"distinct plans to twice the plans to find (34 here) narrowed it to x's PATCH until 12.289 s. The finding, its eighth failed attempt 223 ms " +
		"after the seventh at 1.61 s, and its checks to find are unchanged."

	alternating := base()
	alternating.ID = "kopf/alternating-422"
	alternating.Summary = "A weakness SEEDS.md lists for #510: one success resets kopf's throttling sequence. A PATCH that fails every other time " +
		"(a flaky admission webhook) while the object is edited often never gets past the first 1 s delay: the fixed operator keeps failing about as " +
		"often as the edits come, as the buggy one does.\n\n" +
		"The robust operator resets its backoff only after ten minutes without a failure (the kubelet's rule for CrashLoopBackOff), so its failures back " +
		"off. Here bounded-retry-rate counts an object's failed PATCHes across the successes between them; a streak ends after ten minutes without a " +
		"failure or at a restart."
	alternating.Expect = expect(c, c, h)
	alternating.Why = "Not in docs/design.md's table: a weakness of #510. Minimal plan `at 459ms alternate-422 name=x` + `at 0s edit-every name=x every=200ms for=14s`: " +
		"once the webhook turns flaky, the fixed operator's PATCHes of x alternate between a 422 (throttled 1 s) and a success (which resets the sequence), so its failures come every 1.1-1.2 s:\n\n" +
		"    525.594203ms  kopf/kopfexample#1 r5   patch KopfExample default/x rv=15 (current 16, stale) -> Invalid: ... rejected by a flaky admission webhook\n" +
		"    525.992818ms  kopf/kopfexample#1 r5   log -> ERROR Throttling due to an unexpected error seconds=1\n\n" +
		"and the eleventh failure, at 12.42 s, comes 1.11 s after the tenth (11.30 s) where the envelope asks for 2.56 s. The buggy operator fails on every other edit " +
		"from the start. The robust operator's gaps after its failures keep to 5 ms·2^i whatever succeeds in between. " +
		"(Catalogues before the shrink's default bound fell from 100 distinct plans to twice the plans to find, 20 at the least, shrank this plan further, " +
		"to `at 0s alternate-422 name=x` + `at 0s edit-every name=x every=200ms for=11s`, the tenth failure at 10.82 s; the finding and its checks to find are unchanged.)"

	poison := base()
	poison.ID = "kopf/poison-event"
	poison.Summary = "A weakness SEEDS.md lists for #509: an error outside the throttled span is unrecoverable, and the fixed operator exits. " +
		"One event it cannot read (here: x's, from some time on) makes it exit, restart after CrashLoopBackOff (10, 20, 40 ... s), meet x's event " +
		"again after the relist, and exit again: meanwhile no other object is handled. The buggy operator ignores the event; the robust one retries " +
		"x with its rate limiter and handles the others.\n\n" +
		"isolation (SEEDS.md I2) requires every change of the healthy object y's spec to be handled within 30 s during the fault phase."
	poison.Expect = expect(h, c, h)
	poison.Why = "Not in docs/design.md's table: a weakness of #509, where the buggy operator holds (it ignores the event it cannot read and goes on " +
		"handling y). Minimal plan `at 0s poison name=x`, `at 0s touch name=x`, `at 0s edit name=y field=e0`: the fixed operator exits on x's event " +
		"after every start, and x comes first after every relist:\n\n" +
		"    100ms  kopf/kopfexample#1 r1  cached-get KopfExample default/x rv=7 -> ok\n" +
		"    100ms  kopf/kopfexample#1 r1  crash -> exit 1\n" +
		"    10.1s  kopf  restart -> incarnation 2\n" +
		"    10.2s  kopf/kopfexample#1 r1  crash -> exit 1\n" +
		"    30.2s  kopf  restart -> incarnation 3\n\n" +
		"so y's edit at 0 s is still not handled 30 s later. The robust operator returns the read error to the controller, which retries x with its " +
		"rate limiter and handles y in between."

	quiet := base()
	quiet.ID = "kopf/no-event-after-failure"
	quiet.Summary = "A weakness SEEDS.md lists for #510: there is no timer-driven retry. With a handler that writes nothing to the object, " +
		"a failed PATCH is retried only when some event of the object comes; if none comes after the 422 ends, the object stays unhandled for good, " +
		"and the buggy operator is no better. The robust operator retries on its own timer (its backoff), so the object is handled once the fault ends.\n\n" +
		"converges requires kopf's diff base to hold every object's current spec at the end of the heal budget, with no write in its last minute."
	quiet.Expect = expect(c, c, h)
	quiet.Why = "Not in docs/design.md's table: a weakness of #510 (no timer-driven retry), shared by the buggy operator. Minimal plan `at 0s edit name=x " +
		"field=e0` + a 422 on x's PATCH until 102 ms: the fixed operator's one attempt fails and nothing follows,\n\n" +
		"    101.9201ms    kopf/kopfexample#1 r1  patch KopfExample default/x rv=7 -> Invalid: ...\n" +
		"    102.038118ms  kopf/kopfexample#1 r1  result default/x -> ok\n\n" +
		"so x's diff base never holds its spec. The robust operator's failed reconcile returns `requeue after 5ms` and x is handled by that retry."

	return []*catalogue.Entry{&persistent, &alternating, &poison, &quiet}
}
