package clock

import (
	"time"

	"k8s.io/utils/clock"
)

var (
	_ clock.Timer  = (*timer)(nil)
	_ clock.Ticker = (*ticker)(nil)
)

// timer is one scheduled wake-up: a channel timer (ch), a function timer (f)
// or a ticker (ch and period > 0).
type timer struct {
	c      *Clock
	when   time.Duration // due time, as an offset from c.start
	seq    uint64        // c.seq when last scheduled: breaks ties FIFO
	index  int           // position in c.timers, -1 when not pending
	period time.Duration // > 0 for tickers
	ch     chan time.Time
	f      func()
}

func (t *timer) C() <-chan time.Time { return t.ch }

// Stop removes the timer from the heap. Like time.Timer.Stop since Go 1.23
// (runtime/time.go, (*timer).stop), it also discards a fired value the
// program has not received yet, so no stale value is received after Stop, and
// returns true in that case too: Stop returns true iff the program would
// otherwise have observed a firing.
func (t *timer) Stop() bool {
	active := t.index >= 0
	if active {
		t.c.timers.remove(t.index)
	}
	if t.ch != nil {
		select {
		case <-t.ch:
			active = true
		default:
		}
	}
	return active
}

// Reset re-arms the timer to fire d after Now, scheduled afresh (behind every
// timer already due at the same instant). It returns what Stop would have
// returned: whether the timer was active. Like Go 1.23+ timers, no value from
// before the Reset is received after it.
func (t *timer) Reset(d time.Duration) bool {
	active := t.Stop()
	t.c.schedule(t, t.c.deadline(d))
	return active
}

// ticker is a timer with a period, seen through clock.Ticker.
type ticker timer

func (t *ticker) C() <-chan time.Time { return t.ch }

// Stop stops the ticker and discards an undelivered tick (Go 1.23+).
func (t *ticker) Stop() { (*timer)(t).Stop() }

// Reset stops the ticker and restarts it with period d, first tick at
// Now()+d, like time.Ticker.Reset. It panics if d <= 0.
func (t *ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("clock: non-positive interval for Ticker.Reset")
	}
	(*timer)(t).Stop()
	t.period = d
	t.c.schedule((*timer)(t), t.c.deadline(d))
}

// timerHeap is a binary min-heap of pending timers ordered by (when, seq).
// Each timer knows its index, so Stop removes it in O(log n) and the heap
// only ever holds live timers.
type timerHeap []*timer

func (h timerHeap) less(i, j int) bool {
	a, b := h[i], h[j]
	return a.when < b.when || a.when == b.when && a.seq < b.seq
}

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h timerHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			return
		}
		h.swap(i, j)
		j = i
	}
}

// down sifts h[i] down and reports whether it moved.
func (h timerHeap) down(i int) bool {
	i0, n := i, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > i0
}

func (h *timerHeap) push(t *timer) {
	t.index = len(*h)
	*h = append(*h, t)
	h.up(t.index)
}

func (h *timerHeap) remove(i int) *timer {
	old := *h
	n := len(old) - 1
	t := old[i]
	if i != n {
		old.swap(i, n)
	}
	old[n] = nil
	*h = old[:n]
	if i != n && !h.down(i) {
		h.up(i)
	}
	t.index = -1
	return t
}
