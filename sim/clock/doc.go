// Package clock is the simulator's virtual clock: time is a value that moves
// only when the kernel moves it.
//
// A Clock implements k8s.io/utils/clock.WithTicker and
// clock.WithDelayedExecution, so controllers and models that take an injected
// clock run on it unchanged. Pending timers live in a heap ordered by (due
// time, sequence number); the sequence number is a per-clock counter taken by
// every timer when it is scheduled (created, Reset, or re-armed after a tick),
// so timers due at the same instant fire in the order they were scheduled.
//
// The kernel drives it with:
//
//   - Next: when the earliest pending timer is due.
//   - FireNext: move Now to that time (never backwards) and fire that one timer.
//   - AdvanceTo(t) / Step(d): fire everything due up to t in order, Now set to
//     each timer's due time as it fires, including timers scheduled by
//     callbacks during the advance; then Now = t.
//   - SetFollower: a hook called with every step the clock takes forward (package
//     wallclock passes a testing/synctest bubble's time.Sleep, so that the wall
//     clock unmodified code reads moves with virtual time);
//   - SetSleeper: the hook Sleep calls (the scheduler parks the sleeper there);
//     without it Sleep(d) is Step(d).
//
// Contract, following k8s.io/utils/clock/testing.FakeClock where it is
// sensible and Go's time package (Go 1.23+ semantics, which modules at go
// >= 1.23 get) where the fake differs from production:
//
//   - Channel timers and tickers send the virtual fire time on a buffered
//     channel of capacity 1, never blocking; a ticker drops a tick while its
//     channel is full, and re-arms at due time + period after each fire.
//   - AfterFunc callbacks run synchronously inside FireNext/AdvanceTo on the
//     caller's goroutine, not in a new goroutine: that is what makes a run
//     deterministic. Their Timer.C() is nil, as time.AfterFunc's is.
//   - A timer with d <= 0 is due now. It fires on the next FireNext,
//     AdvanceTo, Step or Sleep, never synchronously inside NewTimer/AfterFunc,
//     and in FIFO order with every other timer due now (negative durations do
//     not jump the queue).
//   - Timer.Stop reports whether it prevented a firing the program would have
//     observed; like Go 1.23+ (and unlike FakeClock) Stop and Reset discard a
//     fired value not yet received, so no stale value is read afterwards.
//     Timer.Reset re-arms (also after the timer fired) and returns whether it
//     was active. Ticker.Stop removes the ticker. NewTicker(d <= 0) panics and
//     Tick(d <= 0) returns nil, as in package time.
//   - Stopped timers leave the heap at once (O(log n)); Pending counts live
//     timers only. A ticker from Tick can never be stopped and stays pending.
//   - Now never goes backwards: AdvanceTo a time before Now fires nothing and
//     leaves Now unchanged.
//
// A Clock is not safe for concurrent use: the scheduler guarantees that one
// goroutine at a time touches it.
//
// # Known gaps
//
//   - No per-process clock skew: every process reads the same Now
//     (sim/process.TestEveryProcessReadsTheSameNow).
//   - No monotonic clock readings: New strips any monotonic reading from the
//     start time and every time returned is a plain wall-clock reading. Since
//     virtual time never goes backwards the difference is not observable
//     through Sub/Since, but t.String() carries no "m=" part
//     (TestTimesCarryNoMonotonicReading).
//   - Waiting on a timer channel (<-After(d), select on Timer.C()) does not by
//     itself yield to the kernel; only Sleep has a hook. A goroutine blocked on
//     a channel is woken only when the kernel fires that timer
//     (TestWaitingOnATimerChannelDoesNotCallTheSleeper).
//   - AfterFunc callbacks run on the kernel's goroutine: a callback that
//     blocks, or waits for the code that is advancing the clock, deadlocks
//     where the real clock would run it concurrently
//     (TestAfterFuncRunsOnTheGoroutineThatAdvances).
//   - Ticks are fired one by one: advancing a ticker of period p over a span
//     s costs s/p fires even when its receiver is behind and every tick is
//     dropped (TestTicksFireOneByOneWhenTheReceiverIsBehind).
//   - Durations saturate at the largest time.Duration after the clock's start
//     (about 292 years) instead of overflowing
//     (TestDurationsSaturateAt292YearsAfterTheStart).
package clock
