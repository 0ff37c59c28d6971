package controller

import (
	"testing"
	"time"

	"github.com/robfig/cron"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
)

var t0 = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// The due time is the latest scheduled time after the last one that ran (or
// the CronJob's creation), not older than the starting deadline: earlier
// missed times are skipped, and a time at or before lastScheduleTime never
// runs again.
func TestTheDueTimeIsTheLatestMissedTimeWithinTheDeadline(t *testing.T) {
	sched, err := cron.ParseStandard("*/1 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Time{Time: at(time.Second)}}}
	last := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: at(d)} }
	for _, c := range []struct {
		name      string
		deadline  *int64
		last      *metav1.Time
		now       time.Duration
		run, next time.Duration // run -1: none due
	}{
		{"nothing due before the first minute", nil, nil, 30 * time.Second, -1, time.Minute},
		{"the first minute is due", nil, nil, time.Minute + time.Second, time.Minute, 2 * time.Minute},
		{"of several missed, the latest", nil, nil, 5*time.Minute + 30*time.Second, 5 * time.Minute, 6 * time.Minute},
		{"a time that ran is not due again", nil, last(time.Minute), time.Minute + 50*time.Second, -1, 2 * time.Minute},
		{"the time after the last that ran", nil, last(time.Minute), 2*time.Minute + time.Second, 2 * time.Minute, 3 * time.Minute},
		{"within the deadline", ptr.To[int64](60), nil, 2*time.Minute + 59*time.Second, 2 * time.Minute, 3 * time.Minute},
		{"past the deadline, skipped", ptr.To[int64](10), last(time.Minute), 2*time.Minute + 11*time.Second, -1, 3 * time.Minute},
	} {
		cj.Spec.StartingDeadlineSeconds = c.deadline
		run, next := dueTime(sched, cj, c.last, at(c.now))
		wantRun := time.Time{}
		if c.run >= 0 {
			wantRun = at(c.run)
		}
		if !run.Equal(wantRun) || !next.Equal(at(c.next)) {
			t.Errorf("%s: due %v, next %v; want %v, %v", c.name, run, next, wantRun, at(c.next))
		}
	}
}

// A schedule that never fires (the 30th of February) is never due and has no
// next time; the search ends.
func TestAScheduleThatNeverFiresIsNeverDue(t *testing.T) {
	sched, err := cron.ParseStandard("0 0 30 2 *")
	if err != nil {
		t.Fatal(err)
	}
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Time{Time: t0}}}
	run, next := dueTime(sched, cj, nil, at(24*time.Hour))
	if !run.IsZero() || !next.IsZero() {
		t.Errorf("due %v, next %v; want neither", run, next)
	}
}
