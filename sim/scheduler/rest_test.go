package scheduler_test

import (
	"testing"
	"time"
)

// A world at rest (no task runnable, no timer due before the budget's end)
// reaches the end of its budget at once: no task step, its waiting tasks
// still waiting. A heal budget of hours on a world at rest costs nothing, so
// a run need not be cut short to save it; and a timer before the end (a
// requeue-after, a resync) is not rest: it fires, at its instant.
func TestAWorldAtRestReachesTheBudgetsEndWithoutAStep(t *testing.T) {
	s, c := newSched(1)
	start := c.Now()
	woken := false
	s.Go("p", "worker", func() {
		s.Sleep(time.Second)
		s.WaitUntil(func() bool { return woken }) // a worker blocked on its empty queue
	})
	s.RunFor(2 * time.Second)
	steps := s.Steps()
	s.RunFor(time.Hour)
	if got := s.Steps(); got != steps {
		t.Errorf("a world at rest took %d task steps over an hour", got-steps)
	}
	if got := c.Since(start); got != time.Hour+2*time.Second {
		t.Errorf("the clock is at %v, want the budget's end %v", got, time.Hour+2*time.Second)
	}
	if len(s.Tasks()) != 1 {
		t.Errorf("the waiting worker ended at rest: %d tasks", len(s.Tasks()))
	}

	// A requeue-after 30 minutes is a timer: the next hour is not at rest.
	var at time.Duration
	c.AfterFunc(30*time.Minute, func() { woken, at = true, c.Since(start) })
	s.RunFor(time.Hour)
	if !woken || at != time.Hour+2*time.Second+30*time.Minute {
		t.Errorf("the timer fired %v at %v, want at %v", woken, at, time.Hour+2*time.Second+30*time.Minute)
	}
	if s.Steps() == steps || len(s.Tasks()) != 0 {
		t.Errorf("the worker did not run when the timer woke it (steps %d -> %d, tasks %d)", steps, s.Steps(), len(s.Tasks()))
	}
}
