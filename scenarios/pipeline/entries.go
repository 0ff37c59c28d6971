package pipeline

import (
	"strings"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

const (
	seedName = "5 (004)"
	seedFile = "004_394ab0d665441d45.txt"
	upstream = "https://github.com/weaveworks/pipeline-controller/pull/214"
)

func expect(buggy, fixed, robust catalogue.Outcome) map[variant.Variant]catalogue.Outcome {
	return map[variant.Variant]catalogue.Outcome{variant.Buggy: buggy, variant.Fixed: fixed, variant.Robust: robust}
}

// selfStatusWhy explains the outcomes of the self-status race: docs/design.md's
// expectation, the model's earlier contradiction of it, and why that was an
// artefact of the model.
const selfStatusWhy = "docs/design.md expects PR #214 to hold against the self-status race, and it does. An earlier model caught it, from an artefact: " +
	"a latency fault delayed every client call, cached reads included, so one reconcile's four cache reads spanned 3 ms. With " +
	"`latency process=pipeline-controller min=0s max=1ms` in its minimal plan, r2 started on the staging HelmRelease's spec event, the status event " +
	"landed between r2's cache reads (r2 saw staging ready, at rv=23, and promoted prod@v2) and, having arrived while r2 ran, started r3 at once " +
	"from a cache without r2's record, which promoted prod@v2 again:\n\n" +
	"```\n" +
	"2m0.002538649s  pipeline-controller/pipeline#1 r2 reconcile  default/podinfo\n" +
	"2m0.003107736s  pipeline-controller/pipeline#1 r2 cached-get Pipeline default/podinfo rv=21 -> ok\n" +
	"2m0.004766157s  pipeline-controller/pipeline#1 r2 cached-get HelmRelease staging/podinfo rv=23 -> ok\n" +
	"2m2.006734878s  pipeline-controller/pipeline#1 r3 reconcile  default/podinfo\n" +
	"2m2.006853104s  pipeline-controller/pipeline#1 r3 cached-get Pipeline default/podinfo rv=24 (current 25, stale) -> ok\n" +
	"2m2.008234241s  promotion                    promote    default/podinfo/prod@v2 -> ok\n" +
	"```\n\n" +
	"A cached read never leaves the process: it takes microseconds, not an API call's milliseconds. In the model now it takes no virtual time, " +
	"API calls take the latency measured against envtest (cluster.DefaultTiming), and a latency fault adds to API calls only. The promotion's two " +
	"events then reach the cache either together (one batch, as client-go's processLoop pops them back to back: r2 sees staging ready and promotes " +
	"prod@v2 once, and no event is left to start another reconcile) or apart (r2 reads staging at rv=22, not ready yet, and does nothing; r3 on the " +
	"status event promotes once). Seeds 0 and 1 of the same plan without the latency fault:\n\n" +
	"```\n" +
	"2m0.002299152s  pipeline-controller/pipeline#1 r2 cached-get HelmRelease staging/podinfo rv=23 -> ok\n" +
	"2m0.004391029s  promotion                    promote    default/podinfo/prod@v2 -> ok\n" +
	"2m2.006498178s  pipeline-controller/pipeline#1 r2 result     default/podinfo -> ok\n" +
	"\n" +
	"2m0.00208067s  pipeline-controller/pipeline#1 r2 cached-get HelmRelease staging/podinfo rv=22 (current 23, stale) -> ok\n" +
	"2m0.00208067s  pipeline-controller/pipeline#1 r2 result     default/podinfo -> ok\n" +
	"2m0.003482134s  pipeline-controller/pipeline#1 r3 reconcile  default/podinfo\n" +
	"2m0.003482134s  pipeline-controller/pipeline#1 r3 cached-get HelmRelease staging/podinfo rv=23 -> ok\n" +
	"2m0.005229538s  promotion                    promote    default/podinfo/prod@v2 -> ok\n" +
	"```\n\n" +
	"What still breaks the fix is a Pipeline watch stalled for the two minutes from a promotion to its effect: the next reconcile reads the " +
	"Pipeline from before the record and promotes again. The explorer finds it after 1,386 plans (explorer seed 1), past the catalogue's " +
	"budget of 200; replay it with `go run ./cmd/ctrlsim replay --entry pipeline/self-status-race --variant fixed --timeline --plan-text " +
	"$'seed 0\\nat 0s publish version=v2\\nhold process=pipeline-controller kind=pipelines.weave.works/v1alpha1/Pipeline from=1ms until=2m0.002s\\n'`:\n\n" +
	"```\n" +
	"2m0.00164772s  pipeline-controller/pipeline#1 r2 cached-get Pipeline default/podinfo rv=17 (current 21, stale) -> ok\n" +
	"2m0.003739597s  promotion                    promote    default/podinfo/staging@v2 -> ok\n" +
	"```"

func entry(id, summary string, ex map[variant.Variant]catalogue.Outcome) *catalogue.Entry {
	return &catalogue.Entry{
		ID: id, Seed: seedName, SeedFile: seedFile, Upstream: upstream, Summary: summary,
		Expect: ex,
	}
}

// Entries are the pipeline entries of the catalogue.
func Entries() []*catalogue.Entry {
	const c, h = catalogue.Caught, catalogue.Holds
	selfStatus := entry("pipeline/self-status-race",
		"The pipeline controller promotes a new app version to the next environment and records the promotion in the Pipeline's status. "+
			"Without a predicate, its own status write enqueues the Pipeline again, and when the informer has not yet delivered that write the next reconcile "+
			"reads a Pipeline without the record and promotes the same version a second time.\n\n"+
			"PR #214 (\"usually once promotions\") adds the record, a GenerationChangedPredicate (status writes no longer enqueue) and a requeue while targets are not ready. "+
			"This entry is the self-status race alone: informer lag and holds on the controller's caches, no app events, no crashes.",
		expect(c, h, h))
	selfStatus.Why = selfStatusWhy
	entries := []*catalogue.Entry{
		selfStatus,
		entry("pipeline/app-event-race",
			"The same promotion race, triggered not by the controller's own status write but by an event of the application (helm-controller reconciling the app "+
				"again at the same revision) while the promotion is in flight. The GenerationChangedPredicate of PR #214 filters Pipeline status writes but not app events, "+
				"so a reconcile that reads a Pipeline without the record promotes again.\n\n"+
				"The robust controller creates a PromotionClaim named after (pipeline, environment, version) before promoting: a second reconcile's Create fails with AlreadyExists.",
			expect(c, c, h)),
		entry("pipeline/promotion-fails-once",
			"The first attempt to promote fails with no effect (the promotion system refuses it). The buggy controller retries only by accident; "+
				"PR #214 records the failed attempt ({version, succeeded: false}) and never tries that version again, so the environment stays behind for good.\n\n"+
				"The robust controller writes the failure to its claim and retries with backoff through a conditional write, so a retry takes effect exactly once.",
			expect(c, c, h)),
		entry("pipeline/crash-after-promote",
			"A weakness SEEDS.md lists for PR #214: the process dies between the Promote call and the status write that records it. "+
				"After the restart nothing shows the promotion happened, so the fixed controller promotes again.\n\n"+
				"The robust controller's claim survives the crash; a claim left in doubt is settled by asking the promotion system whether the promotion happened.",
			expect(c, c, h)),
	}
	crash := entries[3]
	crash.Why = crashAfterPromoteWhy
	entries[2].Why = promotionFailsOnceWhy
	for _, e := range entries {
		if w := requiredMoved[e.ID]; w != "" {
			e.Why = strings.TrimPrefix(e.Why+"\n\n", "\n\n") + catalogue.RequiredStepsWhy + w
		}
	}
	return entries
}

// requiredMoved says, per entry, what moved when plan 0 and the sweep came
// to hold the publication (publish, Min 1) and the entry's own Min 1 steps.
var requiredMoved = map[string]string{
	"pipeline/app-event-race": "The buggy controller is still caught by plan 0, now on seed 1 with the app event every plan of this entry draws " +
		"(`at 0s publish version=v2`, `at 0s app-event env=dev`: two lines, was one): `side effect default/podinfo/prod@v2 happened twice` " +
		"(staging's on seed 0).",
	"pipeline/promotion-fails-once": "The buggy controller is caught by plan 0 on seed 1 (`at 0s publish version=v2`, `at 0s promotion-fails " +
		"env=staging version=v2 count=1`; the publication was at 1 ms on seed 0), where the two fault-free schedules also disagree on the " +
		"Pipeline's status (interleavings-agree: the run with seed 2049 is the suspect), beside retried-after-failure.",
	"pipeline/crash-after-promote": "The buggy controller is caught by plan 0 on seed 1 (`side effect default/podinfo/prod@v2 happened twice`, " +
		"staging's on seed 0), the fixed one at plan 135 (was 133) by the same minimal plan: the sweep's targets, from the fault-free run that now " +
		"holds the publication, fill other places among the random plans.",
}

// promotionFailsOnceWhy explains the buggy controller's change of property
// when a shrink came to keep the violation its plan was found by.
const promotionFailsOnceWhy = "The buggy controller is reported by retried-after-failure, with the entry's own case as its minimal plan: the promotion " +
	"system refuses the first attempt, and the controller never promotes v2 to staging again:\n\n" +
	"```\n" +
	"  4.0472ms  promotion                    promote    default/podinfo/staging@v2 -> error: promotion default/podinfo/staging@v2 failed (attempt 1): the pull request could not be opened\n" +
	"retried-after-failure violated at 32m0s: failed promotions never retried successfully: default/podinfo/staging@v2\n" +
	"```\n\n" +
	"It was reported by at-most-once, with the one-line plan `at 0s publish version=v2`. Its first failing plan violates both; a shrink then took " +
	"any candidate that showed a violation not reported yet, and slid from the refused promotion to a plan with no refusal, where the controller's " +
	"own status write makes it promote twice (pipeline/self-status-race's bug). Since session 38 a shrink keeps to the violation its plan was " +
	"found by (operatortest/search): a shrink that slid had lost the bug it was shrinking where the other one needs no fault. Both are bugs of the " +
	"buggy controller."

// crashAfterPromoteWhy explains the robust controller's change when the entry
// moved to operatortest, the one engine.
const crashAfterPromoteWhy = "On operatortest the generic oracle converges compares the end state with the fault-free run's, which the kernel's entry did not, " +
	"and it caught the robust controller (plan 131 of seed 1): a crash 5 ms in, after the staging claim and the Promote call but before the claim's outcome, " +
	"left the claim in doubt; the promotion took effect two minutes later, the controller went on to prod, and staging's promotion was never recorded in the " +
	"Pipeline's status:\n\n" +
	"```\n" +
	"3.74598ms  pipeline-controller/pipeline#1 r1 create     PromotionClaim default/podinfo-staging-cac93af962 wrote rv=18 -> ok\n" +
	"  4.0472ms  promotion                    promote    default/podinfo/staging@v2 -> ok\n" +
	"       5ms  pipeline-controller          crash       -> planned crash at 5ms\n" +
	"2m0.0040472s  promotion                    promotion-applied default/podinfo/staging@v2 -> ok\n" +
	"converges: Pipeline default/podinfo differs between the fault-free run of the same workload and this run at " +
	"status.environments.staging.promotion.lastAttemptedTime: \"<time>\" there, nothing here\n" +
	"```\n\n" +
	"A correct controller ends where a run without the crash ends. The robust controller now records, for an environment that already runs the " +
	"revision, the promotion its claim made, and settles a claim left in doubt as an attempt whose outcome was written does (controllers/pipeline " +
	"recordDone and settle). Replay: `go run ./cmd/ctrlsim replay --entry pipeline/crash-after-promote --variant robust --timeline --plan-text " +
	"$'seed 0\\nat 0s publish version=v2\\ncrash process=pipeline-controller at=5ms\\n'`." +
	"\n\nThe fixed controller was caught at plan 20 and is caught at plan 133 since kube-controller-manager's own garbage collector runs in every " +
	"world in place of ctrlsim's model of it (session 38). Plan 20 (random plan 18 of seed 1) is the same text but for its second crash, which a " +
	"random plan aims at an instant of its workload's fault-free run: that run's instants include kube-controller-manager's reads and writes, and " +
	"the hosted collector's (a list of PromotionClaims at 1.916261ms, of Pipelines at 1.946291ms) are not the model's, so the draw that gave " +
	"`crash process=pipeline-controller at=1.658634ms` now gives `at=2.00474598s`, and the plan holds. " +
	"The bug is the same; the plan that first shows it is another."
