package cronjob_test

import (
	"testing"

	kbatch "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// Situations that look like the findings but are what the user asked for: the
// properties must not call them violations, on the operator or on its
// tutorial-design variant.

// With concurrencyPolicy Allow, 90 s Jobs on a one-minute schedule overlap, as
// they should: the same overlap that breaks Forbid is no violation here.
func TestAllowOverlapsAreNoViolation(t *testing.T) {
	res := holdsAndOverlaps(t, "seed 0\nat 0s create-cronjob policy=Allow duration=90s\n")
	if res < 2 {
		t.Fatalf("at most %d Jobs ran at once: the test needs overlapping Jobs to mean anything", res)
	}
}

// The same with the Job watch stalled as in Finding 1a: under Allow, the
// stalled watch changes nothing a user would call wrong.
func TestAllowOverlapsUnderAStalledJobWatchAreNoViolation(t *testing.T) {
	holdsAndOverlaps(t, "seed 0\nat 0s create-cronjob policy=Allow duration=90s\nhold process=cronjob kind=batch/v1/Job from=0s until=2m22.006s\n")
}

// Forbid without faults: runs wait for the running Job (the 00:02 run starts
// at 2m30s when the 00:01 Job ends, within the 60 s deadline), and never
// overlap. Finding 1 is the faults' doing, not the property's.
func TestForbidWithoutFaultsHolds(t *testing.T) {
	if n := holdsAndOverlaps(t, "seed 0\nat 0s create-cronjob policy=Forbid duration=90s\n"); n != 1 {
		t.Fatalf("%d Jobs ran at once under Forbid", n)
	}
}

// Replace deletes the running Job before it creates the next: in the
// apiserver's history they never overlap, and Replace is not judged by the
// Forbid property anyway.
func TestReplaceHolds(t *testing.T) {
	holdsAndOverlaps(t, "seed 0\nat 0s create-cronjob policy=Replace duration=90s\n")
}

// A history limit of 1 with 10 s Jobs deletes every Job but the last, yet no
// scheduled time runs twice: the Job left carries the latest scheduled time
// (which the tutorial-design variant rebuilds lastScheduleTime from). Finding
// 2 needs the limit 0.
func TestHistoryLimitOneRunsEachTimeOnce(t *testing.T) {
	holdsAndOverlaps(t, "seed 0\nat 0s create-cronjob successful=1 duration=10s\n")
}

// holdsAndOverlaps runs the plan on the operator and on its tutorial-design
// variant (both do what the user asked here), fails the test on any
// violation, and returns the most Jobs that were unfinished at once in the
// apiserver's history of either run.
func holdsAndOverlaps(t *testing.T, text string) int {
	t.Helper()
	most := 0
	for _, v := range []cronjob.Variant{cronjob.Correct, cronjob.TutorialDesign} {
		res, err := cronjob.Run(t, mustParse(t, text), v, func(c *cluster.Cluster) {
			running := map[types.UID]bool{}
			for _, ev := range c.Observed().Log {
				job, ok := ev.Object.(*kbatch.Job)
				if !ok {
					continue
				}
				switch {
				case ev.Type == watch.Added && !cronjob.JobFinished(job):
					running[job.UID] = true
				case ev.Type == watch.Deleted || cronjob.JobFinished(job):
					delete(running, job.UID)
				}
				most = max(most, len(running))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Violations != nil {
			t.Fatalf("false alarm on the %s operator: %v; the plan:\n%s", v, res.Violations, text)
		}
	}
	return most
}
