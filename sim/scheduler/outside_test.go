package scheduler_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/scheduler"
)

// A task that may block outside the scheduler (a manager's Runnable) runs its
// work as a task, and when it blocks on something the scheduler does not see
// (here its context) the kernel goes on without it; Close cancels its context
// and it returns, its calls into the simulator unwinding.
func TestAnOutsideTaskRunsUntilItBlocksOutside(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		var log []string
		_, err := s.GoOutside("p", "runnable", func(ctx context.Context) {
			for i := range 3 {
				log = append(log, "work "+string(rune('0'+i)))
				s.Yield()
			}
			<-ctx.Done()
			log = append(log, "cancelled")
			s.Yield() // a killed task's call: it unwinds here
			log = append(log, "never")
		})
		if err != nil {
			t.Fatal(err)
		}
		s.Go("p", "other", func() {
			for range 5 {
				s.Sleep(time.Second)
				log = append(log, "tick")
			}
		})
		s.RunFor(10 * time.Second)
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(log, ",")
		if want := "work 0,work 1,work 2,tick,tick,tick,tick,tick"; got != want {
			t.Fatalf("log %q, want %q", got, want)
		}
		s.Close()
		if got := strings.Join(log[8:], ","); got != "cancelled" {
			t.Fatalf("after Close: %q, want cancelled (and no call after it taking effect)", got)
		}
	})
}

// Outside a testing/synctest bubble there is no way to tell a task blocked
// outside from one still working: GoOutside refuses.
func TestAnOutsideTaskNeedsABubble(t *testing.T) {
	s, _ := newSched(1)
	if _, err := s.GoOutside("p", "runnable", func(context.Context) {}); !errors.Is(err, scheduler.ErrNoSettle) {
		t.Fatalf("err = %v, want ErrNoSettle", err)
	}
}

// A task blocked outside that something other than the scheduler wakes (a
// channel another task closes) and that then calls into the simulator would
// run alongside the kernel's choice: the run stops with an error naming it.
func TestAnOutsideTaskWokenOnItsOwnStopsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		wake := make(chan struct{})
		if _, err := s.GoOutside("p", "runnable", func(ctx context.Context) {
			<-wake
			s.Yield()
		}); err != nil {
			t.Fatal(err)
		}
		s.Go("p", "waker", func() {
			s.Sleep(time.Second)
			close(wake)
			s.Sleep(time.Second)
		})
		s.RunFor(10 * time.Second)
		synctest.Wait()
		s.RunFor(time.Second)
		if err := s.Err(); err == nil || !strings.Contains(err.Error(), "task runnable blocked outside the scheduler") {
			t.Fatalf("Err = %v, want the runnable named", err)
		}
		s.Close()
	})
}
