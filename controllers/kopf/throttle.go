package kopf

import "time"

// DefaultErrorDelays are kopf's default throttling delays for unexpected errors
// (settings.batching.error_delays when nolar/kopf #510 merged, now
// settings.queueing.error_delays; kopf/_cogs/configs/configuration.py): Fibonacci
// seconds capped at about ten minutes; the last one repeats.
var DefaultErrorDelays = []time.Duration{
	1 * time.Second, 1 * time.Second, 2 * time.Second, 3 * time.Second, 5 * time.Second,
	8 * time.Second, 13 * time.Second, 21 * time.Second, 34 * time.Second, 55 * time.Second,
	89 * time.Second, 144 * time.Second, 233 * time.Second, 377 * time.Second, 610 * time.Second,
}

// Throttler is kopf's per-object throttling state (nolar/kopf #510,
// kopf/_core/actions/throttlers.py: source_of_delays, last_used_delay,
// active_until). Its zero value is "not throttling". It lives in memory only:
// "The backoffs are not persisted, so they are lost on operator restarts."
type Throttler struct {
	inSequence  bool          // source_of_delays is not None
	next        int           // the next index of the delays
	lastUsed    time.Duration // last_used_delay; 0 is None
	ActiveUntil time.Time     // active_until; zero is None
}

// Active reports whether throttling is on (active_until is set).
func (t *Throttler) Active() bool { return !t.ActiveUntil.IsZero() }

// Over ends throttling, as kopf does when a throttling sleep completes
// ("Throttling is over. Switching back to normal operations.").
func (t *Throttler) Over() { t.ActiveUntil = time.Time{} }

// Fail is the except-branch of throttled(): it continues (or starts) the sequence
// of delays, `next(source_of_delays, last_used_delay)`, so the last delay repeats
// once the list is exhausted, and activates throttling until now+delay. With no
// delay at all (an empty list: throttling disabled) it returns false and nothing
// changes.
func (t *Throttler) Fail(now time.Time, delays []time.Duration) (time.Duration, bool) {
	if !t.inSequence {
		t.inSequence, t.next = true, 0
	}
	delay := t.lastUsed
	if t.next < len(delays) {
		delay = delays[t.next]
		t.next++
	}
	if delay == 0 {
		return 0, false
	}
	t.lastUsed = delay
	t.ActiveUntil = now.Add(delay)
	return delay, true
}

// Succeed is the else-branch of throttled() when the guarded code ran: the
// sequence of delays starts again from the first one.
func (t *Throttler) Succeed() {
	t.inSequence, t.next, t.lastUsed = false, 0, 0
}
