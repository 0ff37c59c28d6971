package pipeline

import (
	"time"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

const (
	seedName = "5 (004)"
	seedFile = "004_394ab0d665441d45.txt"
	upstream = "https://github.com/weaveworks/pipeline-controller/pull/214"
)

// workload draws the steps every pipeline plan starts from: v2 is published in
// the first environment, plus the extra steps of a fault profile.
func workload(extra func(t *rapid.T) []plan.Step) *rapid.Generator[[]plan.Step] {
	return rapid.Custom(func(t *rapid.T) []plan.Step {
		at := time.Duration(rapid.IntRange(0, 30).Draw(t, "publish-at")) * time.Second
		steps := []plan.Step{{At: at, Action: "publish", Args: plan.Args{{Key: "version", Value: "v2"}}}}
		if extra != nil {
			steps = append(steps, extra(t)...)
		}
		return steps
	})
}

func space(classes []plan.FaultKind, extra func(t *rapid.T) []plan.Step) plan.Space {
	return plan.Space{
		Processes: []string{ProcessName},
		Kinds:     []string{PipelineKind, HelmReleaseKind, PromotionClaimKind},
		Horizon:   2 * time.Minute,
		MaxLag:    5 * time.Second,
		Classes:   classes,
		Workload:  workload(extra),
	}
}

func expect(buggy, fixed, robust catalogue.Outcome) map[variant.Variant]catalogue.Outcome {
	return map[variant.Variant]catalogue.Outcome{variant.Buggy: buggy, variant.Fixed: fixed, variant.Robust: robust}
}

// selfStatusWhy explains why the fixed variant is caught where DESIGN.md expects
// it to hold.
const selfStatusWhy = "DESIGN.md expects PR #214 to hold against the self-status race. In the model it does not, and the model is kept: " +
	"the GenerationChangedPredicate filters the Pipeline's own status writes, but a promotion's effect is itself an app event. " +
	"In the minimal plan (1 ms of informer lag, no injected app event), the staging promotion takes effect at 2m0.0019s by updating the staging " +
	"HelmRelease's spec and then its status. The spec event starts r2, which promotes prod@v2 and records it in rv=25 at 2m2.0067s; the status " +
	"event arrived while r2 ran, so r3 starts at the same instant from a cache that still holds rv=24, without the record, and promotes prod@v2 again:\n\n" +
	"```\n" +
	"2m2.006734878s  pipeline-controller/pipeline#1 r2 patch/status Pipeline default/podinfo rv=21 (current 24, stale) wrote rv=25 -> ok\n" +
	"2m2.006734878s  pipeline-controller/pipeline#1 r3 reconcile  default/podinfo\n" +
	"2m2.008234241s  promotion                    promote    default/podinfo/prod@v2 -> ok\n" +
	"```\n\n" +
	"Any informer lag at all is enough; with real informers (milliseconds) and a worker that starts the next reconcile microseconds later, this is the common case."

func entry(id, summary string, sp plan.Space, ex map[variant.Variant]catalogue.Outcome) *catalogue.Entry {
	return &catalogue.Entry{
		ID: id, Seed: seedName, SeedFile: seedFile, Upstream: upstream, Summary: summary,
		Expect: ex, World: Options, Space: sp,
		FaultPhase: 5 * time.Minute, HealBudget: 30 * time.Minute,
		Properties: Properties,
	}
}

// Entries are the pipeline entries of the catalogue.
func Entries() []*catalogue.Entry {
	const c, h = catalogue.Caught, catalogue.Holds
	appEvents := func(t *rapid.T) []plan.Step {
		var out []plan.Step
		for i, n := 0, rapid.IntRange(1, 3).Draw(t, "app-events"); i < n; i++ {
			out = append(out, plan.Step{At: time.Duration(rapid.IntRange(0, 60).Draw(t, "app-event-at")) * time.Second,
				Action: "app-event", Args: plan.Args{{Key: "env", Value: rapid.SampledFrom(Environments).Draw(t, "app-event-env")}}})
		}
		return out
	}
	failsOnce := func(t *rapid.T) []plan.Step {
		env := rapid.SampledFrom(Environments[1:]).Draw(t, "fail-env")
		return []plan.Step{{At: 0, Action: "promotion-fails", Args: plan.Args{{Key: "env", Value: env}, {Key: "version", Value: "v2"}, {Key: "count", Value: "1"}}}}
	}
	selfStatus := entry("pipeline/self-status-race",
		"The pipeline controller promotes a new app version to the next environment and records the promotion in the Pipeline's status. "+
			"Without a predicate, its own status write enqueues the Pipeline again, and when the informer has not yet delivered that write the next reconcile "+
			"reads a Pipeline without the record and promotes the same version a second time.\n\n"+
			"PR #214 (\"usually once promotions\") adds the record, a GenerationChangedPredicate (status writes no longer enqueue) and a requeue while targets are not ready. "+
			"This entry is the self-status race alone: informer lag and holds on the controller's caches, no app events, no crashes.",
		space([]plan.FaultKind{plan.Lag, plan.Hold, plan.Latency}, nil), expect(c, c, h))
	selfStatus.Why = selfStatusWhy
	return []*catalogue.Entry{
		selfStatus,
		entry("pipeline/app-event-race",
			"The same promotion race, triggered not by the controller's own status write but by an event of the application (helm-controller reconciling the app "+
				"again at the same revision) while the promotion is in flight. The GenerationChangedPredicate of PR #214 filters Pipeline status writes but not app events, "+
				"so a reconcile that reads a Pipeline without the record promotes again.\n\n"+
				"The robust controller creates a PromotionClaim named after (pipeline, environment, version) before promoting: a second reconcile's Create fails with AlreadyExists.",
			space([]plan.FaultKind{plan.Lag, plan.Hold, plan.Latency}, appEvents), expect(c, c, h)),
		entry("pipeline/promotion-fails-once",
			"The first attempt to promote fails with no effect (the promotion system refuses it). The buggy controller retries only by accident; "+
				"PR #214 records the failed attempt ({version, succeeded: false}) and never tries that version again, so the environment stays behind for good.\n\n"+
				"The robust controller writes the failure to its claim and retries with backoff through a conditional write, so a retry takes effect exactly once.",
			space([]plan.FaultKind{plan.Lag, plan.Hold, plan.Latency}, failsOnce), expect(c, c, h)),
		entry("pipeline/crash-after-promote",
			"A weakness SEEDS.md lists for PR #214: the process dies between the Promote call and the status write that records it. "+
				"After the restart nothing shows the promotion happened, so the fixed controller promotes again.\n\n"+
				"The robust controller's claim survives the crash; a claim left in doubt is settled by asking the promotion system whether the promotion happened.",
			space([]plan.FaultKind{plan.Crash, plan.Lag}, nil), expect(c, c, h)),
	}
}
