package cronjob_test

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/examples/cronjob/internal/controller"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// property is one of the CronJob user's properties as an operatortest property.
func property(name string, judge func(r *check.Run) cronjob.Violations) operatortest.Property {
	return operatortest.Property{Name: name, Check: func(h *operatortest.History) error { return judge(h.Run()).Err() }}
}

// The tutorial, as an operator author would test it with package operatortest:
// its SetupWithManager as cmd/main.go calls it, its generated CRD file, the
// sample CronJob (Forbid, 90 s Jobs), the workload models that operatortest
// runs by default (the job controller and the kubelet run its Jobs), and
// the two history properties; the generic oracles but converges. converges is off: a CronJob that skips a run
// missed while its controller was down is designed so, and the end states of
// a faulty and a fault-free run then differ by design. The first finding of
// README.md (Forbid overlaps under a stalled Job watch) is found within the
// budget, by the explorer's own plans.
//
// Shrinking is bounded at 60 runs. It takes about a minute on two loaded
// cores (each run validates the CronJob's status writes against the CRD's
// 0.2 MB schema with apiextensions-apiserver's ratcheting validator: most of
// the CPU), so it runs when asked: CTRLSIM_LONG=1 go test ./examples/cronjob
// -run TestTheTutorialUnderOperatorTest -v (measured: the overlap after 160
// plans, under a lag of every watch and two crashes: finding 1c's kind).
func TestTheTutorialUnderOperatorTest(t *testing.T) {
	if os.Getenv("CTRLSIM_LONG") == "" {
		t.Skip("about a minute: CTRLSIM_LONG=1 to run it")
	}
	o := tutorialOptions(t)
	// Only the domain properties and the kernel's verdicts: see tutorialOptions.
	o.Disable = append(o.Disable, operatortest.UpdateSummaries, operatortest.InterleavingsAgree)
	// With the workload models the space has one process fewer than with the
	// earlier Job model (a manager of its own), so the explorer draws other
	// plans: the first overlap is at plan 160 of seed 1, not 21.
	o.Checks = 200
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("nothing found in %d plans; want the Forbid overlap", res.Checks)
	}
	var names []string
	for _, v := range res.Violations {
		names = append(names, v.Property)
	}
	t.Logf("found after %d plans: %v\n%s", res.Checks, names, res.Minimal)
	if res.Violations[0].Property != "forbid-no-overlap" {
		t.Errorf("found %v first, want forbid-no-overlap (the tutorial's Forbid reads its Job cache); the plan:\n%s", res.Violations, res.Minimal)
	}
}

// tutorialOptions is the tutorial as an operator author gives it to
// operatortest. converges and update-summaries are off: a CronJob that skips
// a run missed while its controller was down is designed so, and the end
// states and Job counts of a faulty and a fault-free run then differ by
// design. interleavings-agree is on (it compares fault-free runs only).
func tutorialOptions(t *testing.T) operatortest.Options {
	t.Helper()
	sample, err := cronjob.NewCronJob(plan.Args{{Key: "policy", Value: "Forbid"}, {Key: "duration", Value: "90s"}})
	if err != nil {
		t.Fatal(err)
	}
	// Objects are created before time starts, before the tutorial's webhook
	// serves: the sample is defaulted as the webhook would default it.
	if err := cronjob.DefaultAsTheWebhook(sample); err != nil {
		t.Fatal(err)
	}
	return operatortest.Options{
		Scheme:       cronjob.Scheme(),
		CRDFiles:     []string{"testdata/batch.tutorial.kubebuilder.io_cronjobs.yaml"},
		WebhookFiles: []string{"testdata/webhook-manifests.yaml"},
		Managers: []operatortest.Manager{
			{Name: cronjob.Operator, Setup: func(mgr manager.Manager) error {
				if err := (&controller.CronJobReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr); err != nil {
					return err
				}
				return cronjob.SetupWebhooks(mgr)
			}},
		},
		Objects: []client.Object{sample},
		Properties: []operatortest.Property{
			property("forbid-no-overlap", cronjob.ForbidNeverOverlaps),
			property("once-per-schedule", cronjob.NoScheduledTimeRunTwice),
		},
		FaultPhase: cronjob.FaultPhase, HealBudget: cronjob.HealBudget,
		Disable:    []string{operatortest.Converges, operatortest.UpdateSummaries},
		NoWorkload: true,
		// The job controller and the kubelet (operatortest's workload
		// models, on by default) run the Jobs' pods; the collector deletes
		// the pods of the Jobs the tutorial deletes.
		Checks: 100, Seed: 1, ShrinkRuns: 60,
	}
}

// interleavings-agree finds README's finding 5 within a few plans, with no
// fault at all: in the fault-free run of one schedule the tutorial's second
// reconcile tries to create the Job its cache has not seen yet, gets
// AlreadyExists and sets Degraded=True, which nothing clears; in another
// schedule the cache has the Job by then. A real cluster's informer lag gives
// either.
func TestInterleavingsDisagreeOnTheDegradedCondition(t *testing.T) {
	o := tutorialOptions(t)
	o.Checks = 10
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || res.Violations[0].Property != operatortest.InterleavingsAgree {
		t.Fatalf("want interleavings-agree violated first within %d plans, got %+v", o.Checks, res)
	}
	if d := res.Violations[0].Detail; !strings.Contains(d, `"reason":"JobCreationFailed"`) || !strings.Contains(d, "already exists") {
		t.Errorf("the disagreement is not the sticky Degraded condition:\n%s", d)
	}
	t.Logf("found after %d plans:\n%s\n%s", res.FirstFailure, res.Minimal, res.Violations[0].Detail)
}
