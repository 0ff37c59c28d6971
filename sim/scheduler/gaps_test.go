package scheduler_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A goroutine that never calls into the simulator is never a task: when its
// group is killed it runs on, on the timers of the bubble.
func TestAGoroutineThatNeverCallsInRunsOnAfterItsGroupDies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		var polls atomic.Int32
		stop := make(chan struct{})
		s.Go("p", "setup", func() {
			go func() { // a poller of an outside system
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
						polls.Add(1)
					}
				}
			}()
			s.Sleep(time.Hour)
		})
		var atKill int32
		s.Go("q", "killer", func() {
			s.Sleep(time.Second)
			atKill = polls.Load()
			s.KillGroup("p")
		})
		s.RunFor(3 * time.Second)
		if after := polls.Load(); after < atKill+10 {
			t.Errorf("the poller polled %d times by the kill at 1s and %d by 3s: want it polling on", atKill, after)
		}
		close(stop)
		s.Close()
	})
}

// A waiting task's condition is evaluated between steps, however many steps
// other tasks take before it holds.
func TestWaitingConditionsArePolledBetweenSteps(t *testing.T) {
	s, _ := newSched(0)
	ready, evaluated := false, 0
	s.Go("p", "waiter", func() {
		s.WaitUntil(func() bool { evaluated++; return ready })
	})
	s.Go("p", "busy", func() {
		for range 100 {
			s.Yield()
		}
		ready = true
	})
	s.RunFor(time.Second)
	if evaluated < 100 {
		t.Errorf("the condition was evaluated %d times over 100 steps of another task, want at least 100", evaluated)
	}
}
