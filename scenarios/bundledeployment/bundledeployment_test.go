package bundledeployment_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	. "github.com/ctrlsim/ctrlsim/scenarios/bundledeployment"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// suiteT is the test the specs run in: operatortest.Replay runs each plan
// in a testing/synctest bubble of it.
var suiteT *testing.T

func TestBundleDeployment(t *testing.T) {
	suiteT = t
	RegisterFailHandler(Fail)
	RunSpecs(t, "Seed 1 (000): rukpak BundleDeployment install failures")
}

// run replays planText on the world of o (Test) for d and returns the run;
// the kernel's verdicts (hot loop, livelock, panic) must hold. The generic
// oracles are left out: the specs judge the seed's own properties.
func run(o Options, planText string, d time.Duration) *operatortest.Replayed {
	GinkgoHelper()
	r := replay(o, planText, d)
	for _, v := range r.Violated() {
		Expect(world.KernelVerdicts).NotTo(ContainElement(v.Property), v.String())
	}
	return r
}

func replay(o Options, planText string, d time.Duration) *operatortest.Replayed {
	GinkgoHelper()
	p, err := plan.Parse(planText)
	Expect(err).NotTo(HaveOccurred())
	opts := Test(o, d)
	opts.HealBudget = time.Millisecond // the run is the plan's d, as the specs time it
	opts = catalogue.ForSpecs(opts)
	r, err := operatortest.Replay(suiteT, opts, p)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// attempt is one reconcile of BundleDeployment name: when it started and its result.
type attempt struct {
	at, end time.Duration
	result  string
}

func attempts(c *operatortest.Replayed, name string) []attempt {
	var out []attempt
	open := map[int]int{}
	for _, s := range c.Steps {
		if s.Process != Rukpak || s.Object != "/"+name {
			continue
		}
		switch s.Op {
		case "reconcile":
			open[s.Worker] = len(out)
			out = append(out, attempt{at: s.At})
		case "result":
			out[open[s.Worker]].result, out[open[s.Worker]].end = s.Result, s.At
		}
	}
	return out
}

// bursts groups attempts closer than 100ms, as check.SettledBackoff does.
func bursts(as []attempt) [][]attempt {
	var out [][]attempt
	for i, a := range as {
		if i == 0 || a.at-as[i-1].at >= 100*time.Millisecond {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], a)
	}
	return out
}

// shown is the share of the time from the first failure shown to the end of
// the run during which example's Installed message contained substr.
func shown(c *operatortest.Replayed, substr string) float64 {
	r := c.Final.Run()
	var since, last, visible time.Duration = -1, 0, 0
	showing := false
	for _, ev := range r.Log {
		if ev.GVK != bdc.BundleDeploymentGVK || ev.Object.GetName() != Example {
			continue
		}
		at, msg := ev.At.Sub(r.Start), FailureMessage(ev.Object)
		if since < 0 && msg == "" {
			continue
		}
		if since < 0 {
			since = at
		} else if showing {
			visible += at - last
		}
		last, showing = at, strings.Contains(msg, substr)
	}
	Expect(since).To(BeNumerically(">=", 0), "no failure was ever shown")
	if showing {
		visible += r.End - last
	}
	return float64(visible) / float64(r.End-since)
}

// statusWrites counts rukpak's status writes of example.
func statusWrites(c *operatortest.Replayed) int {
	n := 0
	for _, s := range c.Steps {
		if s.Process == Rukpak && s.Op == "update/status" && s.Object == "BundleDeployment "+Example && s.Result == "ok" {
			n++
		}
	}
	return n
}

// terminatingRefusals counts rukpak's creates refused in a terminating namespace.
func terminatingRefusals(c *operatortest.Replayed) int {
	n := 0
	for _, s := range c.Steps {
		if s.Process == Rukpak && s.Op == "create" && strings.Contains(s.Result, Transient) {
			n++
		}
	}
	return n
}

// verdicts are the seed's properties' verdicts (settled-backoff,
// root-cause-visible).
func verdicts(c *operatortest.Replayed) map[string]bool {
	out := map[string]bool{}
	for _, v := range c.Verdicts {
		for _, p := range Properties() {
			if v.Property == p.Name() {
				out[v.Property] = v.Holds
			}
		}
	}
	return out
}

func example(c *operatortest.Replayed) *bdc.BundleDeployment {
	GinkgoHelper()
	var bd bdc.BundleDeployment
	Expect(c.Final.Get(client.ObjectKey{Name: Example}, &bd)).To(Succeed())
	return &bd
}

var _ = Describe("Seed 1 (000): a BundleDeployment whose install fails for good, with a Namespace in its bundle", func() {
	const quiet = "seed 1\nat 0s apply-broken"

	Context("buggy (rukpak ae6e755: failure uninstall without wait, no generation predicate, 1 worker)", func() {
		It("reconciles three times per backoff firing: the root cause, then twice the transient \"being terminated\" error", func() {
			c := run(Options{Variant: variant.Buggy}, quiet, 3*time.Minute)
			bs := bursts(attempts(c, Example))
			var triples int
			for _, b := range bs {
				if len(b) == 3 {
					triples++
					Expect(b[0].result).To(ContainSubstring(RootCause), "attempt 1 fails for the real reason")
					Expect(b[1].result).To(ContainSubstring(Transient), "attempt 2 meets the namespace attempt 1's uninstall left Terminating")
					Expect(b[2].result).To(Equal(b[1].result), "attempt 3 fails the same way, so it writes nothing and the burst ends")
				}
			}
			// The first burst at 0s is longer: its 5ms..80ms backoff firings all land within 100ms.
			Expect(triples).To(BeNumerically(">=", 2), "every firing after the namespace is gone is a burst of three")
			Expect(statusWrites(c)).To(Equal(2*(triples+1)), "two status writes per burst: root cause, then transient")
		})

		It("shows the transient error, not the root cause, most of the time, and breaks both properties", func() {
			c := run(Options{Variant: variant.Buggy}, quiet, 3*time.Minute)
			Expect(shown(c, Transient)).To(BeNumerically(">", 0.9))
			Expect(shown(c, RootCause)).To(BeNumerically("<", 0.05))
			Expect(verdicts(c)).To(Equal(map[string]bool{"settled-backoff": false, "root-cause-visible": false}))
		})
	})

	Context("fixed (PR #596: uninstall and rollback wait up to 30s, 4 workers)", func() {
		It("starts each attempt from a clean slate: one reconcile per firing, one status write, the root cause always shown", func() {
			c := run(Options{Variant: variant.Fixed}, quiet, 3*time.Minute)
			as := attempts(c, Example)
			for _, b := range bursts(as) {
				Expect(b).To(HaveLen(1))
			}
			for _, a := range as {
				Expect(a.result).To(ContainSubstring(RootCause))
			}
			Expect(as[0].end-as[0].at).To(BeNumerically(">=", DefaultTermination), "the uninstall waits until the namespace is gone")
			Expect(statusWrites(c)).To(Equal(1))
			Expect(terminatingRefusals(c)).To(BeZero())
			Expect(shown(c, RootCause)).To(Equal(1.0))
			Expect(verdicts(c)).To(Equal(map[string]bool{"settled-backoff": true, "root-cause-visible": true}))
		})

		It("brings the cascade back when the namespace takes longer than 30s to go (SEEDS.md (f)1)", func() {
			c := run(Options{Variant: variant.Fixed, Termination: SlowTermination}, quiet, 3*time.Minute)
			as := attempts(c, Example)
			Expect(as[0].result).To(HavePrefix("error: uninstall failed: uninstallation completed with 1 error(s): timed out waiting for the condition: original install error: " + RootCause))
			Expect(as[1].result).To(ContainSubstring(Transient), "the status change requeued at once, into the terminating namespace")
			Expect(as[0].end).To(BeNumerically("~", 30*time.Second+25*time.Millisecond, 25*time.Millisecond), "the wait timed out (30 s, plus the calls' latency)")
			Expect(as[1].at-as[0].end).To(BeNumerically("<", 5*time.Millisecond), "the status change requeued at once: sooner than the rate limiter's first 5 ms")
			Expect(terminatingRefusals(c)).To(BeNumerically(">=", 2))
			Expect(shown(c, Transient)).To(BeNumerically(">", 0.5))
			Expect(verdicts(c)).To(HaveKeyWithValue("root-cause-visible", false))
		})
	})

	Context("robust (GenerationChangedPredicate, no attempt over leftovers, root cause kept, no blocking waits)", func() {
		for _, term := range []time.Duration{DefaultTermination, SlowTermination} {
			It("holds both properties with T_term "+term.String()+" and never creates into a terminating namespace (I3)", func() {
				c := run(Options{Variant: variant.Robust, Termination: term}, quiet, 3*time.Minute)
				Expect(verdicts(c)).To(Equal(map[string]bool{"settled-backoff": true, "root-cause-visible": true}))
				Expect(terminatingRefusals(c)).To(BeZero())
				Expect(statusWrites(c)).To(Equal(1))
				var held int
				for _, a := range attempts(c, Example) {
					if strings.Contains(a.result, "waiting for the cleanup of a previous attempt") {
						held++
					}
				}
				Expect(held).To(BeNumerically(">=", 1), "attempts wait for the namespace without a worker blocked")
			})
		}
	})

	DescribeTable("installs once the cause is removed, within the cleanup time and the backoff delay (I4)",
		func(v variant.Variant) {
			c := run(Options{Variant: v}, "seed 1\nat 0s apply-broken\nat 40s upgrade bd=example bundle=v1", 2*time.Minute)
			c2 := example(c)
			cond := Installed(c2)
			Expect(cond).NotTo(BeNil())
			Expect(cond.Status).To(Equal(metav1.ConditionTrue))
			Expect(c2.Status.ActiveBundle).To(Equal(Example + "-" + V1))
			installedAt := time.Duration(-1)
			for _, ev := range c.Final.Run().Log {
				if bd, ok := ev.Object.(*bdc.BundleDeployment); ok && installedAt < 0 {
					if ic := Installed(bd); ic != nil && ic.Status == metav1.ConditionTrue {
						installedAt = ev.At.Sub(c.Final.Run().Start)
					}
				}
			}
			Expect(installedAt).To(BeNumerically("<=", 40*time.Second+DefaultTermination+2*time.Second))
		},
		Entry("buggy", variant.Buggy), Entry("fixed", variant.Fixed), Entry("robust", variant.Robust))
})

var _ = Describe("Seed 1 (000), SEEDS.md (f)2 and (f)6: an upgrade that adds a Namespace fails and is rolled back", func() {
	const upgrade = "seed 1\nat 5s upgrade bd=example bundle=v2"

	It("fixed: the rollback waits for readiness, not deletion, so the next attempt meets the terminating namespace", func() {
		c := run(Options{Variant: variant.Fixed, Bundle: V1}, upgrade, time.Minute)
		as := attempts(c, Example)
		Expect(as[0].result).To(Equal("ok"), "v1 installs")
		var failed []attempt
		for _, a := range as {
			if a.at >= 5*time.Second {
				failed = append(failed, a)
			}
		}
		Expect(failed[0].result).To(ContainSubstring(RootCause))
		Expect(failed[1].result).To(ContainSubstring(Transient))
		Expect(failed[1].at-failed[0].end).To(BeNumerically("<", 5*time.Millisecond), "at once: sooner than the rate limiter's first 5 ms")
		Expect(verdicts(c)).To(Equal(map[string]bool{"settled-backoff": false, "root-cause-visible": false}))
	})

	It("buggy and fixed: the namespace's deletion event enqueues the BundleDeployment, so a burst follows every cleanup", func() {
		for _, v := range []variant.Variant{variant.Buggy, variant.Fixed} {
			c := run(Options{Variant: v, Bundle: V1}, upgrade, time.Minute)
			var late int
			for _, b := range bursts(attempts(c, Example)) {
				if b[0].at > 6*time.Second && len(b) >= 3 {
					late++
					Expect(b[0].result).To(ContainSubstring(RootCause), "the namespace is gone: attempt 1 of the burst fails for the real reason")
				}
			}
			Expect(late).To(BeNumerically(">=", 3), "%s: one burst per T_term, never settling", v)
		}
	})

	It("robust: waits for the rolled-back namespace to go, ignores its own cleanup's events, and keeps the root cause", func() {
		c := run(Options{Variant: variant.Robust, Bundle: V1}, upgrade, time.Minute)
		Expect(verdicts(c)).To(Equal(map[string]bool{"settled-backoff": true, "root-cause-visible": true}))
		Expect(terminatingRefusals(c)).To(BeZero())
		Expect(example(c).Status.ActiveBundle).To(Equal(Example+"-"+V1), "v1 stays the active bundle")
	})
})

var _ = Describe("the properties of the bd/ entries", func() {
	It("are SEEDS.md's I1 and I2 on BundleDeployment example", func() {
		Expect(SettledBackoff()).To(Equal(check.SettledBackoff{Controller: "controller.bundledeployment.core-rukpak-io-plain", Object: "/example"}))
		Expect(RootCauseVisible().Name()).To(Equal("root-cause-visible"))
	})
})

var _ = Describe("a bd/ run", func() {
	It("is a pure function of its plan, faults and workers included, for every variant", func() {
		const text = "seed 7\nat 5s upgrade bd=example bundle=v2\nlag process=rukpak kind=* min=10ms max=800ms\nlatency process=rukpak min=1ms max=40ms\nworkers process=rukpak controller=controller.bundledeployment.core-rukpak-io-plain n=2"
		for _, v := range variant.All {
			a, b := replay(Options{Variant: v, Bundle: V1}, text, 30*time.Second), replay(Options{Variant: v, Bundle: V1}, text, 30*time.Second)
			Expect(a.Hash).To(Equal(b.Hash), string(v))
			Expect(len(a.Steps)).To(BeNumerically(">", 100), "%s: the run ran", v)
		}
	})
})
