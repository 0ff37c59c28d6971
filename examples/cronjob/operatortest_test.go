package cronjob_test

import (
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// property is one of the CronJob user's properties as an operatortest property.
func property(name string, judge func(r *check.Run) cronjob.Violations) operatortest.Property {
	return operatortest.Property{Name: name, Check: func(h *operatortest.History) error { return judge(h.Run()).Err() }}
}

// The operator as an author tests it with package operatortest, in one call:
// its SetupWithManager and webhook setup as cmd/main.go calls them, its
// generated CRD and webhook manifests, the sample CronJob (Forbid, 90 s Jobs),
// the workload models that operatortest runs by default (the job controller
// and the kubelet run its Jobs), the two history properties, the generated
// workload (the sample mutated from its CRD's schema, deleted, re-created)
// and every generic oracle, as operatortest's defaults have them. The
// operator holds on every plan of the budget.
func TestTheOperatorUnderOperatorTest(t *testing.T) {
	operatortest.Run(t, operatorOptions(t, cronjob.Correct))
}

// The same options on the tutorial-design variant: operatortest's own plans
// find one of its findings within 100 plans: the Forbid overlap (README.md,
// finding 1) or, with the generated workload, a scheduled time run again for
// a CronJob the user deleted that the restarted variant's stale cache still
// shows (finding 3). Explore
// rather than Run, which would save the minimal plan under testdata/ and
// replay it first on every later run.
func TestTheTutorialDesignUnderOperatorTest(t *testing.T) {
	if testing.Short() {
		t.Skip("20-40 s of exploring and shrinking: not under -short")
	}
	o := operatorOptions(t, cronjob.TutorialDesign)
	o.ShrinkRuns = 15
	// Stale restarts are drawn aimed at the fault-free run's writes half of
	// the time, so uniform ones, which find these findings, come
	// half as often: the first finding came after 40, 58, 48 and 56 plans
	// on explorer seeds 1, 2, 3 and 5, and none in 100 on seed 4 (with
	// uniform ages only, seed 1 found one after 7). The budget is 100 plans.
	o.Checks = 100
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("nothing found in %d plans; want the Forbid overlap or a scheduled time run twice", res.Checks)
	}
	t.Logf("found after %d plans (%s to find, %s to shrink):\n%s\n%s", res.FirstFailure, res.TimeToFirstFailure.Round(time.Millisecond),
		res.ShrinkTime.Round(time.Millisecond), res.Minimal, res.Violations[0].Detail)
	// The plan that shows a finding also fails the generic oracles (a Job
	// too many changes the end state): one of its violations is a finding
	// of the variant, or the plan is the design's and not the harness's
	// doing: the operator as written holds it. The sweep's hold of the
	// CronJob watch from the start to the heal (explorer seed 1, plan 3)
	// ends the tutorial design without a Job the fault-free run keeps
	// (converges), which the README's findings do not yet explain; the
	// operator as written holds the same plan.
	found := false
	for _, v := range res.Violations {
		found = found || v.Property == "forbid-no-overlap" || v.Property == "once-per-schedule"
	}
	if !found {
		r, err := operatortest.Replay(t, operatorOptions(t, cronjob.Correct), res.Minimal)
		if err != nil {
			t.Fatal(err)
		}
		var also []string
		for _, v := range r.Violated() {
			also = append(also, string(v.Property))
		}
		if len(also) > 0 {
			t.Errorf("found %v, none of the variant's findings (forbid-no-overlap, once-per-schedule), and the operator as written violates %v on the same plan too (a false alarm, not the design's):\n%s", res.Violations, also, res.Minimal)
		} else {
			t.Logf("a divergence of the tutorial design that the operator as written does not show (%s): the plan:\n%s", res.Violations[0].Property, res.Minimal)
		}
	}
}

// operatorOptions is the operator (variant v) as an author gives it to
// operatortest.
func operatorOptions(t *testing.T, v cronjob.Variant) operatortest.Options {
	t.Helper()
	sample, err := cronjob.NewCronJob(plan.Args{{Key: "policy", Value: "Forbid"}, {Key: "duration", Value: "90s"}})
	if err != nil {
		t.Fatal(err)
	}
	// Objects are created before time starts, before the webhook serves:
	// the sample is defaulted as the webhook would default it.
	if err := cronjob.DefaultAsTheWebhook(sample); err != nil {
		t.Fatal(err)
	}
	return operatortest.Options{
		Scheme:       cronjob.Scheme(),
		CRDFiles:     []string{"testdata/batch.ctrlsim.dev_cronjobs.yaml"},
		WebhookFiles: []string{"testdata/webhook-manifests.yaml"},
		Managers:     []operatortest.Manager{{Name: cronjob.Operator, Setup: cronjob.Setup(v)}},
		Objects:      []client.Object{sample},
		Properties: []operatortest.Property{
			property("forbid-no-overlap", cronjob.ForbidNeverOverlaps),
			property("once-per-schedule", cronjob.NoScheduledTimeRunTwice),
		},
		FaultPhase: cronjob.FaultPhase, HealBudget: cronjob.HealBudget,
		Checks: 10, Seed: 1, ShrinkRuns: 60,
	}
}
