package queue_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// Compile-time: Classic is client-go's rate-limiting interface.
var _ workqueue.TypedRateLimitingInterface[reconcile.Request] = (*queue.Classic[reconcile.Request])(nil)

func newClassic(rl workqueue.TypedRateLimiter[string]) (*clock.Clock, *queue.Classic[string]) {
	clk := clock.New(clock.Epoch)
	if rl == nil {
		rl = queue.DefaultControllerRateLimiter[string](clk)
	}
	return clk, queue.NewClassic(clk, rl)
}

// mustGet takes the next item and fails if there is none or the queue is
// shut down.
func mustGet[T comparable](t *testing.T, q queue.Queue[T]) T {
	t.Helper()
	item, shutdown, ok := q.TryGet()
	if !ok || shutdown {
		t.Fatalf("TryGet = %v, shutdown=%v, ok=%v; want an item", item, shutdown, ok)
	}
	return item
}

func mustBeEmpty[T comparable](t *testing.T, q queue.Queue[T]) {
	t.Helper()
	if item, shutdown, ok := q.TryGet(); ok {
		t.Fatalf("TryGet = %v, shutdown=%v; want nothing (Get would block)", item, shutdown)
	}
}

// drainAll takes every item Get can hand out now, marking each Done.
func drainAll[T comparable](q queue.Queue[T]) []T {
	var out []T
	for {
		item, shutdown, ok := q.TryGet()
		if !ok || shutdown {
			return out
		}
		out = append(out, item)
		q.Done(item)
	}
}

// queue.go Add: "if q.dirty.Has(item) { ... return }".
func TestClassicAddOfAQueuedItemIsDeduplicated(t *testing.T) {
	_, q := newClassic(nil)
	q.Add("a")
	q.Add("b")
	q.Add("a")
	if q.Len() != 2 {
		t.Fatalf("Len = %d, want 2", q.Len())
	}
	if got := drainAll[string](q); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Get order = %v, want [a b] (FIFO, a once)", got)
	}
}

// queue.go Add/Done: an item added while processing is only marked dirty;
// Done pushes it back at once, with no backoff, behind items queued meanwhile.
func TestClassicAddWhileProcessingRequeuesOnDoneWithoutBackoff(t *testing.T) {
	clk, q := newClassic(nil)
	q.Add("a")
	a := mustGet[string](t, q)
	q.Add("a") // an event while a is being reconciled
	if q.Len() != 0 {
		t.Fatalf("Len = %d while a is processing, want 0 (a is dirty, not queued)", q.Len())
	}
	mustBeEmpty[string](t, q) // one key is never processed by two workers at once
	q.Add("b")
	q.Done(a)
	if q.Len() != 2 {
		t.Fatalf("Len after Done = %d, want 2", q.Len())
	}
	if got := drainAll[string](q); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("order = %v, want [b a]", got)
	}
	if clk.Pending() != 0 {
		t.Fatalf("the dirty requeue scheduled %d timers; want none (no backoff)", clk.Pending())
	}
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues(a) = %d, want 0: a dirty requeue is not a rate-limited one", n)
	}
}

// delaying_queue.go insert: "if the entry already exists, update the time only
// if it would cause the item to be queued sooner".
func TestClassicAddAfterKeepsTheEarliestReadyTime(t *testing.T) {
	clk, q := newClassic(nil)
	q.AddAfter("a", 10*time.Second)
	q.AddAfter("a", 30*time.Second) // later: ignored
	if at, ok := q.NextReady(); !ok || !at.Equal(clk.Now().Add(10*time.Second)) {
		t.Fatalf("NextReady = %v, %v; want +10s", at, ok)
	}
	q.AddAfter("a", 2*time.Second) // earlier: wins
	clk.Step(2*time.Second - 1)
	if q.Len() != 0 {
		t.Fatal("a is ready before 2s")
	}
	clk.Step(1)
	if q.Len() != 1 {
		t.Fatalf("Len at 2s = %d, want 1", q.Len())
	}
	if _, ok := q.NextReady(); ok {
		t.Fatal("one entry per item: nothing else should be waiting after it fired")
	}
}

// delaying_queue.go AddAfter: "immediately add things with no delay".
func TestClassicAddAfterWithNonPositiveDelayAddsNow(t *testing.T) {
	clk, q := newClassic(nil)
	q.AddAfter("a", 0)
	q.AddAfter("b", -time.Second)
	if got := drainAll[string](q); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("got %v, want [a b] at once", got)
	}
	if clk.Pending() != 0 {
		t.Fatal("no timer expected")
	}
}

// A waiting entry is independent of the queue: a plain Add neither removes nor
// reschedules it, so the item is reconciled again when the entry fires (seed 1:
// the earliest AddAfter of attempt 1 fires after the event-driven attempts).
func TestClassicAddDoesNotCancelAPendingAddAfter(t *testing.T) {
	clk, q := newClassic(nil)
	q.AddAfter("a", time.Second)
	q.Add("a")
	a := mustGet[string](t, q)
	q.Done(a)
	mustBeEmpty[string](t, q)
	clk.Step(time.Second)
	if got := mustGet[string](t, q); got != "a" {
		t.Fatalf("got %q", got)
	}
}

// An entry that fires while its item is processing marks it dirty (Add), so it
// runs again right after Done.
func TestClassicAddAfterFiringDuringProcessingRequeuesOnDone(t *testing.T) {
	clk, q := newClassic(nil)
	q.Add("a")
	a := mustGet[string](t, q)
	q.AddAfter("a", time.Second)
	clk.Step(time.Second)
	mustBeEmpty[string](t, q)
	q.Done(a)
	if got := mustGet[string](t, q); got != "a" {
		t.Fatalf("got %q", got)
	}
}

// default_rate_limiters.go ItemExponentialFailureRateLimiter:
// baseDelay*2^failures, capped at maxDelay; failures grows on every When.
func TestClassicAddRateLimitedBacksOff5msDoubling(t *testing.T) {
	clk, q := newClassic(nil)
	start := clk.Now()
	want := []time.Duration{5, 10, 20, 40, 80, 160}
	for i, w := range want {
		w *= time.Millisecond
		q.AddRateLimited("a")
		at, ok := q.NextReady()
		if !ok || at.Sub(clk.Now()) != w {
			t.Fatalf("requeue %d: ready in %v, want %v", i, at.Sub(clk.Now()), w)
		}
		clk.AdvanceTo(at)
		q.Done(mustGet[string](t, q))
		if n := q.NumRequeues("a"); n != i+1 {
			t.Fatalf("NumRequeues = %d, want %d", n, i+1)
		}
	}
	if got, want := clk.Since(start), 315*time.Millisecond; got != want {
		t.Fatalf("total %v, want %v", got, want)
	}
}

func TestClassicRateLimitedBackoffIsCappedAt1000s(t *testing.T) {
	clk, q := newClassic(nil)
	for range 30 { // 5ms*2^29 is far above 1000s
		q.AddRateLimited("a")
	}
	at, _ := q.NextReady()
	if d := at.Sub(clk.Now()); d != 5*time.Millisecond {
		t.Fatalf("the first AddRateLimited's entry (5ms) must win: got %v", d)
	}
	q.Forget("a")
	for range 30 {
		q.AddRateLimited("b")
	}
	rl := queue.DefaultControllerRateLimiter[string](clk)
	for range 30 {
		rl.When("c")
	}
	if d := rl.When("c"); d != 1000*time.Second {
		t.Fatalf("31st backoff = %v, want the 1000s cap", d)
	}
}

// rate_limiting_queue.go Forget: "we'll stop the rate limiter from tracking it".
func TestClassicForgetResetsTheBackoff(t *testing.T) {
	clk, q := newClassic(nil)
	for range 3 {
		q.AddRateLimited("a")
	}
	if n := q.NumRequeues("a"); n != 3 {
		t.Fatalf("NumRequeues = %d, want 3", n)
	}
	clk.Step(time.Second)
	q.Done(mustGet[string](t, q))
	q.Forget("a")
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", n)
	}
	q.AddRateLimited("a")
	at, _ := q.NextReady()
	if d := at.Sub(clk.Now()); d != 5*time.Millisecond {
		t.Fatalf("backoff after Forget = %v, want 5ms again", d)
	}
}

// DefaultTypedControllerRateLimiter's bucket: "10 qps, 100 bucket size ... only
// the overall factor (not per item)": 100 distinct items go without delay
// beyond their own 5ms, then one every 100ms.
func TestClassicDefaultBucketAllowsABurstOf100ThenOneEvery100ms(t *testing.T) {
	clk := clock.New(clock.Epoch)
	rl := queue.DefaultControllerRateLimiter[int](clk)
	for i := range 100 {
		if d := rl.When(i); d != 5*time.Millisecond {
			t.Fatalf("item %d of the burst waits %v, want 5ms (its own first backoff)", i, d)
		}
	}
	for i := 1; i <= 5; i++ {
		if d := rl.When(100 + i); d != time.Duration(i)*100*time.Millisecond {
			t.Fatalf("item %d after the burst waits %v, want %v", 100+i, d, time.Duration(i)*100*time.Millisecond)
		}
	}
	clk.Step(time.Second) // 10 tokens back at 10 qps, 5 of them already reserved
	if d := rl.When(1000); d != 5*time.Millisecond {
		t.Fatalf("after refilling, wait %v, want 5ms", d)
	}
	if n := rl.NumRequeues(1000); n != 1 {
		t.Fatalf("NumRequeues = %d: the bucket counts nothing, the exponential 1", n)
	}
}

// The bucket limiter reads only the virtual clock.
func TestBucketRateLimiterRefillsOnVirtualTime(t *testing.T) {
	clk := clock.New(clock.Epoch)
	b := queue.NewBucketRateLimiter[string](clk, rate.Limit(10), 2)
	got := []time.Duration{b.When("x"), b.When("x"), b.When("x"), b.When("x")}
	want := []time.Duration{0, 0, 100 * time.Millisecond, 200 * time.Millisecond}
	if !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	clk.Step(time.Second)
	if d := b.When("x"); d != 0 {
		t.Fatalf("after 1s of virtual time the bucket waits %v, want 0", d)
	}
}

// queue.go ShutDown: "ignore all new items ... continue processing items in
// the queue until it is empty and then receive the shutdown signal".
func TestClassicShutDownDrainsQueuedItemsThenReportsShutdown(t *testing.T) {
	clk, q := newClassic(nil)
	q.Add("p")
	p := mustGet[string](t, q)
	q.Add("a")
	q.Add("b")
	q.AddAfter("c", time.Second)
	q.Add("p") // dirty while processing
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false")
	}
	q.Add("d")
	q.AddAfter("e", 0)
	q.AddRateLimited("f")
	if _, ok := q.NextReady(); ok || clk.Pending() != 0 {
		t.Fatal("pending AddAfter entries must be dropped and the timer stopped")
	}
	q.Done(p) // a dirty item still goes back into the queue
	var got []string
	for {
		item, shutdown, ok := q.TryGet()
		if !ok {
			t.Fatal("a shut-down queue never blocks")
		}
		if shutdown {
			break
		}
		got = append(got, item)
		q.Done(item)
	}
	if !slices.Equal(got, []string{"a", "b", "p"}) {
		t.Fatalf("handed out %v after ShutDown, want [a b p]", got)
	}
	clk.Step(time.Hour)
	if item, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get = %q, want shutdown", item)
	}
}

// queue.go ShutDownWithDrain waits for the processing set only; a ShutDown
// after it stops the wait.
func TestClassicShutDownWithDrainWaitsUntilNothingIsProcessing(t *testing.T) {
	_, q := newClassic(nil)
	q.Add("a")
	q.Add("b")
	a := mustGet[string](t, q)
	var waited []bool
	q.SetWaiter(func(ready func() bool) {
		waited = append(waited, ready())
		q.Done(a) // the worker finishes meanwhile
		waited = append(waited, ready())
	})
	q.ShutDownWithDrain()
	if !slices.Equal(waited, []bool{false, true}) {
		t.Fatalf("drain readiness before/after Done = %v, want [false true]", waited)
	}
	if q.Len() != 1 {
		t.Fatalf("Len = %d: drain does not wait for queued items", q.Len())
	}

	_, q2 := newClassic(nil)
	q2.Add("a")
	mustGet[string](t, q2)
	q2.SetWaiter(func(ready func() bool) {
		q2.ShutDown()
		if !ready() {
			t.Error("ShutDown must end a ShutDownWithDrain wait")
		}
	})
	q2.ShutDownWithDrain()
}

// delaying_queue.go ShutDown runs once (stopOnce): after a ShutDown, a
// ShutDownWithDrain can no longer be ended by another ShutDown.
func TestClassicOnlyTheFirstShutDownCountsForDrain(t *testing.T) {
	_, q := newClassic(nil)
	q.Add("a")
	a := mustGet[string](t, q)
	q.ShutDown()
	var ready func() bool
	q.SetWaiter(func(r func() bool) { ready = r })
	q.ShutDownWithDrain()
	q.ShutDown()
	if ready == nil || ready() {
		t.Fatal("drain ended by a second ShutDown; client-go's delaying queue ignores it")
	}
	q.Done(a)
	if !ready() {
		t.Fatal("drain must end when processing is empty")
	}
}

// queue.go Done wakes one waiter (cond.Signal), not all: with two
// ShutDownWithDrain calls waiting, the Done that empties the processing set
// releases one; the other waits for the next wake-up (here the Broadcast of a
// further ShutDownWithDrain).
func TestClassicDoneReleasesOneDrainerAtATime(t *testing.T) {
	_, q := newClassic(nil)
	q.Add("a")
	a := mustGet[string](t, q)
	q.ShutDown()
	var drainers []func() bool
	q.SetWaiter(func(ready func() bool) { drainers = append(drainers, ready) })
	q.ShutDownWithDrain()
	q.ShutDownWithDrain()
	if len(drainers) != 2 || drainers[0]() || drainers[1]() {
		t.Fatal("both drains must wait while a is processing")
	}
	q.Done(a)
	if !drainers[0]() || drainers[1]() {
		t.Fatalf("after Done: released %v %v, want only the first", drainers[0](), drainers[1]())
	}
	q.ShutDownWithDrain() // nothing processing: returns at once, and broadcasts
	if !drainers[1]() || len(drainers) != 2 {
		t.Fatal("the Broadcast of a later ShutDownWithDrain must release the second drainer")
	}
}

func TestClassicGetWithoutWaiterOnEmptyQueuePanics(t *testing.T) {
	_, q := newClassic(nil)
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "harness bug") {
			t.Fatalf("recovered %v; want a harness-bug panic", r)
		}
	}()
	q.Get()
}

func TestClassicGetCallsTheWaiterUntilAnItemIsReady(t *testing.T) {
	clk, q := newClassic(nil)
	q.AddAfter("a", time.Second)
	calls := 0
	q.SetWaiter(func(ready func() bool) {
		calls++
		for !ready() {
			clk.FireNext() // what the scheduler does while every worker waits
		}
	})
	item, shutdown := q.Get()
	if item != "a" || shutdown || calls != 1 {
		t.Fatalf("Get = %q, %v after %d waits; want a, false, 1", item, shutdown, calls)
	}
	if clk.Since(clock.Epoch) != time.Second {
		t.Fatalf("Get returned at +%v, want +1s", clk.Since(clock.Epoch))
	}
}

func TestClassicOnReadyFiresWhenAnItemBecomesAvailable(t *testing.T) {
	clk, q := newClassic(nil)
	n := 0
	q.SetOnReady(func() { n++ })
	q.Add("a") // queued: 1
	q.Add("a") // dedup: none
	a := mustGet[string](t, q)
	q.Add("a") // dirty while processing: none
	q.Done(a)  // back in the queue: 2
	q.AddAfter("b", time.Second)
	q.AddAfter("c", time.Second)
	clk.Step(time.Second) // b and c together: 3
	q.ShutDown()          // 4
	if n != 4 {
		t.Fatalf("OnReady called %d times, want 4", n)
	}
}

// controller-runtime's handlers detect the priority queue by type assertion;
// the classic queue must not pass it, or events would carry priorities that
// the real classic queue never sees.
func TestClassicIsNotAPriorityQueue(t *testing.T) {
	_, q := newClassic(nil)
	var i workqueue.TypedRateLimitingInterface[string] = q
	if _, ok := i.(priorityqueue.PriorityQueue[string]); ok {
		t.Fatal("Classic implements priorityqueue.PriorityQueue")
	}
}

// Waiting lists what the queue holds back, earliest first, with the rate
// limiter's count of each item's requeues: a failure's back-off
// (AddRateLimited) counts, a delay asked for (AddAfter) does not; an item
// due is no longer waiting, and listing changes nothing.
func TestWaitingListsTheItemsHeldBackAndTheirRequeues(t *testing.T) {
	clk, q := newClassic(nil)
	q.AddRateLimited("failed")
	q.AddRateLimited("failed")
	q.AddAfter("later", time.Second)
	q.AddAfter("soon", time.Millisecond)
	got := q.Waiting()
	type row struct {
		item     string
		in       time.Duration
		requeues int
	}
	var rows []row
	for _, d := range got {
		rows = append(rows, row{d.Item, d.ReadyAt.Sub(clk.Now()), d.Requeues})
	}
	want := []row{{"soon", time.Millisecond, 0}, {"failed", 5 * time.Millisecond, 2}, {"later", time.Second, 0}}
	if !slices.Equal(rows, want) {
		t.Fatalf("Waiting = %v, want %v", rows, want)
	}
	clk.Step(5 * time.Millisecond)
	if got := q.Waiting(); len(got) != 1 || got[0].Item != "later" {
		t.Fatalf("Waiting 5ms later = %v, want later alone", got)
	}
	if items := drainAll[string](q); !slices.Equal(items, []string{"soon", "failed"}) {
		t.Fatalf("ready after 5ms: %v, want soon, failed (Waiting took nothing out)", items)
	}
}
