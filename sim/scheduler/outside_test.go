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

// A task blocked outside that another task wakes (closing a channel it
// waits on) runs its own code until its first call into the simulator, where
// it rejoins: the kernel, after the waker's step, makes it runnable, and it
// runs at that instant of virtual time as a task.
func TestAnOutsideTaskWokenByAChannelRejoins(t *testing.T) {
	for _, wall := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			s, clk := newSched(1)
			s.SetSettle(synctest.Wait)
			if wall {
				s.SetWall(bubbleSleep)
			}
			start := clk.Now()
			wake := make(chan struct{})
			var log []string
			if _, err := s.GoOutside("p", "runnable", func(ctx context.Context) {
				<-wake
				s.Yield() // a call into the simulator: it rejoins here
				log = append(log, "woken at "+clk.Now().Sub(start).String())
				<-ctx.Done()
			}); err != nil {
				t.Fatal(err)
			}
			s.Go("p", "waker", func() {
				s.Sleep(time.Second)
				close(wake)
				s.Sleep(time.Second)
				log = append(log, "waker at "+clk.Now().Sub(start).String())
			})
			s.RunFor(10 * time.Second)
			if got, want := strings.Join(log, ","), "woken at 1s,waker at 2s"; got != want {
				t.Fatalf("wall=%v: log %q, want %q", wall, got, want)
			}
			s.Close()
		})
	}
}

// bubbleSleep is the follower a world in a bubble has (package wallclock's,
// without its drift check): a sleep of the bubble that a rejoin stops short.
func bubbleSleep(d time.Duration, wake <-chan struct{}) time.Duration {
	start := time.Now() // lint:wall-clock the bubble's virtual clock
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-wake:
	}
	return time.Since(start) // lint:wall-clock the bubble's virtual clock
}

// A task blocked outside on a timer of the bubble rejoins when the timer
// fires: the virtual clock stops at that instant (not at the next event of
// its own, 10s away), and the task runs there as a task.
func TestAnOutsideTaskWokenByATimerRunsAtItsInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		var at []time.Duration
		start := clk.Now()
		if _, err := s.GoOutside("p", "runnable", func(ctx context.Context) {
			for range 3 {
				time.Sleep(1500 * time.Millisecond)
				s.Yield() // a call into the simulator
				at = append(at, clk.Now().Sub(start))
			}
			<-ctx.Done()
		}); err != nil {
			t.Fatal(err)
		}
		s.Go("p", "sleeper", func() { s.Sleep(10 * time.Second) })
		s.RunFor(20 * time.Second)
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		want := []time.Duration{1500 * time.Millisecond, 3 * time.Second, 4500 * time.Millisecond}
		if len(at) != 3 || at[0] != want[0] || at[1] != want[1] || at[2] != want[2] {
			t.Fatalf("the task ran at %v, want %v", at, want)
		}
		s.Close()
	})
}
