package queue

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"k8s.io/utils/third_party/forked/golang/btree"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

var (
	_ Queue[string]                       = (*Priority[string])(nil)
	_ priorityqueue.PriorityQueue[string] = (*Priority[string])(nil)
)

// Priority is controller-runtime's priority queue (pkg/controller/priorityqueue,
// v0.25.2) on virtual time. It implements priorityqueue.PriorityQueue, so
// controller-runtime's handlers find it by type assertion and pass priorities
// (handler.LowPriority for objects of the initial list and for updates that
// keep the resourceVersion). It is not safe for concurrent use: the scheduler
// runs one goroutine at a time.
//
// The real queue hands items to waiting Gets from background goroutines;
// here the same trees, counters and transitions are applied synchronously, as
// if those goroutines always ran before the next call.
type Priority[T comparable] struct {
	hooks
	clk Timers
	rl  workqueue.TypedRateLimiter[T]

	// items holds every queued item, in ready or in waiting; an item handed
	// out by Get leaves items and is locked until Done.
	items   map[T]*pqItem[T]
	ready   *btree.BTree[*pqItem[T]]
	waiting *btree.BTree[*pqItem[T]]
	// addedCounter gives FIFO order within a priority.
	addedCounter uint64
	locked       map[T]struct{}
	shutdown     bool

	timer   clock.Timer
	timerAt time.Time
}

// pqItem is priorityqueue.go's item; a nil readyAt means ready.
type pqItem[T comparable] struct {
	key          T
	addedCounter uint64
	priority     int
	readyAt      *time.Time
}

// NewPriority returns an empty priority queue on clk with the given rate
// limiter (controller-runtime's default for it is the per-item exponential
// limiter alone: DefaultRateLimiter(KindPriority, clk)). The limiter must not
// read the wall clock.
func NewPriority[T comparable](clk Timers, rateLimiter workqueue.TypedRateLimiter[T]) *Priority[T] {
	return &Priority[T]{
		clk:     clk,
		rl:      rateLimiter,
		items:   map[T]*pqItem[T]{},
		ready:   btree.New(32, lessReady[T]),
		waiting: btree.New(32, lessWaiting[T]),
		locked:  map[T]struct{}{},
	}
}

// lessWaiting and lessReady are priorityqueue.go's orders: waiting items by
// ready time, then as ready items; ready items by priority (higher first),
// then by added counter (FIFO).
func lessWaiting[T comparable](a, b *pqItem[T]) bool {
	if !a.readyAt.Equal(*b.readyAt) {
		return a.readyAt.Before(*b.readyAt)
	}
	return a.addedCounter < b.addedCounter
}

func lessReady[T comparable](a, b *pqItem[T]) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	return a.addedCounter < b.addedCounter
}

// AddWithOpts adds items (priorityqueue.go lockedAddWithOpts). Ignored after
// ShutDown. For each item: RateLimited takes the rate limiter's delay, or
// o.After if that is set and shorter; a delay > 0 makes the item wait. A new
// item gets o.Priority (default 0) and the next added counter. An item already
// queued keeps the earliest ready time (a ready item stays ready; a plain Add
// readies a waiting one) and the higher priority; when the priority rises it
// also takes the next added counter, so it goes to the end of its new
// priority level.
func (q *Priority[T]) AddWithOpts(o priorityqueue.AddOpts, items ...T) {
	q.catchUp()
	if q.shutdown || len(items) == 0 {
		return
	}
	readyItemAdded := false
	for _, key := range items {
		after := o.After
		if o.RateLimited {
			rlAfter := q.rl.When(key)
			if after == 0 || rlAfter < after {
				after = rlAfter
			}
		}

		var readyAt *time.Time
		if after > 0 {
			readyAt = new(q.clk.Now().Add(after))
		}
		existing, ok := q.items[key]
		if !ok {
			it := &pqItem[T]{
				key:          key,
				addedCounter: q.addedCounter,
				priority:     ptr.Deref(o.Priority, 0),
				readyAt:      readyAt,
			}
			q.addedCounter++
			q.items[key] = it
			if readyAt != nil {
				q.waiting.ReplaceOrInsert(it)
			} else {
				q.ready.ReplaceOrInsert(it)
				readyItemAdded = true
			}
			continue
		}

		if existing.readyAt == nil {
			readyAt = nil
		} else if readyAt != nil && existing.readyAt.Before(*readyAt) {
			readyAt = existing.readyAt
		}

		priority := existing.priority
		addedCounter := existing.addedCounter
		if newPriority := ptr.Deref(o.Priority, 0); newPriority > existing.priority {
			priority = newPriority
			addedCounter = q.addedCounter
			q.addedCounter++
		}

		tree, previousTree := q.ready, q.ready
		switch {
		case readyAt == nil && existing.readyAt != nil:
			tree, previousTree = q.ready, q.waiting
			readyItemAdded = true
		case readyAt != nil:
			tree, previousTree = q.waiting, q.waiting
		}
		previousTree.Delete(existing)
		existing.readyAt = readyAt
		existing.priority = priority
		existing.addedCounter = addedCounter
		tree.ReplaceOrInsert(existing)
	}
	q.arm()
	if readyItemAdded {
		q.notify()
	}
}

// Add is AddWithOpts with no options: priority 0, ready now.
func (q *Priority[T]) Add(item T) { q.AddWithOpts(priorityqueue.AddOpts{}, item) }

// AddAfter is AddWithOpts with After: d.
func (q *Priority[T]) AddAfter(item T, d time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: d}, item)
}

// AddRateLimited is AddWithOpts with RateLimited.
func (q *Priority[T]) AddRateLimited(item T) {
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, item)
}

// GetWithPriority hands out the first ready item that is not being processed,
// in (priority, added counter) order, with its priority; after ShutDown it
// reports shutdown at once, even with items left (no drain). Where the real
// one blocks, this one calls the waiter hook (SetWaiter), and panics without
// one.
func (q *Priority[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	q.block("GetWithPriority", q.getReady)
	item, priority, shutdown, ok := q.TryGetWithPriority()
	if !ok {
		panic("queue: the waiter returned before an item was ready (harness bug)")
	}
	return item, priority, shutdown
}

// Get is GetWithPriority without the priority.
func (q *Priority[T]) Get() (item T, shutdown bool) {
	item, _, shutdown = q.GetWithPriority()
	return item, shutdown
}

// TryGet implements Queue.
func (q *Priority[T]) TryGet() (item T, shutdown bool, ok bool) {
	item, _, shutdown, ok = q.TryGetWithPriority()
	return item, shutdown, ok
}

// TryGetWithPriority is GetWithPriority without blocking: ok is false when it
// would block.
func (q *Priority[T]) TryGetWithPriority() (item T, priority int, shutdown bool, ok bool) {
	q.catchUp()
	if q.shutdown {
		return item, 0, true, true
	}
	it := q.firstUnlocked()
	if it == nil {
		return item, 0, false, false
	}
	q.ready.Delete(it)
	delete(q.items, it.key)
	q.locked[it.key] = struct{}{}
	return it.key, it.priority, false, true
}

func (q *Priority[T]) getReady() bool {
	q.catchUp()
	return q.shutdown || q.firstUnlocked() != nil
}

// firstUnlocked is the item handleReadyItems would hand out next.
func (q *Priority[T]) firstUnlocked() *pqItem[T] {
	var first *pqItem[T]
	q.ready.Ascend(func(it *pqItem[T]) bool {
		if _, locked := q.locked[it.key]; locked {
			return true
		}
		first = it
		return false
	})
	return first
}

// Done unlocks item: if it was added again while being processed, that entry
// can now be handed out.
func (q *Priority[T]) Done(item T) {
	q.catchUp()
	delete(q.locked, item)
	if it, ok := q.items[item]; ok && it.readyAt == nil {
		q.notify()
	}
}

// Len is the number of ready items, including those added again while being
// processed (which Get cannot hand out yet); waiting items do not count.
func (q *Priority[T]) Len() int {
	q.catchUp()
	return q.ready.Len()
}

// ShutDown makes the queue ignore new items and every Get report shutdown.
// Queued items stay where they are (Len still counts them) but are never
// handed out; waiting items never become ready.
func (q *Priority[T]) ShutDown() {
	if q.shutdown {
		return
	}
	q.catchUp()
	q.shutdown = true
	q.stopTimer()
	q.notify()
}

// ShutDownWithDrain is ShutDown: controller-runtime does not drain its queue.
func (q *Priority[T]) ShutDownWithDrain() { q.ShutDown() }

// ShuttingDown reports whether ShutDown was called.
func (q *Priority[T]) ShuttingDown() bool { return q.shutdown }

// Forget tells the rate limiter to stop tracking item.
func (q *Priority[T]) Forget(item T) { q.rl.Forget(item) }

// NumRequeues is the rate limiter's count of item's requeues.
func (q *Priority[T]) NumRequeues(item T) int { return q.rl.NumRequeues(item) }

// Waiting implements Queue: the waiting tree in its order (ready time, then
// as ready items). It changes nothing: an item due now whose timer has not
// fired yet is still listed.
func (q *Priority[T]) Waiting() []Delayed[T] {
	var out []Delayed[T]
	q.waiting.Ascend(func(it *pqItem[T]) bool {
		out = append(out, Delayed[T]{Item: it.key, ReadyAt: *it.readyAt, Requeues: q.rl.NumRequeues(it.key)})
		return true
	})
	return out
}

// NextReady implements Queue.
func (q *Priority[T]) NextReady() (time.Time, bool) {
	q.catchUp()
	if q.shutdown {
		return time.Time{}, false
	}
	it, ok := q.waiting.Min()
	if !ok {
		return time.Time{}, false
	}
	return *it.readyAt, true
}

// catchUp moves the waiting items that are due now before anything else
// happens at this instant (see Classic.catchUp).
func (q *Priority[T]) catchUp() {
	if q.timer != nil && !q.timerAt.After(q.clk.Now()) {
		q.stopTimer()
		q.fire()
	}
}

// fire is handleWaitingItems: every due waiting item becomes ready, in
// waiting order, each taking the next added counter, so items are ordered by
// when they became ready, not when they were added.
func (q *Priority[T]) fire() {
	q.timer = nil
	now := q.clk.Now()
	var due []*pqItem[T]
	q.waiting.Ascend(func(it *pqItem[T]) bool {
		if it.readyAt.Sub(now) > 0 {
			return false
		}
		due = append(due, it)
		return true
	})
	for _, it := range due {
		q.waiting.Delete(it)
		it.readyAt = nil
		it.addedCounter = q.addedCounter
		q.addedCounter++
		q.ready.ReplaceOrInsert(it)
	}
	q.arm()
	if len(due) > 0 {
		q.notify()
	}
}

// arm keeps one timer, due when the earliest waiting item is ready.
func (q *Priority[T]) arm() {
	it, ok := q.waiting.Min()
	if !ok || q.shutdown {
		q.stopTimer()
		return
	}
	at := *it.readyAt
	if q.timer != nil && q.timerAt.Equal(at) {
		return
	}
	q.stopTimer()
	q.timerAt = at
	q.timer = q.clk.AfterFunc(at.Sub(q.clk.Now()), q.fire)
}

func (q *Priority[T]) stopTimer() {
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
}
