package clock_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/clock"
)

func TestTimesCarryNoMonotonicReading(t *testing.T) {
	c := clock.New(clock.Epoch)
	c.Step(time.Second)
	now := c.Now()
	if now != now.Round(0) || strings.Contains(now.String(), "m=") {
		t.Fatalf("Now() = %v carries a monotonic reading", now)
	}
}

func TestWaitingOnATimerChannelDoesNotCallTheSleeper(t *testing.T) {
	c := clock.New(clock.Epoch)
	var slept []time.Duration
	c.SetSleeper(func(d time.Duration) { slept = append(slept, d) })
	ch := c.After(time.Second)
	tm := c.NewTimer(time.Second)
	if len(slept) != 0 || len(ch) != 0 || len(tm.C()) != 0 {
		t.Fatalf("after After and NewTimer: sleeper saw %v, buffered %d and %d; want nothing", slept, len(ch), len(tm.C()))
	}
	c.FireNext()
	c.FireNext()
	if len(slept) != 0 || len(ch) != 1 || len(tm.C()) != 1 {
		t.Fatalf("after the kernel fired both: sleeper saw %v, buffered %d and %d; want nothing, 1 and 1", slept, len(ch), len(tm.C()))
	}
}

func TestAfterFuncRunsOnTheGoroutineThatAdvances(t *testing.T) {
	c := clock.New(clock.Epoch)
	var order []string
	c.AfterFunc(time.Second, func() { order = append(order, "callback") })
	order = append(order, "before Step")
	c.Step(time.Second)
	order = append(order, "after Step")
	if strings.Join(order, ", ") != "before Step, callback, after Step" {
		t.Fatalf("order %v: the callback did not run inside Step", order)
	}
}

func TestTicksFireOneByOneWhenTheReceiverIsBehind(t *testing.T) {
	c := clock.New(clock.Epoch)
	tk := c.NewTicker(time.Second)
	defer tk.Stop()
	steps := 0
	c.SetFollower(func(d time.Duration) (time.Duration, bool) { steps++; return d, false })
	c.Step(1000 * time.Second) // nobody receives: all but the first tick are dropped
	if steps != 1000 || len(tk.C()) != 1 {
		t.Fatalf("a 1000s advance over a 1s ticker took %d steps (buffered %d), want 1000 (1)", steps, len(tk.C()))
	}
}

func TestDurationsSaturateAt292YearsAfterTheStart(t *testing.T) {
	c := clock.New(clock.Epoch)
	c.Step(time.Hour)
	c.NewTimer(math.MaxInt64)
	want := clock.Epoch.Add(math.MaxInt64)
	if next, ok := c.Next(); !ok || !next.Equal(want) {
		t.Fatalf("Next() = %v, %v; want %v, the start plus the largest Duration", next, ok, want)
	}
}
