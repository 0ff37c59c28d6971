package scheduler_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A task (not a Runnable: a worker, a model's loop) that waits on a timer of
// the bubble runs again at the timer's instant of virtual time, while the
// others run meanwhile.
func TestATaskWaitingOnABubbleTimerRunsAtItsInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		start := clk.Now()
		var log []string
		s.Go("p", "sleeper", func() {
			time.Sleep(1500 * time.Millisecond)
			s.Yield()
			log = append(log, "slept to "+clk.Now().Sub(start).String())
		})
		s.Go("p", "ticker", func() {
			for range 2 {
				s.Sleep(time.Second)
				log = append(log, "tick at "+clk.Now().Sub(start).String())
			}
		})
		s.RunFor(5 * time.Second)
		if got, want := strings.Join(log, ","), "tick at 1s,slept to 1.5s,tick at 2s"; got != want {
			t.Fatalf("log %q, want %q", got, want)
		}
		s.Close()
	})
}

// A task killed while it waits never runs again: when its timer wakes it, it
// unwinds at its first call into the simulator.
func TestATaskKilledWhileItWaitsNeverRunsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		var log []string
		victim := s.Go("p", "victim", func() {
			time.Sleep(2 * time.Second)
			s.Yield() // it unwinds here
			log = append(log, "ran after the kill")
		})
		s.Go("q", "killer", func() {
			s.Sleep(time.Second)
			s.Kill(victim)
			log = append(log, "killed")
		})
		s.RunFor(5 * time.Second)
		if got := strings.Join(log, ","); got != "killed" {
			t.Fatalf("log %q, want only the kill", got)
		}
		if !victim.Done() {
			t.Errorf("the killed task has not ended after its wake")
		}
		s.Close()
	})
}

// A task waiting on a channel of the virtual clock (a timer of the injected
// clock, not the bubble's) rejoins when the kernel fires that timer.
func TestATaskWaitingOnAVirtualTimerChannelRejoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		start := clk.Now()
		var at time.Duration
		s.Go("p", "waiter", func() {
			<-clk.NewTimer(3 * time.Second).C()
			s.Yield()
			at = clk.Now().Sub(start)
		})
		s.RunFor(5 * time.Second)
		if at != 3*time.Second {
			t.Fatalf("the task ran on at %v, want 3s", at)
		}
		s.Close()
	})
}
