package scheduler_test

import (
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/rng"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
)

func newSched(seed uint64) (*scheduler.Scheduler, *clock.Clock) {
	c := clock.New(clock.Epoch)
	return scheduler.New(c, rng.New(seed).Stream("scheduler")), c
}

// interleaving runs three tasks that each log five steps with a yield between, and
// returns the order in which steps ran.
func interleaving(seed uint64) string {
	s, _ := newSched(seed)
	var log []string
	for _, name := range []string{"a", "b", "c"} {
		s.Go("p", name, func() {
			for i := 0; i < 5; i++ {
				log = append(log, name)
				s.Yield()
			}
		})
	}
	s.RunFor(time.Second)
	return strings.Join(log, "")
}

func TestInterleavingIsAFunctionOfTheSeed(t *testing.T) {
	a, b := interleaving(1), interleaving(1)
	if a != b {
		t.Fatalf("same seed, different interleavings: %s vs %s", a, b)
	}
	distinct := map[string]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		distinct[interleaving(seed)] = true
	}
	if len(distinct) < 5 {
		t.Errorf("seeds should explore different interleavings, got %d distinct", len(distinct))
	}
	if got := len(a); got != 15 {
		t.Errorf("every step runs: %d", got)
	}
}

func TestSleepWaitsInVirtualTime(t *testing.T) {
	s, c := newSched(0)
	var woke time.Time
	s.Go("p", "sleeper", func() {
		c.Sleep(90 * time.Second) // through the clock's sleeper hook
		woke = c.Now()
	})
	s.RunFor(time.Minute)
	if !woke.IsZero() {
		t.Fatal("woke before its time")
	}
	s.RunFor(time.Hour)
	if want := clock.Epoch.Add(90 * time.Second); !woke.Equal(want) {
		t.Errorf("woke at %v, want %v", woke, want)
	}
	if got := c.Now(); !got.Equal(clock.Epoch.Add(time.Hour + time.Minute)) {
		t.Errorf("RunFor leaves the clock at the end of the interval, got %v", got)
	}
}

// Stop ends a run at an event: a timer callback stops it, and the clock stays at
// the timer's time with later work left for the next run.
func TestStopEndsTheRunAtTheEvent(t *testing.T) {
	s, c := newSched(0)
	var ticks []time.Duration
	s.Go("p", "ticker", func() {
		for range 10 {
			c.Sleep(time.Second)
			ticks = append(ticks, c.Since(clock.Epoch))
		}
	})
	c.AfterFunc(3500*time.Millisecond, s.Stop)
	s.RunFor(time.Hour)
	if got := c.Since(clock.Epoch); got != 3500*time.Millisecond {
		t.Fatalf("the run stopped at %s, want 3.5s", got)
	}
	if len(ticks) != 3 {
		t.Fatalf("ticks before the stop: %v", ticks)
	}
	s.RunFor(time.Hour)
	if len(ticks) != 10 {
		t.Fatalf("the next run goes on: %v", ticks)
	}
}

func TestWaitUntilWakesWhenTheConditionHolds(t *testing.T) {
	s, c := newSched(0)
	ready := false
	var at time.Time
	s.Go("p", "waiter", func() {
		s.WaitUntil(func() bool { return ready })
		at = c.Now()
	})
	c.AfterFunc(5*time.Second, func() { ready = true })
	s.RunFor(10 * time.Second)
	if !at.Equal(clock.Epoch.Add(5 * time.Second)) {
		t.Errorf("waiter resumed at %v", at)
	}
}

func TestKillRunsDefersButBlocksTheirKernelCalls(t *testing.T) {
	s, c := newSched(0)
	var events []string
	victim := s.Go("p", "victim", func() {
		defer func() {
			events = append(events, "defer")
			c.Sleep(time.Second) // a kernel call in a defer of a killed task: unwinds
			events = append(events, "after-sleep-in-defer")
		}()
		events = append(events, "start")
		c.Sleep(time.Hour)
		events = append(events, "woke")
	})
	s.RunFor(time.Minute)
	s.Kill(victim)
	s.RunFor(2 * time.Hour)
	if got := strings.Join(events, ","); got != "start,defer" {
		t.Errorf("events = %s", got)
	}
	if !victim.Done() || !victim.Killed() || len(s.Tasks()) != 0 {
		t.Error("a killed task is done and gone")
	}
}

func TestKillGroupFromInsideATask(t *testing.T) {
	s, c := newSched(0)
	var events []string
	s.Go("p", "sleeper", func() {
		defer func() { events = append(events, "sleeper-defer") }()
		c.Sleep(time.Hour)
	})
	s.Go("p", "crasher", func() {
		c.Sleep(time.Second)
		events = append(events, "crash")
		s.KillGroup("p")
		events = append(events, "unreachable")
	})
	other := s.Go("q", "bystander", func() { c.Sleep(2 * time.Hour) })
	s.RunFor(time.Minute)
	if got := strings.Join(events, ","); got != "crash,sleeper-defer" {
		t.Errorf("events = %s", got)
	}
	if other.Done() {
		t.Error("tasks of other groups live on")
	}
	s.Close()
	if len(s.Tasks()) != 0 {
		t.Error("Close ends every task")
	}
}

func TestUnrecoveredPanicIsAHarnessBug(t *testing.T) {
	s, _ := newSched(0)
	s.Go("p", "buggy", func() { panic("boom") })
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "task buggy panicked: boom") {
			t.Errorf("want the task's panic re-raised in the kernel, got %v", r)
		}
	}()
	s.RunFor(time.Second)
}

// BenchmarkSwitch measures one handoff from the kernel to a task and back.
func BenchmarkSwitch(b *testing.B) {
	s, _ := newSched(0)
	s.MaxStepsPerInstant = b.N + 10 // every step is at one instant: not a livelock here
	n := 0
	for i := 0; i < 2; i++ {
		s.Go("p", "t", func() {
			for n < b.N {
				n++
				s.Yield()
			}
		})
	}
	b.ResetTimer()
	s.RunFor(0)
}

// A task that kills many others hands control to each of them in turn; their
// signals must come back to it, not to the kernel waiting for the killer.
func TestNestedKillsHandControlBackToTheKiller(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		s, c := newSched(seed)
		defers := 0
		for i := 0; i < 8; i++ {
			s.Go("p", "victim", func() {
				defer func() { defers++ }()
				for {
					c.Sleep(time.Millisecond)
				}
			})
		}
		s.Go("p", "killer", func() {
			c.Sleep(5 * time.Millisecond)
			s.KillGroup("p")
		})
		s.Go("q", "other", func() {
			for {
				s.Yield()
				c.Sleep(time.Millisecond)
			}
		})
		s.RunFor(time.Second)
		if defers != 8 || len(s.Tasks()) != 1 {
			t.Fatalf("seed %d: %d victims unwound, %d tasks left", seed, defers, len(s.Tasks()))
		}
		s.Close()
	}
}

// A task waiting on clock.After (the usual `<-clk.After(d)` or a select on it)
// waits in virtual time instead of blocking the run.
func TestAfterInsideATaskWaitsInVirtualTime(t *testing.T) {
	s, c := newSched(0)
	var got time.Time
	s.Go("p", "waiter", func() {
		select {
		case now := <-c.After(3 * time.Second):
			got = now
		}
	})
	s.RunFor(time.Minute)
	if want := clock.Epoch.Add(3 * time.Second); !got.Equal(want) {
		t.Errorf("After fired at %v, want %v", got, want)
	}
}

// Tasks that keep running without virtual time advancing (a hot loop) stop the run
// with a livelock instead of hanging it.
func TestHotLoopIsALivelock(t *testing.T) {
	s, c := newSched(0)
	s.MaxStepsPerInstant = 1000
	s.Go("p", "spinner", func() {
		for {
			s.Yield()
		}
	})
	s.RunFor(time.Hour)
	l := s.Livelock()
	if l == nil || l.Steps != 1001 || len(l.Tasks) != 1 || l.Tasks[0] != "spinner" {
		t.Fatalf("livelock = %+v", l)
	}
	if !l.At.Equal(clock.Epoch) || c.Now() != clock.Epoch {
		t.Errorf("the run stops where it spun: %v", c.Now())
	}
	s.RunFor(time.Hour) // a livelocked run does not run again
	s.Close()
}

// A storm that lets time advance is no livelock, but a run has a bound on its
// work: past MaxSteps task steps it is cut where it is, and does not run again.
func TestARunIsCutAtItsWorkBound(t *testing.T) {
	s, c := newSched(0)
	s.MaxSteps = 500
	ran := 0
	s.Go("p", "storm", func() {
		for {
			ran++
			c.Sleep(time.Millisecond)
		}
	})
	s.RunFor(time.Hour)
	cut := s.Cut()
	if cut == nil || cut.Steps != 500 || s.Steps() != 500 || s.Livelock() != nil {
		t.Fatalf("cut = %+v after %d steps (livelock %v)", cut, s.Steps(), s.Livelock())
	}
	if ran != 500 || !cut.At.Equal(c.Now()) || !c.Now().Before(clock.Epoch.Add(time.Hour)) {
		t.Errorf("the run stops at its 500th step where it is: %d steps ran, cut at %v, clock %v", ran, cut.At, c.Now())
	}
	s.RunFor(time.Hour) // a cut run does not run again
	if s.Steps() != 500 {
		t.Errorf("a cut run ran again: %d steps", s.Steps())
	}
	s.Close()

	s, _ = newSched(0)
	s.MaxSteps = 500
	s.Go("p", "calm", func() {
		for range 499 {
			s.Yield()
		}
	})
	s.RunFor(time.Hour)
	if s.Cut() != nil {
		t.Errorf("a run within its bound was cut: %+v", s.Cut())
	}
	s.Close()
}

// BenchmarkHandoffPeers measures the two ways DESIGN.md allows to pass control
// between the kernel and a task, side by side: a round trip over channels (what
// this scheduler does) and an iter.Pull coroutine switch.
func BenchmarkHandoffPeers(b *testing.B) {
	b.Run("channels", func(b *testing.B) {
		resume, yield := make(chan bool), make(chan struct{})
		go func() {
			for range resume {
				yield <- struct{}{}
			}
		}()
		for range b.N {
			resume <- true
			<-yield
		}
		close(resume)
	})
	b.Run("iter.Pull", func(b *testing.B) {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
		defer stop()
		for range b.N {
			next()
		}
	})
}
