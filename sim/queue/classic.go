package queue

import (
	"container/heap"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

var _ Queue[string] = (*Classic[string])(nil)

// Classic is client-go's rate-limiting workqueue
// (workqueue.NewTypedRateLimitingQueueWithConfig, util/workqueue at v0.37.2)
// on virtual time: the FIFO queue of queue.go with its dirty and processing
// sets, the waiting heap of delaying_queue.go, and rate_limiting_queue.go's
// AddRateLimited. It is not safe for concurrent use: the scheduler runs one
// goroutine at a time.
type Classic[T comparable] struct {
	hooks
	clk Timers
	rl  workqueue.TypedRateLimiter[T]

	// queue.go's Typed: queue holds the items Get hands out, in order; every
	// queued item is dirty and not processing.
	queue        []T
	dirty        map[T]struct{}
	processing   map[T]struct{}
	shuttingDown bool
	drain        bool
	// shutDownCalled: the delaying queue's ShutDown runs once (its stopOnce),
	// so only the first ShutDown reaches the underlying queue.
	shutDownCalled bool
	// drainers are the ShutDownWithDrain calls waiting on queue.go's
	// condition variable, in its FIFO order; each is released (true) when a
	// wake-up finds the drain over.
	drainers []*bool

	// delaying_queue.go's waitingLoop state: the heap of delayed items (same
	// heap, same operations, so items ready at the same instant come out in
	// the same order), one entry per item, and one timer for the earliest.
	waiting waitHeap[T]
	entries map[T]*waitFor[T]
	timer   clock.Timer
	timerAt time.Time
}

// NewClassic returns an empty classic queue on clk with the given rate limiter
// (DefaultControllerRateLimiter for client-go's default). The limiter must not
// read the wall clock.
func NewClassic[T comparable](clk Timers, rateLimiter workqueue.TypedRateLimiter[T]) *Classic[T] {
	return &Classic[T]{
		clk:        clk,
		rl:         rateLimiter,
		dirty:      map[T]struct{}{},
		processing: map[T]struct{}{},
		entries:    map[T]*waitFor[T]{},
	}
}

// Add marks item as needing processing (queue.go Add): ignored while shutting
// down or if already dirty; an item being processed is only marked dirty and
// goes back into the queue on Done; otherwise it joins the end of the queue.
func (q *Classic[T]) Add(item T) {
	q.catchUp()
	if q.add(item) {
		q.notify()
	}
}

// add is Add without catch-up and notification; it reports whether item
// joined the queue.
func (q *Classic[T]) add(item T) bool {
	if q.shuttingDown {
		return false
	}
	if _, ok := q.dirty[item]; ok {
		return false
	}
	q.dirty[item] = struct{}{}
	if _, ok := q.processing[item]; ok {
		return false
	}
	q.queue = append(q.queue, item)
	return true
}

// Len is the number of items Get can hand out now; delayed items do not count.
func (q *Classic[T]) Len() int {
	q.catchUp()
	return len(q.queue)
}

// Get is client-go's Get: the first queued item (now processing, no longer
// dirty), or shutdown once the queue is shutting down and empty. Where the
// real Get blocks, this one calls the waiter hook (SetWaiter), and panics
// without one.
func (q *Classic[T]) Get() (item T, shutdown bool) {
	q.catchUp()
	q.block("Get", q.getReady)
	item, shutdown, ok := q.TryGet()
	if !ok {
		panic("queue: the waiter returned before an item was ready (harness bug)")
	}
	return item, shutdown
}

func (q *Classic[T]) getReady() bool {
	q.catchUp()
	return len(q.queue) > 0 || q.shuttingDown
}

// TryGet implements Queue.
func (q *Classic[T]) TryGet() (item T, shutdown bool, ok bool) {
	q.catchUp()
	if len(q.queue) == 0 {
		return item, q.shuttingDown, q.shuttingDown
	}
	item = q.queue[0]
	var zero T
	q.queue[0] = zero
	q.queue = q.queue[1:]
	q.processing[item] = struct{}{}
	delete(q.dirty, item)
	return item, false, true
}

// Done marks item as processed (queue.go Done): if it was added again while
// being processed it goes straight back to the end of the queue, with no
// backoff. Like client-go, Done of an item that is queued but not being
// processed queues it a second time: callers must only pass items from Get.
//
// Like client-go's, Done wakes one waiter (cond.Signal) when it queues the
// item again or leaves nothing processing: with several ShutDownWithDrain
// calls waiting, one returns per such Done.
func (q *Classic[T]) Done(item T) {
	q.catchUp()
	delete(q.processing, item)
	if _, ok := q.dirty[item]; ok {
		q.queue = append(q.queue, item)
		q.signalDrainer()
		q.notify()
	} else if len(q.processing) == 0 {
		if q.signalDrainer() {
			q.notify()
		}
	}
}

// ShutDown makes the queue ignore new items (Add, AddAfter, AddRateLimited),
// drops pending delayed items, and lets Get hand out what is queued before it
// reports shutdown. Like the real delaying queue, only the first call has an
// effect, so a ShutDown cannot end a ShutDownWithDrain that started after an
// earlier ShutDown.
func (q *Classic[T]) ShutDown() {
	if q.shutDownCalled {
		return
	}
	q.shutDownCalled = true
	q.drain = false
	q.shutDown()
}

// ShutDownWithDrain is ShutDown that then waits, through the waiter hook,
// until no item is being processed (queued items need not be processed), or
// until a ShutDown stops the wait (queue.go ShutDownWithDrain).
func (q *Classic[T]) ShutDownWithDrain() {
	q.drain = true
	q.shutDown()
	if q.drained() {
		return
	}
	released := new(bool)
	q.drainers = append(q.drainers, released)
	q.block("ShutDownWithDrain", func() bool { return *released })
}

// drained is the negation of ShutDownWithDrain's wait condition.
func (q *Classic[T]) drained() bool { return len(q.processing) == 0 || !q.drain }

// shutDown is what both shutdowns do to queue.go's Typed (then Broadcast)
// and to the delaying queue.
func (q *Classic[T]) shutDown() {
	q.shuttingDown = true
	// The waiting loop stops; what it still held would only be Added to a
	// queue that ignores Adds.
	q.stopTimer()
	q.waiting = nil
	clear(q.entries)
	still := q.drainers[:0]
	for _, released := range q.drainers {
		if q.drained() {
			*released = true
		} else {
			still = append(still, released)
		}
	}
	clear(q.drainers[len(still):])
	q.drainers = still
	q.notify()
}

// signalDrainer is cond.Signal as it concerns drainers: the first waiting
// drainer wakes and returns if the drain is over, else waits again at the
// back. It reports whether one was released. (While drainers wait the queue
// is shutting down, so no Get waits on the condition variable.)
func (q *Classic[T]) signalDrainer() bool {
	if len(q.drainers) == 0 {
		return false
	}
	w := q.drainers[0]
	q.drainers = q.drainers[1:]
	if !q.drained() {
		q.drainers = append(q.drainers, w)
		return false
	}
	*w = true
	return true
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Classic[T]) ShuttingDown() bool { return q.shuttingDown }

// AddAfter adds item once d has passed (delaying_queue.go): ignored while
// shutting down; d <= 0 is Add; if item is already waiting, its ready time
// only moves earlier, never later. A waiting entry is independent of the
// queue: a plain Add neither removes nor reschedules it, and when it fires it
// Adds the item, whatever happened meanwhile.
func (q *Classic[T]) AddAfter(item T, d time.Duration) {
	q.catchUp()
	if q.shuttingDown {
		return
	}
	if d <= 0 {
		q.Add(item)
		return
	}
	readyAt := q.clk.Now().Add(d)
	if e, ok := q.entries[item]; ok {
		if e.readyAt.After(readyAt) {
			e.readyAt = readyAt
			heap.Fix(&q.waiting, e.index)
		}
	} else {
		e := &waitFor[T]{data: item, readyAt: readyAt}
		heap.Push(&q.waiting, e)
		q.entries[item] = e
	}
	q.arm()
}

// AddRateLimited is AddAfter(item, rateLimiter.When(item)).
func (q *Classic[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.rl.When(item))
}

// Forget tells the rate limiter to stop tracking item.
func (q *Classic[T]) Forget(item T) { q.rl.Forget(item) }

// NumRequeues is the rate limiter's count of item's requeues.
func (q *Classic[T]) NumRequeues(item T) int { return q.rl.NumRequeues(item) }

// Delayed is an item a queue holds back until ReadyAt (AddAfter,
// AddRateLimited), and its rate limiter's count of its requeues: more than
// 0 when the controller's last attempt at it failed and was not forgiven
// since (Forget), an item in back-off.
type Delayed[T comparable] struct {
	Item     T
	ReadyAt  time.Time
	Requeues int
}

// Waiting are the items held back, earliest first (equal ReadyAt in the
// heap's order, the order they come out in). It changes nothing: an item
// due now whose timer has not fired yet is still listed.
func (q *Classic[T]) Waiting() []Delayed[T] {
	h := make(waitHeap[T], len(q.waiting)) // copies: Swap sets each entry's index
	for i, e := range q.waiting {
		h[i] = &waitFor[T]{data: e.data, readyAt: e.readyAt, index: i}
	}
	out := make([]Delayed[T], 0, len(h))
	for len(h) > 0 {
		e := heap.Pop(&h).(*waitFor[T])
		out = append(out, Delayed[T]{Item: e.data, ReadyAt: e.readyAt, Requeues: q.rl.NumRequeues(e.data)})
	}
	return out
}

// NextReady implements Queue.
func (q *Classic[T]) NextReady() (time.Time, bool) {
	q.catchUp()
	if len(q.waiting) == 0 {
		return time.Time{}, false
	}
	return q.waiting[0].readyAt, true
}

// catchUp adds the delayed items that are due now before anything else
// happens at this instant, as if the real waiting loop always ran as soon as
// its timer fired: the queue's state at an instant does not depend on the
// order in which the clock fires timers due at that instant.
func (q *Classic[T]) catchUp() {
	if q.timer != nil && !q.timerAt.After(q.clk.Now()) {
		q.stopTimer()
		q.fire()
	}
}

// fire adds every waiting item that is due, in heap order (the waitingLoop's
// "Add ready entries"), then re-arms the timer for the next one.
func (q *Classic[T]) fire() {
	q.timer = nil
	now := q.clk.Now()
	added := false
	for len(q.waiting) > 0 && !q.waiting[0].readyAt.After(now) {
		e := heap.Pop(&q.waiting).(*waitFor[T])
		delete(q.entries, e.data)
		added = q.add(e.data) || added
	}
	q.arm()
	if added {
		q.notify()
	}
}

// arm keeps one timer, due when the earliest waiting item is ready.
func (q *Classic[T]) arm() {
	if len(q.waiting) == 0 {
		q.stopTimer()
		return
	}
	at := q.waiting[0].readyAt
	if q.timer != nil && q.timerAt.Equal(at) {
		return
	}
	q.stopTimer()
	q.timerAt = at
	q.timer = q.clk.AfterFunc(at.Sub(q.clk.Now()), q.fire)
}

func (q *Classic[T]) stopTimer() {
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
}

// waitFor and waitHeap are delaying_queue.go's waitFor and
// waitForPriorityQueue: a min-heap on readyAt alone, so the order of equal
// readyAt values is whatever container/heap makes of the same operations.
type waitFor[T any] struct {
	data    T
	readyAt time.Time
	index   int
}

type waitHeap[T any] []*waitFor[T]

func (h waitHeap[T]) Len() int           { return len(h) }
func (h waitHeap[T]) Less(i, j int) bool { return h[i].readyAt.Before(h[j].readyAt) }
func (h waitHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *waitHeap[T]) Push(x any) {
	e := x.(*waitFor[T])
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *waitHeap[T]) Pop() any {
	old := *h
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*h = old[:n-1]
	return e
}
