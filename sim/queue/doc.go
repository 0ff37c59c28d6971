// Package queue is the controller workqueue on virtual time: client-go's
// rate-limiting workqueue (Classic) and controller-runtime's priority queue
// (Priority), with their exact semantics, checked differentially against the
// real implementations run inside testing/synctest bubbles.
//
// # Which queue a controller gets
//
// controller-runtime v0.25.2 (pkg/controller/controller.go NewTypedUnmanaged)
// builds, unless Options.NewQueue is set, the priority queue when
// Options.UsePriorityQueue is nil or true, after DefaultFromConfig has filled
// a nil option from the manager's config.Controller.UsePriorityQueue:
// UsePriorityQueue(controllerOption, managerOption) returns that Kind. A nil
// Options.RateLimiter becomes, for the priority queue, the per-item
// exponential limiter alone (5ms*2^n, capped at 1000s, no bucket) and, for the
// classic queue, client-go's DefaultTypedControllerRateLimiter:
// DefaultRateLimiter(kind, clk). New(kind, clk, rateLimiter) builds the queue.
// The internal controller wraps a queue that is not a
// priorityqueue.PriorityQueue so that its reconcileHandler can call
// AddWithOpts on any queue; AsPriorityQueue is that wrapper.
//
// # Contract
//
// Classic (client-go util/workqueue v0.37.2: queue.go, delaying_queue.go,
// rate_limiting_queue.go):
//
//   - Dedup by item: Add of a queued item does nothing; Add of an item being
//     processed marks it dirty, and Done puts it back at the end of the queue
//     at once, with no backoff. Get hands items out in FIFO order.
//   - AddAfter(item, d): d <= 0 is Add; otherwise one waiting entry per item,
//     whose ready time only ever moves earlier. A waiting entry is not touched
//     by Add, Get or Done: when due, it Adds the item. Entries due at the same
//     instant are Added in the order client-go's heap (same heap, same
//     operations) yields them.
//   - AddRateLimited(item) is AddAfter(item, rateLimiter.When(item)); Forget
//     and NumRequeues go to the rate limiter.
//   - ShutDown: Add and AddAfter are ignored and waiting entries dropped; Get
//     keeps handing out queued items (and items Done while dirty) and reports
//     shutdown once the queue is empty. ShutDownWithDrain also waits until no
//     item is being processed (queued items need not be). As in client-go,
//     only the first ShutDown has an effect (the delaying queue's stopOnce),
//     and Done wakes one waiting drainer at a time (cond.Signal): with two
//     ShutDownWithDrain calls waiting, the Done that empties the processing
//     set releases only one.
//   - Done of an item that is queued but not being processed queues it a
//     second time, as client-go does: pass Done only items from Get.
//
// Priority (controller-runtime pkg/controller/priorityqueue v0.25.2):
//
//   - AddWithOpts(AddOpts{After, RateLimited, Priority}, items...): one entry
//     per item, which keeps the highest priority and the earliest ready time
//     it was given (a ready item stays ready). A rise in priority moves the item
//     to the end of its new priority level. RateLimited uses the rate
//     limiter's delay, or After when set and shorter.
//   - Ready items are handed out by priority (higher first), then in the order
//     they were added or became ready; waiting items that fall due at the same
//     instant become ready by priority, then by when they were added.
//   - An item added while being processed is queued (Len counts it) but not
//     handed out before Done. An item handed out has left the queue: a re-add
//     starts at its own priority (0 if unset), which is why controller-runtime's
//     reconcileHandler requeues with the priority the item was handed out with.
//   - ShutDown: adds are ignored and every Get reports shutdown at once, even
//     with items queued; ShutDownWithDrain is ShutDown.
//
// Both queues:
//
//   - Nothing blocks. TryGet is the non-blocking Get; Get (and
//     Classic.ShutDownWithDrain) call the hook installed with SetWaiter where
//     the real one would block (the scheduler's WaitUntil), and panic without
//     one. SetOnReady installs the wake-up callback. NextReady is the earliest
//     pending delayed item.
//   - One virtual-clock timer per queue, for the earliest delayed item; its
//     callback makes due items ready. Before any other call at an instant, a
//     queue first readies what is due at that instant, so its state never
//     depends on the order in which same-instant timers fire.
//   - Rate limiters run unchanged if they do not read the clock (client-go's
//     exponential, fast-slow and max-of limiters do not). client-go's bucket
//     limiter calls time.Now: use BucketRateLimiter and
//     DefaultControllerRateLimiter, which read the virtual clock.
//   - Not safe for concurrent use; the scheduler runs one goroutine at a time.
//
// # Differential tests
//
// diff_classic_test.go and diff_priority_test.go generate operation sequences
// (adds with delays, rate-limited adds, priorities, Forget, Get, Done, time
// advances, shutdowns) and run each against this package on sim/clock and
// against client-go's / controller-runtime's real queue inside a
// testing/synctest bubble, advancing both clocks together. After every
// operation they compare the items each Get returned and at which instant (a
// Get that finds nothing stays pending, so this is when items become
// available), Len, NumRequeues and ShuttingDown. The limiters compared are
// client-go's default (exponential + 10 qps/100 bucket), exponential + a
// 10 qps/2 bucket, and exponential alone.
//
// # Known gaps
//
//   - No metrics (depth, adds, latency, work duration, retries, unfinished
//     work) and no logging of the priority queue's state: neither queue has
//     a method for them (TestTheQueuesHaveNoMetricsAndNoLogger).
//   - The real queues hand items to blocked Gets from other goroutines: when
//     several items become ready at one instant, which blocked Get takes
//     which is a race. Here the scheduler decides; the differential tests
//     compare the multiset of (instant, item) handed to pending Gets per
//     operation, not who got which. A Get that does not block is compared
//     exactly (TestTheDifferentialTestsCompareBlockedGetsAsAMultiset).
//   - Real time is never simultaneous: a delayed item due at the instant of
//     another call is made ready before that call (catch-up), where a real
//     queue races its waiting goroutine against the caller
//     (TestADelayedItemDueNowIsReadyBeforeAnyCallAtThatInstant).
//   - The priority queue's add buffer is flushed at once: a real AddWithOpts
//     reaches the trees a moment later, on the queue's goroutine
//     (TestPriorityAddIsVisibleAtOnce).
//   - Priority's GetWithPriority never returns an item together with
//     shutdown=true, which the real one can when ShutDown races a hand-out.
//     A second ShutDown of the real priority queue panics (close of a closed
//     channel); here it does nothing
//     (TestPriorityShutDownTwiceDoesNotPanicAndHandsOutNothing).
//   - A custom underlying queue (client-go's TypedQueueConfig.Queue, with
//     Touch) is not supported: Classic is always FIFO. Custom delaying queues
//     (TypedRateLimitingQueueConfig.DelayingQueue) neither: the constructors
//     take a clock and a rate limiter alone
//     (TestTheQueuesAreBuiltFromAClockAndARateLimiterAlone).
//   - With a real clock, AfterFunc callbacks would run concurrently with the
//     queue, which takes no locks (TestTheQueuesTakeNoLocks): use the
//     virtual clock.
package queue
