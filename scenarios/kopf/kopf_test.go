package kopf_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	"k8s.io/apimachinery/pkg/types"

	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/kopf"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Every plan lets the operator's cache see KopfExample events 100–300 ms late,
// so each self-induced event takes time to come back.
const lag = "seed 1\nlag process=kopf kind=kopf.dev/v1/KopfExample min=100ms max=300ms\n"

// persistent422 is the fault of zalando-incubator/kopf#346 (and nolar/kopf#1087):
// every PATCH of x is refused as Invalid.
const persistent422 = `api verb=patch resource=kopfexamples name=x code=422 field=metadata.annotations message="Too long: must have at most 262144 bytes"` + "\n"

// run replays the plan text on the world of v with o (scenario.Test) for d,
// the heal at the end; the kernel's verdicts (hot loop, livelock, panic)
// are not asserted: the buggy operator's hot loop is the seed. The generic
// oracles are left out: the specs judge the operator's own behaviour.
func run(text string, v variant.Variant, o scenario.Options, d time.Duration) *operatortest.Replayed {
	GinkgoHelper()
	return runHealing(text, v, o, d, time.Millisecond)
}

// runHealing is run with a fault phase of d and a heal budget of heal.
func runHealing(text string, v variant.Variant, o scenario.Options, d, heal time.Duration) *operatortest.Replayed {
	GinkgoHelper()
	p, err := plan.Parse(text)
	Expect(err).NotTo(HaveOccurred())
	o.Variant = v
	opts := scenario.Test(o, d)
	opts.HealBudget = heal
	opts = catalogue.ForSpecs(opts)
	r, err := operatortest.Replay(suiteT, opts, p)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// object is KopfExample name at the end of the run.
func object(c *operatortest.Replayed, name string) *kopfop.KopfExample {
	GinkgoHelper()
	var k kopfop.KopfExample
	Expect(c.Final.Get(types.NamespacedName{Namespace: scenario.Namespace, Name: name}, &k)).To(Succeed())
	return &k
}

// objectBefore is KopfExample name as the apiserver last committed it before t.
func objectBefore(c *operatortest.Replayed, name string, t time.Duration) *kopfop.KopfExample {
	GinkgoHelper()
	r := c.Final.Run()
	var last *kopfop.KopfExample
	for _, ev := range r.Log {
		if ev.At.Sub(r.Start) >= t {
			break
		}
		if ev.GVK == kopfop.KopfExampleGVK && ev.Object.GetNamespace() == scenario.Namespace && ev.Object.GetName() == name {
			k, ok := ev.Object.(*kopfop.KopfExample)
			Expect(ok).To(BeTrue(), "a KopfExample in the log is a %T", ev.Object)
			last = k
		}
	}
	Expect(last).NotTo(BeNil(), "no version of %s before %v", name, t)
	return last
}

// restarts counts the operator's restarts in the run.
func restarts(c *operatortest.Replayed) int {
	n := 0
	for _, s := range c.Steps {
		if s.Process == scenario.Operator && s.Op == "restart" {
			n++
		}
	}
	return n
}

func handled(k *kopfop.KopfExample) bool {
	_, ok := k.Annotations[kopfop.AnnotationLastHandled]
	return ok
}

func between(ts []time.Duration, from, to time.Duration) int {
	n := 0
	for _, t := range ts {
		if t >= from && t < to {
			n++
		}
	}
	return n
}

// apiLatency bounds what API calls add to a gap between two attempts
// (cluster.DefaultTiming: a few milliseconds a call).
const apiLatency = 50 * time.Millisecond

// after matches a duration of d plus at most apiLatency: a delay the operator
// waits, then the calls of the attempt.
func after(d time.Duration) gomegatypes.GomegaMatcher {
	return And(BeNumerically(">=", d), BeNumerically("<=", d+apiLatency))
}

func gaps(ts []time.Duration) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(ts); i++ {
		out = append(out, ts[i]-ts[i-1])
	}
	return out
}

// firstSuccess is the time of the first successful PATCH of name at or after t.
func firstSuccess(c *operatortest.Replayed, name string, t time.Duration) (time.Duration, bool) {
	for _, a := range scenario.Attempts(c.Steps, name) {
		if !a.Failed && a.At >= t {
			return a.At, true
		}
	}
	return 0, false
}

// timeline is the trace's last lines, for failure messages.
func timeline(c *operatortest.Replayed) string {
	steps := c.Steps
	var b strings.Builder
	for _, s := range steps[max(0, len(steps)-40):] {
		fmt.Fprintln(&b, s.String())
	}
	return b.String()
}

var _ = Describe("Seed 3 (002): a persistent 422 on kopf's progress PATCH (zalando-incubator/kopf#346)", func() {
	It("buggy (kopf ≤ 0.27, 349a976): ignores the error and handles x again on the next event, which its own handler's status write makes: hundreds of PATCHes a minute, for ever", func() {
		c := run(lag+persistent422, variant.Buggy, scenario.Options{}, 2*time.Minute)
		attempts := scenario.Attempts(c.Steps, "x")
		failures := scenario.Failures(attempts)
		Expect(failures).To(HaveLen(len(attempts)), "every PATCH of x is refused")
		Expect(attempts[0].Result).To(ContainSubstring(`KopfExample.kopf.dev "x" is invalid: metadata.annotations`))
		Expect(between(failures, 0, time.Minute)).To(BeNumerically(">=", 150), "one attempt per self-induced event (lag + batch window)")
		Expect(between(failures, time.Minute, 2*time.Minute)).To(BeNumerically(">=", 150), "and no slowing down")
		x := object(c, "x")
		Expect(x.Status.HandlerRuns).To(Equal(len(attempts)), "the handler's side effect is repeated on every attempt")
		Expect(handled(x)).To(BeFalse(), "kopf's progress never reaches the object")
		Expect(scenario.BoundedRetryRate(attempts)).To(MatchError(ContainSubstring("want at least")))
		Expect(restarts(c)).To(BeZero())
	})

	It("fixed (nolar/kopf #510): attempts follow kopf's delays 1, 1, 2, 3, 5, 8 ... 610 s: 9 in the first minute, 13 in ten, then one every 610 s", func() {
		c := run(lag+persistent422, variant.Fixed, scenario.Options{}, 30*time.Minute)
		attempts := scenario.Attempts(c.Steps, "x")
		failures := scenario.Failures(attempts)
		Expect(failures).To(HaveLen(len(attempts)))
		first := failures[0]
		Expect(between(failures, first, first+time.Minute)).To(Equal(9))
		Expect(between(failures, first, first+10*time.Minute)).To(Equal(13))
		for i, g := range gaps(failures) {
			// The handler's own write arrives while throttled; the latest event is
			// handled the moment the delay ends.
			Expect(g).To(after(scenario.KopfDelay(i)), "gap %d of %v", i, gaps(failures))
		}
		Expect(gaps(failures)[len(failures)-2:]).To(HaveEach(after(610*time.Second)), "the last delay repeats")
		Expect(scenario.BoundedRetryRate(attempts)).To(Succeed())
		Expect(restarts(c)).To(BeZero(), "the PATCH is inside the throttled span: no exit (#509 does not fire)")
	})

	It("robust: stays within the controller's rate limiter: the gap after the i-th failure is 5ms·2^i (capped at 1000 s), whatever events arrive meanwhile", func() {
		c := run(lag+persistent422, variant.Robust, scenario.Options{}, 30*time.Minute)
		attempts := scenario.Attempts(c.Steps, "x")
		failures := scenario.Failures(attempts)
		Expect(failures).To(HaveLen(len(attempts)))
		for i, g := range gaps(failures) {
			Expect(g).To(after(scenario.LimiterDelay(i)), "gap %d of %v", i, gaps(failures))
		}
		first := failures[0]
		Expect(between(failures, first, first+time.Minute)).To(Equal(14))
		Expect(between(failures, first, first+10*time.Minute)).To(Equal(17))
		Expect(scenario.BoundedRetryRate(attempts)).To(Succeed())
		Expect(restarts(c)).To(BeZero())
	})

	DescribeTable("every variant keeps handling the healthy object y while x fails (I2: isolation)",
		func(v variant.Variant) {
			c := run(lag+persistent422+"at 10s edit name=y field=b\n", v, scenario.Options{}, time.Minute)
			at, ok := firstSuccess(c, "y", 10*time.Second)
			Expect(ok).To(BeTrue(), timeline(c))
			Expect(at).To(BeNumerically("<", 11*time.Second), "y's edit is handled within a second")
			Expect(object(c, "y").Status.ObservedField).To(Equal("b"))
		},
		Entry("buggy", variant.Buggy), Entry("fixed", variant.Fixed), Entry("robust", variant.Robust))
})

var _ = Describe("Seed 3 (002): once the 422 stops (I4: liveness after recovery)", func() {
	It("fixed: x is handled when the current delay ends, because its own handler's write was an event during the throttle", func() {
		c := run(lag+persistent422[:len(persistent422)-1]+" until=2m\n", variant.Fixed, scenario.Options{}, 10*time.Minute)
		failures := scenario.Failures(scenario.Attempts(c.Steps, "x"))
		last := failures[len(failures)-1]
		Expect(last).To(BeNumerically("<", 2*time.Minute))
		at, ok := firstSuccess(c, "x", 0)
		Expect(ok).To(BeTrue())
		Expect(at-last).To(after(scenario.KopfDelay(len(failures)-1)), "the success comes when the throttle ends")
		Expect(handled(object(c, "x"))).To(BeTrue())
	})

	DescribeTable("with a handler that writes nothing, no event comes after the first failure",
		func(v variant.Variant, retriesOnItsOwn bool) {
			c := run(lag+"api verb=patch resource=kopfexamples name=x code=422 until=30s\nat 5m touch name=x\n", v, scenario.Options{Quiet: true}, 5*time.Minute+time.Second)
			if retriesOnItsOwn {
				at, ok := firstSuccess(c, "x", 0)
				Expect(ok).To(BeTrue())
				Expect(at).To(BeNumerically("<", time.Minute), "robust retries on its own timer (backoff from 20.48 s)")
				return
			}
			var before []scenario.Attempt
			for _, a := range scenario.Attempts(c.Steps, "x") {
				if a.At < 5*time.Minute {
					before = append(before, a)
				}
			}
			Expect(before).To(HaveLen(1), "no timer retries: one attempt in five minutes (SEEDS.md (f): no timer-driven retry)")
			Expect(handled(objectBefore(c, "x", 5*time.Minute))).To(BeFalse(), "x stays unhandled long after the fault ended")
			Expect(handled(object(c, "x"))).To(BeTrue(), "the next event, whoever makes it, gets x handled (within a second)")
		},
		Entry("buggy: x is never retried", variant.Buggy, false),
		Entry("fixed: x is never retried either", variant.Fixed, false),
		Entry("robust: x is retried by a timer", variant.Robust, true))
})

var _ = Describe("Seed 3 (002): weaknesses of the fix (SEEDS.md (f))", func() {
	It("one success resets kopf's sequence: with a 422 on every other PATCH and an edit every 500 ms, fixed keeps failing about once every 1.5 s; robust's failures back off", func() {
		const alternate = lag + "at 1s alternate-422 name=x\nat 1s edit-every name=x every=500ms for=2m\n"
		c := run(alternate, variant.Fixed, scenario.Options{}, 3*time.Minute)
		fixed := scenario.Failures(scenario.Attempts(c.Steps, "x"))
		Expect(between(fixed, time.Minute, 2*time.Minute)).To(BeNumerically(">=", 30), "the delay never grows past 1 s")
		Expect(gaps(fixed)).To(HaveEach(BeNumerically("<", 3*time.Second)))

		c = run(alternate, variant.Robust, scenario.Options{}, 3*time.Minute)
		robust := scenario.Failures(scenario.Attempts(c.Steps, "x"))
		Expect(len(robust)).To(BeNumerically("<=", 20))
		for i, g := range gaps(robust) {
			Expect(g).To(BeNumerically(">=", scenario.LimiterDelay(i)), "robust does not reset its backoff on one success: gaps %v", gaps(robust))
		}
	})

	It("throttling state lives in memory: after the fixed operator restarts, x's delays start again at 1 s", func() {
		c := run(lag+persistent422+"crash process=kopf at=30s\n", variant.Fixed, scenario.Options{}, 2*time.Minute)
		var before, later []time.Duration
		for _, a := range scenario.Attempts(c.Steps, "x") {
			if a.Incarnation == 1 {
				before = append(before, a.At)
			} else {
				later = append(later, a.At)
			}
		}
		Expect(gaps(before)).To(HaveExactElements(after(1*time.Second), after(1*time.Second), after(2*time.Second), after(3*time.Second), after(5*time.Second), after(8*time.Second)))
		Expect(later[0]).To(after(40*time.Second+100*time.Millisecond), "restarted after CrashLoopBackOff's 10 s; the relist's event waits the batch window")
		Expect(gaps(later)[:3]).To(HaveExactElements(after(1*time.Second), after(1*time.Second), after(2*time.Second)))
	})

	const poison = lag + "at 30s poison name=x\nat 31s touch name=x\nat 32s edit name=y field=b\n"

	It("fixed (nolar/kopf #509): an event it cannot read is an unrecoverable error outside the throttled span: the operator exits, and crash-loops on it, handling nothing else", func() {
		c := run(poison, variant.Fixed, scenario.Options{}, 6*time.Minute)
		var crashes, restarts []time.Duration
		for _, s := range c.Steps {
			if s.Process == scenario.Operator && s.Op == "crash" {
				Expect(s.Result).To(Equal("exit 1"))
				crashes = append(crashes, s.At)
			}
			if s.Process == scenario.Operator && s.Op == "restart" {
				restarts = append(restarts, s.At)
			}
		}
		Expect(crashes).To(HaveLen(6))
		var backoffs []time.Duration
		for i, r := range restarts {
			backoffs = append(backoffs, r-crashes[i])
		}
		Expect(backoffs).To(Equal([]time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second}), "CrashLoopBackOff")
		Expect(object(c, "y").Status.ObservedField).To(Equal("a"), "y's edit at 32 s is never handled: x comes first after every relist")
	})

	DescribeTable("buggy and robust survive the same poison event and handle y",
		func(v variant.Variant) {
			c := run(poison, v, scenario.Options{}, time.Minute)
			Expect(restarts(c)).To(BeZero())
			Expect(object(c, "y").Status.ObservedField).To(Equal("b"))
		},
		Entry("buggy ignores the event", variant.Buggy), Entry("robust retries x with the controller's rate limiter", variant.Robust))

	It("needs no injected fault: a KopfExample over 256 KiB makes the apiserver refuse kopf's last-handled-configuration annotation with the real 422", func() {
		const grow = lag + "at 1s grow name=x bytes=300000\n"
		c := run(grow, variant.Buggy, scenario.Options{}, 16*time.Second)
		buggy := scenario.Attempts(c.Steps, "x")
		Expect(buggy[len(buggy)-1].Result).To(ContainSubstring("metadata.annotations: Too long: may not be more than 262144 bytes"))
		Expect(between(scenario.Failures(buggy), time.Second, 16*time.Second)).To(BeNumerically(">=", 35))

		c = run(grow, variant.Fixed, scenario.Options{}, time.Minute+time.Second)
		fixed := scenario.Failures(scenario.Attempts(c.Steps, "x"))
		Expect(fixed).To(HaveLen(9))
		for i, g := range gaps(fixed) {
			Expect(g).To(after(scenario.KopfDelay(i)))
		}
	})
})

var _ = DescribeTable("a plan replays bit for bit (the world's actions and faults are deterministic)",
	func(v variant.Variant) {
		const text = lag + persistent422 + "crash process=kopf at=20s\nat 1s alternate-422 name=y\nat 1s edit-every name=y every=700ms for=29s\nat 25s poison name=y\nat 26s touch name=y\n"
		a, b := runHealing(text, v, scenario.Options{}, 40*time.Second, time.Minute), runHealing(text, v, scenario.Options{}, 40*time.Second, time.Minute)
		Expect(a.Hash).To(Equal(b.Hash))
		Expect(restarts(a)).To(BeNumerically(">=", 1), "the run crashed and restarted the operator")
	},
	Entry("buggy", variant.Buggy), Entry("fixed", variant.Fixed), Entry("robust", variant.Robust))
