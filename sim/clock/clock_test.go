package clock_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// at returns the epoch plus d, for readable expectations.
func at(d time.Duration) time.Time { return clock.Epoch.Add(d) }

// recorder collects which AfterFunc callbacks ran, and the virtual time each saw.
type recorder struct {
	c    *clock.Clock
	runs []string
}

func (r *recorder) fn(name string) func() {
	return func() { r.runs = append(r.runs, fmt.Sprintf("%s@%v", name, r.c.Now().Sub(clock.Epoch))) }
}

func drain(c *clock.Clock) {
	for c.FireNext() {
	}
}

func TestNewStartsAtStartWithNothingPending(t *testing.T) {
	c := clock.New(clock.Epoch)
	if !c.Now().Equal(clock.Epoch) {
		t.Fatalf("Now() = %v, want %v", c.Now(), clock.Epoch)
	}
	if _, ok := c.Next(); ok {
		t.Fatal("Next() reported a pending timer on a new clock")
	}
	if c.FireNext() {
		t.Fatal("FireNext() = true on a new clock")
	}
	if got := c.Since(clock.Epoch.Add(-time.Minute)); got != time.Minute {
		t.Fatalf("Since(epoch-1m) = %v, want 1m", got)
	}
}

func TestTimersFireInDueTimeOrderThenSchedulingOrder(t *testing.T) {
	c := clock.New(clock.Epoch)
	r := &recorder{c: c}
	c.AfterFunc(3*time.Second, r.fn("c"))
	c.AfterFunc(1*time.Second, r.fn("a1"))
	c.AfterFunc(2*time.Second, r.fn("b"))
	c.AfterFunc(1*time.Second, r.fn("a2"))
	c.AfterFunc(1*time.Second, r.fn("a3"))
	if next, ok := c.Next(); !ok || !next.Equal(at(time.Second)) {
		t.Fatalf("Next() = %v, %v; want %v, true", next, ok, at(time.Second))
	}
	drain(c)
	want := []string{"a1@1s", "a2@1s", "a3@1s", "b@2s", "c@3s"}
	if !slices.Equal(r.runs, want) {
		t.Fatalf("fired %v, want %v", r.runs, want)
	}
}

func TestTimerWithNonPositiveDurationIsDueNowButNotFiredSynchronously(t *testing.T) {
	c := clock.New(clock.Epoch)
	r := &recorder{c: c}
	c.Step(time.Minute)
	c.AfterFunc(0, r.fn("zero"))
	c.AfterFunc(-time.Hour, r.fn("negative")) // does not jump ahead of "zero"
	ch := c.After(0)
	if len(r.runs) != 0 || len(ch) != 0 {
		t.Fatalf("timers fired inside AfterFunc/After: runs=%v, chan len=%d", r.runs, len(ch))
	}
	if next, _ := c.Next(); !next.Equal(c.Now()) {
		t.Fatalf("Next() = %v, want Now() = %v", next, c.Now())
	}
	c.Step(0)
	if want := []string{"zero@1m0s", "negative@1m0s"}; !slices.Equal(r.runs, want) {
		t.Fatalf("fired %v, want %v", r.runs, want)
	}
	if got := <-ch; !got.Equal(at(time.Minute)) {
		t.Fatalf("After(0) sent %v, want %v", got, at(time.Minute))
	}
}

func TestFireNextMovesNowToTheTimerAndFiresOnlyThatOne(t *testing.T) {
	c := clock.New(clock.Epoch)
	r := &recorder{c: c}
	c.AfterFunc(5*time.Second, r.fn("a"))
	c.AfterFunc(5*time.Second, r.fn("b"))
	if !c.FireNext() {
		t.Fatal("FireNext() = false with timers pending")
	}
	if !slices.Equal(r.runs, []string{"a@5s"}) || !c.Now().Equal(at(5*time.Second)) {
		t.Fatalf("after one FireNext: runs=%v Now=%v", r.runs, c.Now())
	}
	if c.Pending() != 1 {
		t.Fatalf("Pending() = %d, want 1", c.Pending())
	}
}

func TestNowNeverGoesBackwards(t *testing.T) {
	c := clock.New(clock.Epoch)
	c.Step(time.Hour)
	fired := false
	c.AfterFunc(0, func() { fired = true })
	c.AdvanceTo(clock.Epoch) // in the past
	if !c.Now().Equal(at(time.Hour)) {
		t.Fatalf("AdvanceTo(past) moved Now to %v", c.Now())
	}
	if fired {
		t.Fatal("AdvanceTo(past) fired a timer due now, which is after the target")
	}
	c.Step(-time.Minute)
	if !c.Now().Equal(at(time.Hour)) || !fired {
		t.Fatalf("Step(-1m): Now=%v fired=%v; want Now unchanged and the due-now timer fired", c.Now(), fired)
	}
	// FireNext of a timer due now keeps Now where it is.
	c.AfterFunc(0, func() {})
	c.FireNext()
	if !c.Now().Equal(at(time.Hour)) {
		t.Fatalf("FireNext of a due-now timer moved Now to %v", c.Now())
	}
}

func TestAdvanceToFiresDueTimersWithNowAtEachTimerThenSetsNow(t *testing.T) {
	c := clock.New(clock.Epoch)
	r := &recorder{c: c}
	c.AfterFunc(2*time.Second, r.fn("a"))
	c.AfterFunc(5*time.Second, r.fn("b")) // due exactly at the target: fires
	c.AfterFunc(6*time.Second, r.fn("c"))
	c.AdvanceTo(at(5 * time.Second))
	if want := []string{"a@2s", "b@5s"}; !slices.Equal(r.runs, want) {
		t.Fatalf("fired %v, want %v", r.runs, want)
	}
	if !c.Now().Equal(at(5*time.Second)) || c.Pending() != 1 {
		t.Fatalf("Now=%v Pending=%d, want 5s and 1", c.Now(), c.Pending())
	}
}

func TestCallbacksSchedulingCallbacksDuringAdvanceTo(t *testing.T) {
	c := clock.New(clock.Epoch)
	r := &recorder{c: c}
	c.AfterFunc(1*time.Second, func() {
		r.fn("first")()
		c.AfterFunc(0, r.fn("now"))                 // due at 1s, after "also@1s"
		c.AfterFunc(2*time.Second, r.fn("inside"))  // due at 3s <= 5s: fires
		c.AfterFunc(10*time.Second, r.fn("beyond")) // due at 11s: stays pending
	})
	c.AfterFunc(1*time.Second, r.fn("also"))
	c.AfterFunc(4*time.Second, r.fn("later"))
	c.AdvanceTo(at(5 * time.Second))
	want := []string{"first@1s", "also@1s", "now@1s", "inside@3s", "later@4s"}
	if !slices.Equal(r.runs, want) {
		t.Fatalf("fired %v, want %v", r.runs, want)
	}
	if next, ok := c.Next(); !ok || !next.Equal(at(11*time.Second)) || c.Pending() != 1 {
		t.Fatalf("Next()=%v,%v Pending=%d; want 11s, true, 1", next, ok, c.Pending())
	}
}

func TestNestedStepInsideCallbackDoesNotMoveNowBackwards(t *testing.T) {
	c := clock.New(clock.Epoch)
	r := &recorder{c: c}
	c.AfterFunc(time.Second, func() { c.Step(time.Minute) }) // Sleep without a hook does this
	c.AfterFunc(30*time.Second, r.fn("inner"))
	c.AdvanceTo(at(10 * time.Second))
	if !slices.Equal(r.runs, []string{"inner@30s"}) {
		t.Fatalf("fired %v, want [inner@30s]", r.runs)
	}
	if want := at(61 * time.Second); !c.Now().Equal(want) {
		t.Fatalf("Now = %v, want %v (the nested step's target)", c.Now(), want)
	}
}

func TestChannelTimerSendsFireTimeWithoutBlocking(t *testing.T) {
	c := clock.New(clock.Epoch)
	tm := c.NewTimer(3 * time.Second)
	after := c.After(time.Second)
	c.Step(10 * time.Second)
	if got := <-after; !got.Equal(at(time.Second)) {
		t.Fatalf("After(1s) sent %v, want %v", got, at(time.Second))
	}
	if got := <-tm.C(); !got.Equal(at(3 * time.Second)) {
		t.Fatalf("NewTimer(3s) sent %v, want %v", got, at(3*time.Second))
	}
	if c.Pending() != 0 {
		t.Fatalf("Pending() = %d after one-shots fired, want 0", c.Pending())
	}
}

// Stop follows time.Timer.Stop as of Go 1.23 (runtime/time.go (*timer).stop):
// true iff the program would otherwise have observed a firing.
func TestTimerStop(t *testing.T) {
	t.Run("before firing: prevents it and returns true", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tm := c.NewTimer(time.Second)
		if !tm.Stop() {
			t.Fatal("Stop() = false on a pending timer")
		}
		if c.Pending() != 0 {
			t.Fatalf("Pending() = %d after Stop, want 0", c.Pending())
		}
		c.Step(time.Hour)
		if len(tm.C()) != 0 {
			t.Fatal("stopped timer sent a value")
		}
		if tm.Stop() {
			t.Fatal("second Stop() = true")
		}
	})
	t.Run("fired but not received: discards the stale value and returns true", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tm := c.NewTimer(time.Second)
		c.Step(time.Second)
		if !tm.Stop() {
			t.Fatal("Stop() = false with an unreceived value")
		}
		if len(tm.C()) != 0 {
			t.Fatal("a stale value is still receivable after Stop")
		}
	})
	t.Run("fired and received: returns false", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tm := c.NewTimer(time.Second)
		c.Step(time.Second)
		<-tm.C()
		if tm.Stop() {
			t.Fatal("Stop() = true after the value was received")
		}
	})
	t.Run("AfterFunc: prevents the call", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		called := false
		tm := c.AfterFunc(time.Second, func() { called = true })
		if tm.C() != nil {
			t.Fatal("AfterFunc timer has a channel; time.AfterFunc's C is nil")
		}
		if !tm.Stop() {
			t.Fatal("Stop() = false before the call")
		}
		c.Step(time.Hour)
		if called {
			t.Fatal("stopped AfterFunc ran")
		}
	})
	t.Run("AfterFunc: after the call returns false", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tm := c.AfterFunc(time.Second, func() {})
		c.Step(time.Second)
		if tm.Stop() {
			t.Fatal("Stop() = true after the function ran")
		}
	})
}

func TestStoppingManyTimersKeepsPendingExactAndOrderIntact(t *testing.T) {
	c := clock.New(clock.Epoch)
	r := &recorder{c: c}
	var timers []interface{ Stop() bool }
	for i := range 100 {
		timers = append(timers, c.AfterFunc(time.Duration(100-i)*time.Second, r.fn(fmt.Sprint(100-i))))
	}
	for i, tm := range timers {
		if i%3 != 0 {
			tm.Stop()
		}
	}
	if c.Pending() != 34 {
		t.Fatalf("Pending() = %d, want 34", c.Pending())
	}
	drain(c)
	var want []string
	for s := 1; s <= 100; s++ {
		if (100-s)%3 == 0 {
			want = append(want, fmt.Sprintf("%d@%v", s, time.Duration(s)*time.Second))
		}
	}
	if !slices.Equal(r.runs, want) {
		t.Fatalf("fired %v, want %v", r.runs, want)
	}
}

// Reset follows time.Timer.Reset as of Go 1.23.
func TestTimerReset(t *testing.T) {
	t.Run("pending: returns true, reschedules from Now, behind timers already due then", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		r := &recorder{c: c}
		tm := c.AfterFunc(time.Second, r.fn("reset"))
		c.AfterFunc(5*time.Second, r.fn("other"))
		c.Step(2 * time.Second) // fires "reset" at 1s
		tm = c.AfterFunc(time.Second, r.fn("reset2"))
		if !tm.Reset(3 * time.Second) { // now 2s: due at 5s, after "other"
			t.Fatal("Reset() = false on a pending timer")
		}
		drain(c)
		if want := []string{"reset@1s", "other@5s", "reset2@5s"}; !slices.Equal(r.runs, want) {
			t.Fatalf("fired %v, want %v", r.runs, want)
		}
	})
	t.Run("after firing: returns false and fires again", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tm := c.NewTimer(time.Second)
		c.Step(time.Second)
		<-tm.C()
		if tm.Reset(time.Second) {
			t.Fatal("Reset() = true on an expired timer")
		}
		c.Step(time.Second)
		if got := <-tm.C(); !got.Equal(at(2 * time.Second)) {
			t.Fatalf("re-armed timer sent %v, want %v", got, at(2*time.Second))
		}
	})
	t.Run("fired but not received: the stale value is discarded", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tm := c.NewTimer(time.Second)
		c.Step(time.Second)
		if !tm.Reset(time.Minute) {
			t.Fatal("Reset() = false with an unreceived value")
		}
		if len(tm.C()) != 0 {
			t.Fatal("a value from before Reset is still receivable")
		}
	})
	t.Run("AfterFunc re-arming itself from its callback", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		r := &recorder{c: c}
		var tm interface{ Reset(time.Duration) bool }
		n := 0
		tm = c.AfterFunc(time.Second, func() {
			r.fn("tick")()
			if n++; n < 3 {
				tm.Reset(time.Second)
			}
		})
		c.Step(time.Minute)
		if want := []string{"tick@1s", "tick@2s", "tick@3s"}; !slices.Equal(r.runs, want) {
			t.Fatalf("fired %v, want %v", r.runs, want)
		}
	})
}

func TestTicker(t *testing.T) {
	t.Run("ticks every period and drops ticks while the channel is full", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tk := c.NewTicker(10 * time.Second)
		c.Step(10 * time.Second)
		if got := <-tk.C(); !got.Equal(at(10 * time.Second)) {
			t.Fatalf("first tick %v, want %v", got, at(10*time.Second))
		}
		c.Step(35 * time.Second) // ticks at 20s, 30s, 40s: only 20s fits
		if got := <-tk.C(); !got.Equal(at(20 * time.Second)) {
			t.Fatalf("buffered tick %v, want %v (later ones dropped)", got, at(20*time.Second))
		}
		if len(tk.C()) != 0 {
			t.Fatal("more than one tick buffered")
		}
		if next, _ := c.Next(); !next.Equal(at(50 * time.Second)) {
			t.Fatalf("next tick due %v, want %v", next, at(50*time.Second))
		}
	})
	t.Run("Stop removes it and discards an undelivered tick", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tk := c.NewTicker(time.Second)
		c.Step(time.Second)
		tk.Stop()
		if c.Pending() != 0 || len(tk.C()) != 0 {
			t.Fatalf("after Stop: Pending=%d buffered=%d, want 0, 0", c.Pending(), len(tk.C()))
		}
		c.Step(time.Hour)
		if len(tk.C()) != 0 {
			t.Fatal("stopped ticker ticked")
		}
	})
	t.Run("Reset restarts with the new period", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		tk := c.NewTicker(time.Second)
		c.Step(500 * time.Millisecond)
		tk.(interface{ Reset(time.Duration) }).Reset(time.Minute)
		c.Step(time.Minute)
		if got := <-tk.C(); !got.Equal(at(time.Minute + 500*time.Millisecond)) {
			t.Fatalf("tick after Reset at %v, want %v", got, at(time.Minute+500*time.Millisecond))
		}
	})
	t.Run("Tick(d <= 0) is nil and NewTicker(d <= 0) panics, as in package time", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		if c.Tick(0) != nil {
			t.Fatal("Tick(0) != nil")
		}
		defer func() {
			if recover() == nil {
				t.Fatal("NewTicker(0) did not panic")
			}
		}()
		c.NewTicker(0)
	})
	t.Run("Tick keeps ticking and stays pending", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		ch := c.Tick(time.Second)
		for i := 1; i <= 3; i++ {
			c.Step(time.Second)
			if got := <-ch; !got.Equal(at(time.Duration(i) * time.Second)) {
				t.Fatalf("tick %d at %v", i, got)
			}
		}
		if c.Pending() != 1 {
			t.Fatalf("Pending() = %d, want 1", c.Pending())
		}
	})
}

func TestSleep(t *testing.T) {
	t.Run("without a hook it steps the clock, firing due timers", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		ch := c.After(time.Second)
		c.Sleep(2 * time.Second)
		if !c.Now().Equal(at(2*time.Second)) || len(ch) != 1 {
			t.Fatalf("after Sleep(2s): Now=%v buffered=%d, want 2s and 1", c.Now(), len(ch))
		}
	})
	t.Run("with a hook it calls the hook and does not move time itself", func(t *testing.T) {
		c := clock.New(clock.Epoch)
		var slept []time.Duration
		c.SetSleeper(func(d time.Duration) { slept = append(slept, d) })
		c.Sleep(3 * time.Second)
		if !slices.Equal(slept, []time.Duration{3 * time.Second}) || !c.Now().Equal(clock.Epoch) {
			t.Fatalf("hook saw %v, Now=%v; want [3s] and the epoch", slept, c.Now())
		}
		c.SetSleeper(nil)
		c.Sleep(time.Second)
		if !c.Now().Equal(at(time.Second)) {
			t.Fatalf("after removing the hook, Sleep(1s) left Now at %v", c.Now())
		}
	})
}

func TestFarFutureTimersSaturateInsteadOfOverflowing(t *testing.T) {
	c := clock.New(clock.Epoch)
	c.Step(time.Hour)
	c.NewTimer(1<<63 - 1)
	next, ok := c.Next()
	if !ok || !next.After(c.Now()) {
		t.Fatalf("Next() = %v, %v; want a time after Now", next, ok)
	}
}

func TestNewStripsMonotonicReading(t *testing.T) {
	start := clock.Epoch.Add(time.Hour)
	c := clock.New(start)
	if c.Now() != start { // == compares the representation, including location
		t.Fatalf("Now() = %#v, want %#v", c.Now(), start)
	}
}
