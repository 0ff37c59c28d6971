package scheduler_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"fmt"
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

// A goroutine that the kernel started (as it runs a process's Setup), and
// so no task's, is not adopted when its first call into the simulator names
// no group: the call runs as the running goroutine's, here the task that
// woke it.
func TestAGoroutineTheKernelStartedCallsInAsTheRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		wake, called := make(chan struct{}), make(chan struct{})
		var as string
		go func() { // the kernel's, not a task's
			<-wake
			as = s.Current().Name() // a call with no group
			close(called)
		}()
		s.Go("p", "waker", func() {
			close(wake)
			<-called
		})
		s.RunFor(time.Second)
		left := len(s.Tasks())
		s.Close()
		if as != "waker" || left != 0 {
			t.Fatalf("the goroutine's call ran as %q, with %d tasks left; want it to run as the waker's, and no task adopted", as, left)
		}
	})
}

// A goroutine that a task started and that never called into the simulator
// is no task: killing its group does not end it, nor does Close, and one
// blocked on a channel of its own stays blocked (here the test then ends
// it; left, synctest would report the bubble deadlocked).
func TestAGoroutineThatNeverCalledInIsLeftBlockedAtClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		own := make(chan struct{})
		var ended atomic.Bool
		s.Go("p", "setup", func() {
			go func() {
				<-own
				ended.Store(true)
			}()
			s.Sleep(time.Hour)
		})
		s.Go("q", "killer", func() {
			s.Sleep(time.Second)
			s.KillGroup("p")
		})
		s.RunFor(2 * time.Second)
		s.Close()
		synctest.Wait()
		if ended.Load() {
			t.Fatal("the goroutine ended at Close: it was not left")
		}
		close(own)
		synctest.Wait()
		if !ended.Load() {
			t.Fatal("the goroutine did not end once its channel was closed")
		}
	})
}

// A task of GoOutside that ignores its context's cancellation at Close (it
// waits on a channel of its own) is left blocked, and the bubble, once its
// main goroutine returns, reports the deadlock. The goroutine stays blocked
// for the rest of the test binary.
func TestAnOutsideTaskThatIgnoresItsContextIsLeftAtClose(t *testing.T) {
	defer func() {
		const want = "deadlock: main bubble goroutine has exited but blocked goroutines remain"
		if r := recover(); fmt.Sprint(r) != want {
			t.Fatalf("the bubble ended with %v, want the panic %q", r, want)
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		own := make(chan struct{})
		if _, err := s.GoOutside("p", "runnable", func(context.Context) { <-own }); err != nil {
			t.Fatal(err)
		}
		s.RunFor(time.Second)
		s.Close()
	})
}

// Outside a bubble (no SetSettle) the kernel resumes a task and waits for
// its yield: a task blocked on a channel of its own holds the whole run, the
// virtual clock with it. The bubble here only detects it: once every
// goroutine of the bubble is durably blocked, the run is stuck.
func TestOutsideABubbleATaskBlockedOnAChannelHoldsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(1) // no SetSettle: as outside a bubble
		start := clk.Now()
		own := make(chan struct{})
		s.Go("p", "blocker", func() {
			s.Sleep(time.Second)
			<-own
		})
		s.Go("q", "sleeper", func() { s.Sleep(time.Hour) })
		ran := make(chan struct{})
		go func() { // the kernel
			s.RunFor(10 * time.Second)
			close(ran)
		}()
		synctest.Wait()
		select {
		case <-ran:
			t.Fatal("the run ended while a task was blocked on its own channel")
		default:
		}
		if at := clk.Now().Sub(start); at != time.Second {
			t.Fatalf("the run stopped at %v of virtual time, want 1s, where the task blocked", at)
		}
		close(own)
		<-ran
		s.Close()
	})
}

// A killed task's deferred code that waits on a timer of the bubble holds
// whoever killed it (here the kernel) until the timer fires: the bubble's
// clock moves on while the virtual clock stands still.
func TestAKilledTasksDeferredTimerWaitHoldsItsKiller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		victim := s.Go("p", "victim", func() {
			defer time.Sleep(2 * time.Second) // a timer of the bubble
			s.Sleep(time.Hour)
		})
		s.RunFor(time.Second)
		wall, virtual := time.Now(), clk.Now() // lint:wall-clock the bubble's clock
		s.Kill(victim)
		if w, v := time.Since(wall), clk.Since(virtual); w != 2*time.Second || v != 0 { // lint:wall-clock the bubble's clock
			t.Fatalf("the kill took %v of the bubble's clock and %v of virtual time, want 2s and 0", w, v)
		}
		s.Close()
	})
}

// In a bubble the kernel settles the bubble at every step of the virtual
// clock, with no task at all: a timer of the bubble may wake a goroutine
// that calls in for the first time.
func TestInABubbleTheKernelSettlesAtEveryStepOfTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(1)
		settles := 0
		s.SetSettle(func() { settles++; synctest.Wait() })
		s.SetWall(bubbleSleep)
		for i := range 10 {
			clk.AfterFunc(time.Duration(i+1)*time.Second, func() {})
		}
		s.RunFor(20 * time.Second)
		if settles < 11 {
			t.Fatalf("%d settles over 11 steps of the clock (10 timers and the run's end), want at least one a step", settles)
		}
		s.Close()
	})
}
