package clock

import (
	"math"
	"time"

	"k8s.io/utils/clock"
)

// Epoch is where every simulation starts: New(Epoch).
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	_ clock.WithTicker                    = (*Clock)(nil)
	_ clock.WithDelayedExecution          = (*Clock)(nil)
	_ clock.WithTickerAndDelayedExecution = (*Clock)(nil)
)

// Clock is a virtual clock: Now only moves when the kernel calls FireNext,
// AdvanceTo or Step (or when Sleep runs without a sleeper hook).
//
// A Clock is not safe for concurrent use; the scheduler runs one goroutine at
// a time and hands control over with channel operations, which order every
// access.
type Clock struct {
	start   time.Time
	now     time.Duration // offset from start; never decreases, never negative
	seq     uint64        // incremented for every scheduled timer
	timers  timerHeap
	sleeper func(time.Duration)
	inTask  func() bool
	follow  func(time.Duration) (time.Duration, bool)
}

// New returns a clock reading start, with no pending timers. Any monotonic
// reading in start is stripped: virtual times carry wall-clock readings only.
func New(start time.Time) *Clock {
	return &Clock{start: start.Round(0)}
}

// SetFollower makes f run every time the clock moves forward, with the step: a
// harness running the world inside a testing/synctest bubble sleeps there, so
// that the bubble's wall clock (what unmodified code reads with time.Now)
// moves with virtual time. f runs on the goroutine that moves the clock (the
// kernel's), before the timers due at the new time fire.
//
// f returns how far it went and whether it stopped short: something outside
// the clock (a manager Runnable woken by a timer of the bubble) must run at
// that instant first. The clock then stands there, slept after where it was,
// and the timer it was moving to stays pending: FireNext, AdvanceTo and Step
// return with Now before their target, and the scheduler runs what stopped
// it before moving the clock again.
func (c *Clock) SetFollower(f func(d time.Duration) (slept time.Duration, stopped bool)) {
	c.follow = f
}

// moveTo moves the clock forward to offset when (never back); false if the
// follower stopped it short.
func (c *Clock) moveTo(when time.Duration) bool {
	if when <= c.now {
		return true
	}
	d := when - c.now
	if c.follow == nil {
		c.now = when
		return true
	}
	slept, stopped := c.follow(d)
	slept = min(max(slept, 0), d)
	c.now += slept
	return !stopped
}

// Now returns the virtual time.
func (c *Clock) Now() time.Time { return c.start.Add(c.now) }

// Since returns Now().Sub(t).
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// After returns the channel of a new one-shot timer (see NewTimer). Called from a
// task of the scheduler (SetTaskCheck), After sleeps for d first and returns a
// channel that already holds the time: a task cannot block on a channel, and the
// usual `<-clk.After(d)` or `select` on it then waits in virtual time.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	if c.inTask != nil && c.inTask() {
		c.Sleep(d)
		ch := make(chan time.Time, 1)
		ch <- c.Now()
		return ch
	}
	return c.NewTimer(d).C()
}

// SetTaskCheck installs the scheduler's test for "the caller is a task" (see After).
func (c *Clock) SetTaskCheck(f func() bool) { c.inTask = f }

// NewTimer returns a timer that sends the virtual time on its channel (buffered,
// capacity 1) when it fires. A timer with d <= 0 is due now: it fires on the
// next FireNext, AdvanceTo, Step or Sleep, never inside NewTimer itself, and in
// scheduling order with other timers due now.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	t := &timer{c: c, ch: make(chan time.Time, 1), index: -1}
	c.schedule(t, c.deadline(d))
	return t
}

// AfterFunc returns a timer that calls f when it fires. Unlike time.AfterFunc,
// f runs synchronously inside FireNext/AdvanceTo, on the caller's goroutine,
// with Now equal to the timer's due time. Its C() is nil, as time.AfterFunc's
// Timer.C is. d <= 0 is due now, as for NewTimer.
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &timer{c: c, f: f, index: -1}
	c.schedule(t, c.deadline(d))
	return t
}

// Tick returns the channel of a ticker that can never be stopped (it stays in
// Pending forever), or nil if d <= 0, like time.Tick.
func (c *Clock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return c.NewTicker(d).C()
}

// NewTicker returns a ticker that sends the virtual time every d, first at
// Now()+d. A tick is dropped when the channel (capacity 1) is still full, as
// time.Ticker drops ticks for slow receivers. It panics if d <= 0, like
// time.NewTicker.
func (c *Clock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	t := &timer{c: c, ch: make(chan time.Time, 1), period: d, index: -1}
	c.schedule(t, c.deadline(d))
	return (*ticker)(t)
}

// Sleep calls the sleeper hook with d if one is installed (the scheduler
// parks the calling goroutine there); without a hook it is Step(d).
func (c *Clock) Sleep(d time.Duration) {
	if c.sleeper != nil {
		c.sleeper(d)
		return
	}
	c.Step(d)
}

// SetSleeper installs the hook Sleep calls; nil removes it.
func (c *Clock) SetSleeper(f func(d time.Duration)) { c.sleeper = f }

// Next returns when the earliest pending timer is due (never before Now), or
// false if no timer is pending.
func (c *Clock) Next() (time.Time, bool) {
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.start.Add(c.timers[0].when), true
}

// FireNext advances Now to the earliest pending timer's due time (never
// backwards) and fires that one timer. It returns false, changing nothing, if
// no timer is pending.
//
// A follower that stops short leaves that timer pending and Now where it
// stopped; FireNext still returns true.
func (c *Clock) FireNext() bool {
	if len(c.timers) == 0 {
		return false
	}
	c.fire(c.timers.remove(0))
	return true
}

// AdvanceTo fires every timer due at or before t in (due time, sequence)
// order, with Now set to each timer's due time as it fires, then sets Now to
// t. Timers scheduled by callbacks during the advance that fall due at or
// before t fire too. If t is before Now, Now stays where it is.
func (c *Clock) AdvanceTo(t time.Time) { c.advance(t.Sub(c.start)) }

// Step is AdvanceTo(Now().Add(d)); d <= 0 fires the timers due now.
func (c *Clock) Step(d time.Duration) { c.advance(c.deadline(d)) }

// Pending returns the number of live timers: scheduled and neither fired
// (one-shots) nor stopped.
func (c *Clock) Pending() int { return len(c.timers) }

func (c *Clock) advance(target time.Duration) {
	for len(c.timers) > 0 && c.timers[0].when <= target {
		if !c.fire(c.timers.remove(0)) {
			return // the follower stopped short
		}
	}
	// A callback may have advanced the clock further (a nested Step).
	c.moveTo(target)
}

// deadline returns the offset at which a timer of duration d started now is
// due: d <= 0 is now, and far futures saturate instead of overflowing.
func (c *Clock) deadline(d time.Duration) time.Duration {
	if d <= 0 {
		return c.now
	}
	if d > math.MaxInt64-c.now {
		return math.MaxInt64
	}
	return c.now + d
}

func (c *Clock) schedule(t *timer, when time.Duration) {
	t.when = when
	t.seq = c.seq
	c.seq++
	c.timers.push(t)
}

// fire runs a timer that has just been removed from the heap, or puts it back
// and returns false if the follower stopped short of it.
func (c *Clock) fire(t *timer) bool {
	if !c.moveTo(t.when) {
		c.timers.push(t)
		return false
	}
	now := c.Now()
	if t.period > 0 && t.when <= math.MaxInt64-t.period {
		c.schedule(t, t.when+t.period)
	}
	if t.ch != nil {
		select {
		case t.ch <- now:
		default: // a ticker whose receiver is behind: drop the tick
		}
	}
	if t.f != nil {
		t.f()
	}
	return true
}
