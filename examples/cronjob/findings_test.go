package cronjob_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	kbatch "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// The findings of README.md, each pinned by its minimal plan: the plan breaks
// the property on the tutorial-design variant of the operator
// (cronjob.TutorialDesign), replays bit for bit (the same violations and the
// same trace hash), and holds on the operator as written (cronjob.Correct).

// Finding 1a: the Forbid decision reads the Job cache only. A Job watch that
// stalls for two minutes (rapid's minimal plan for the tutorial's own
// controller) hides the running Job, and the next scheduled run starts beside
// it.
const holdPlan = `seed 0
at 0s create-cronjob policy=Forbid duration=90s
hold process=cronjob kind=batch/v1/Job from=0s until=2m23.006s
`

// Finding 1b: the same with a 3 s lag of the Job watch alone, when a run
// delayed by Forbid starts within 3 s of the next scheduled time (Jobs
// sleeping 112 s on a one-minute schedule, finished about 115 s after their
// creation: the 00:02 run starts at 2m58s, when the cache shows the 00:01 Job
// ended).
const jobLagPlan = `seed 0
at 0s create-cronjob policy=Forbid duration=112s
lag process=cronjob kind=batch/v1/Job min=3s max=3.001s
`

// Finding 1c: a 3 s lag of every watch, with the same timing. Kubernetes' own
// controller can overlap here too (its status write is seen as late as the
// Job); see README.md.
const lagPlan = `seed 0
at 0s create-cronjob policy=Forbid duration=112s
lag process=cronjob kind=* min=3s max=3.001s
`

// Finding 1d: what an exploration of the tutorial's own controller without
// holds found (explorer seed 3, plan 269 of 300): the sample's 90 s Jobs, a
// 5 s lag of every watch, and Job creates failing for the first minute. The
// failures push the 00:01 run to 1m20s, Forbid holds 00:02 back until 2m58s,
// 2 s before 00:03 is due.
const apiLagPlan = `seed 1
at 0s create-cronjob policy=Forbid duration=90s
lag process=cronjob kind=* min=5s max=5.001s
api verb=create resource=jobs code=500 from=72ms until=1m13.624s
`

// Finding 2: successfulJobsHistoryLimit 0, no fault at all. Once a finished
// Job is deleted the tutorial's design recomputes lastScheduleTime from the
// Jobs that are left (none), so the scheduled time that just ran is due again while it
// is within startingDeadlineSeconds: a once-a-minute CronJob whose Jobs sleep
// 10 s (and finish about 13 s after their creation: the pod's scheduling and
// start, the job controller's counting) runs its 00:01 time five times.
const historyZeroPlan = `seed 0
at 0s create-cronjob successful=0 duration=10s
`

func TestFindingForbidOverlapsWhenTheJobWatchStalls(t *testing.T) {
	replaysAndBreaks(t, holdPlan, "forbid-never-overlaps")
}

func TestFindingForbidOverlapsWhenTheJobWatchLags(t *testing.T) {
	replaysAndBreaks(t, jobLagPlan, "forbid-never-overlaps")
}

func TestFindingForbidOverlapsWhenEveryWatchLags(t *testing.T) {
	replaysAndBreaks(t, lagPlan, "forbid-never-overlaps")
}

func TestFindingForbidOverlapsWhenJobCreatesFailAndEveryWatchLags(t *testing.T) {
	replaysAndBreaks(t, apiLagPlan, "forbid-never-overlaps")
}

func TestFindingHistoryLimitZeroRunsEveryScheduledTimeAgain(t *testing.T) {
	vs := replaysAndBreaks(t, historyZeroPlan, "no-scheduled-time-run-twice")
	if !strings.Contains(vs[0].Detail, "was run by 5 Jobs") {
		t.Errorf("the 00:01 run should have been run five times (every 13 s for the minute of its deadline): %s", vs[0].Detail)
	}
	// Without a startingDeadlineSeconds the same happens: the time is due
	// from the CronJob's creation on.
	replaysAndBreaks(t, strings.Replace(historyZeroPlan, "successful=0", "successful=0 deadline=none", 1), "no-scheduled-time-run-twice")
}

// replaysAndBreaks runs the plan twice on the tutorial-design variant: both
// runs must break property and be the same run. It returns the violations. With CTRLSIM_TIMELINE=1 it prints
// the first run's timeline.
func replaysAndBreaks(t *testing.T, text, property string) cronjob.Violations {
	t.Helper()
	p := mustParse(t, text)
	var timeline func(c *cluster.Cluster)
	if os.Getenv("CTRLSIM_TIMELINE") != "" {
		timeline = func(c *cluster.Cluster) { c.Trace.WriteTimeline(os.Stdout) }
	}
	first, err := cronjob.Run(t, p, cronjob.TutorialDesign, timeline)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Violations.Has(property) {
		t.Fatalf("the plan no longer breaks %s (violations: %v); the plan:\n%s", property, first.Violations, text)
	}
	again, err := cronjob.Run(t, p, cronjob.TutorialDesign, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash != first.Hash || !reflect.DeepEqual(again.Violations, first.Violations) {
		t.Errorf("the replay differs from the first run:\n first: %s %v\n again: %s %v", first.Hash, first.Violations, again.Hash, again.Violations)
	}
	t.Logf("%s", first.Violations)
	return first.Violations
}

// The README lists every pinned plan, verbatim.
func TestTheREADMEListsThePinnedPlans(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{holdPlan, jobLagPlan, lagPlan, apiLagPlan, historyZeroPlan} {
		if !strings.Contains(string(readme), text) {
			t.Errorf("README.md does not show the plan:\n%s", text)
		}
	}
}

// Every pinned plan holds on the operator as written: it decides on the
// apiserver's Jobs and remembers in its status the times that ran, so neither
// a stalled or lagging watch nor a history limit of 0 makes it overlap or run
// a time twice. The plans do act on it: each run creates Jobs.
func TestThePinnedPlansHoldOnTheOperator(t *testing.T) {
	for _, text := range []string{holdPlan, jobLagPlan, lagPlan, apiLagPlan, historyZeroPlan,
		strings.Replace(historyZeroPlan, "successful=0", "successful=0 deadline=none", 1)} {
		jobs := 0
		res, err := cronjob.Run(t, mustParse(t, text), cronjob.Correct, func(c *cluster.Cluster) {
			for _, ev := range c.Observed().Log {
				if _, ok := ev.Object.(*kbatch.Job); ok && ev.Type == watch.Added {
					jobs++
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violations != nil {
			t.Errorf("the operator breaks a property: %v; the plan:\n%s", res.Violations, text)
		}
		if jobs < 2 {
			t.Errorf("only %d Jobs were created: the plan did not exercise the operator:\n%s", jobs, text)
		}
	}
}
