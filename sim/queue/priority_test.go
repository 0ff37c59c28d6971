package queue_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// Compile-time: Priority is controller-runtime's PriorityQueue.
var _ priorityqueue.PriorityQueue[reconcile.Request] = (*queue.Priority[reconcile.Request])(nil)

func newPriority() (*clock.Clock, *queue.Priority[string]) {
	clk := clock.New(clock.Epoch)
	return clk, queue.NewPriority(clk, queue.DefaultRateLimiter[string](queue.KindPriority, clk))
}

func prio(p int) *int { return &p }

type handedOut struct {
	item     string
	priority int
}

func drainPriority(t *testing.T, q *queue.Priority[string]) []handedOut {
	t.Helper()
	var out []handedOut
	for {
		item, p, shutdown, ok := q.TryGetWithPriority()
		if !ok || shutdown {
			return out
		}
		out = append(out, handedOut{item, p})
		q.Done(item)
	}
}

// priorityqueue.go lessReady: higher priority first, then FIFO by added counter.
func TestPriorityHandsOutHigherPriorityFirstThenInAddOrder(t *testing.T) {
	_, q := newPriority()
	q.AddWithOpts(priorityqueue.AddOpts{Priority: prio(handler.LowPriority)}, "initial-1", "initial-2")
	q.Add("event-1")
	q.AddWithOpts(priorityqueue.AddOpts{Priority: prio(10)}, "urgent")
	q.Add("event-2")
	want := []handedOut{{"urgent", 10}, {"event-1", 0}, {"event-2", 0}, {"initial-1", -100}, {"initial-2", -100}}
	if got := drainPriority(t, q); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// PriorityQueue doc: "an item that is already enqueued at a lower priority is
// re-enqueued with a higher priority, it will be placed at the end among items
// of the new priority"; a lower priority is ignored (max wins).
func TestPriorityReAddKeepsTheHigherPriorityAndARiseGoesToTheEnd(t *testing.T) {
	_, q := newPriority()
	q.AddWithOpts(priorityqueue.AddOpts{Priority: prio(handler.LowPriority)}, "a")
	q.Add("b")
	q.Add("c")
	q.Add("a")                                                    // rises to 0: behind b and c
	q.AddWithOpts(priorityqueue.AddOpts{Priority: prio(-5)}, "b") // lower: ignored, b keeps its place
	want := []handedOut{{"b", 0}, {"c", 0}, {"a", 0}}
	if got := drainPriority(t, q); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if q.Len() != 0 {
		t.Fatalf("Len = %d: one entry per item", q.Len())
	}
}

// lockedAddWithOpts: the earliest ready time wins, a ready item stays ready,
// and a plain Add readies a waiting item at once, keeping its added counter
// (so it goes ahead of items added after its first add).
func TestPriorityAddAfterKeepsTheEarliestAndAddReadiesAWaitingItem(t *testing.T) {
	clk, q := newPriority()
	q.AddAfter("a", 10*time.Second)
	q.AddAfter("a", 30*time.Second)
	if at, _ := q.NextReady(); at.Sub(clk.Now()) != 10*time.Second {
		t.Fatalf("ready in %v, want 10s (earliest wins)", at.Sub(clk.Now()))
	}
	q.AddAfter("a", time.Second)
	if at, _ := q.NextReady(); at.Sub(clk.Now()) != time.Second {
		t.Fatalf("ready in %v, want 1s", at.Sub(clk.Now()))
	}
	q.Add("b")
	q.Add("a") // readies a, which was added first
	if _, ok := q.NextReady(); ok {
		t.Fatal("a still waiting after a plain Add")
	}
	if got := drainPriority(t, q); !slices.Equal(got, []handedOut{{"a", 0}, {"b", 0}}) {
		t.Fatalf("order %v, want a (first added) then b", got)
	}
	q.Add("c")
	q.AddAfter("c", time.Second) // a ready item stays ready
	if q.Len() != 1 {
		t.Fatalf("Len = %d, want c ready", q.Len())
	}
}

// handleWaitingItems: due items become ready in waiting order and take new
// added counters: ordered by when they became ready, not when they were added.
func TestPriorityDelayedItemsQueueByWhenTheyBecameReady(t *testing.T) {
	clk, q := newPriority()
	q.AddAfter("early-add", 2*time.Second)
	q.AddAfter("late-add", time.Second)
	clk.Step(time.Second)
	q.Add("event")
	clk.Step(time.Second)
	want := []handedOut{{"late-add", 0}, {"event", 0}, {"early-add", 0}}
	if got := drainPriority(t, q); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	q.AddWithOpts(priorityqueue.AddOpts{After: time.Second}, "x")
	q.AddWithOpts(priorityqueue.AddOpts{After: time.Second, Priority: prio(1)}, "y")
	clk.Step(time.Second)
	if got := drainPriority(t, q); !slices.Equal(got, []handedOut{{"y", 1}, {"x", 0}}) {
		t.Fatalf("same instant: %v, want y (priority 1) first", got)
	}
}

// lockedAddWithOpts: "if after == 0 || rlAfter < after { after = rlAfter }".
func TestPriorityRateLimitedTakesTheShorterOfAfterAndBackoff(t *testing.T) {
	clk, q := newPriority()
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, After: time.Second}, "a")
	if at, _ := q.NextReady(); at.Sub(clk.Now()) != 5*time.Millisecond {
		t.Fatalf("ready in %v, want the 5ms backoff", at.Sub(clk.Now()))
	}
	for range 10 {
		q.AddRateLimited("b")
	}
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, After: time.Millisecond}, "c")
	q.Forget("a")
	if n := q.NumRequeues("b"); n != 10 {
		t.Fatalf("NumRequeues(b) = %d, want 10", n)
	}
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues(a) after Forget = %d", n)
	}
	clk.Step(time.Millisecond)
	if got := drainPriority(t, q); !slices.Equal(got, []handedOut{{"c", 0}}) {
		t.Fatalf("at 1ms: %v, want c (After shorter than its 5ms backoff)", got)
	}
}

// Waiting lists the items held back, earliest first, each with its
// requeues: an item in back-off (rate-limited) and one delayed (After), not
// the ready ones.
func TestPriorityWaitingListsTheHeldBackItemsEarliestFirst(t *testing.T) {
	clk, q := newPriority()
	q.AddAfter("later", time.Second)
	for range 3 {
		q.AddRateLimited("failing") // 5, 10, 20 ms: the earliest held is kept
	}
	q.Add("ready")
	got := q.Waiting()
	if len(got) != 2 || got[0].Item != "failing" || got[1].Item != "later" {
		t.Fatalf("waiting %v, want failing then later", got)
	}
	if got[0].Requeues != 3 || !got[0].ReadyAt.Equal(clk.Now().Add(5*time.Millisecond)) || got[1].Requeues != 0 {
		t.Errorf("waiting %+v: want failing with 3 requeues ready in 5ms, later with none", got)
	}
}

// controller.go NewTypedUnmanaged: with the priority queue the default limiter
// is the per-item exponential one only, with no 10 qps bucket.
func TestPriorityDefaultRateLimiterHasNoBucket(t *testing.T) {
	clk := clock.New(clock.Epoch)
	q := queue.New[int](queue.KindPriority, clk, nil)
	for i := range 300 {
		q.AddRateLimited(i)
	}
	clk.Step(5 * time.Millisecond)
	if q.Len() != 300 {
		t.Fatalf("Len after 5ms = %d, want all 300 (no bucket)", q.Len())
	}

	classic := queue.New[int](queue.KindClassic, clk, nil)
	for i := range 101 {
		classic.AddRateLimited(i)
	}
	clk.Step(5 * time.Millisecond)
	if classic.Len() != 100 {
		t.Fatalf("classic: %d ready after 5ms, want the bucket's 100", classic.Len())
	}
	clk.Step(95 * time.Millisecond)
	if classic.Len() != 101 {
		t.Fatalf("classic: the 101st must be ready 100ms after the burst")
	}
}

// handleReadyItems skips locked items: an item added while being processed is
// queued (Len counts it) but handed out only after Done.
func TestPriorityItemAddedWhileProcessingIsHandedOutAfterDone(t *testing.T) {
	_, q := newPriority()
	q.Add("a")
	a := mustGet[string](t, q)
	q.Add("a")
	if q.Len() != 1 {
		t.Fatalf("Len = %d, want 1 (a queued while processing)", q.Len())
	}
	mustBeEmpty[string](t, q)
	ready := 0
	q.SetOnReady(func() { ready++ })
	q.Done(a)
	if ready != 1 {
		t.Fatalf("OnReady calls on Done = %d, want 1", ready)
	}
	if got := mustGet[string](t, q); got != "a" {
		t.Fatalf("got %q", got)
	}
}

// GetWithPriority: "if w.shutdown.Load() { return zero, 0, true }": no drain.
func TestPriorityShutDownStopsHandingOutQueuedItems(t *testing.T) {
	clk, q := newPriority()
	q.Add("a")
	q.AddAfter("b", time.Second)
	q.ShutDownWithDrain() // is ShutDown
	if !q.ShuttingDown() {
		t.Fatal("not shutting down")
	}
	if item, shutdown := q.Get(); !shutdown {
		t.Fatalf("Get = %q; want shutdown at once", item)
	}
	q.Add("c")
	clk.Step(time.Hour)
	if q.Len() != 1 || clk.Pending() != 0 {
		t.Fatalf("Len = %d, timers = %d; want a still counted, c ignored, b never ready", q.Len(), clk.Pending())
	}
}

func TestPriorityGetWithoutWaiterPanics(t *testing.T) {
	_, q := newPriority()
	q.Add("a")
	mustGet[string](t, q)
	q.Add("a") // queued but locked: Get would block
	defer func() {
		if s, _ := recover().(string); !strings.Contains(s, "harness bug") {
			t.Fatalf("recovered %q; want a harness-bug panic", s)
		}
	}()
	q.GetWithPriority()
}

func TestPriorityGetCallsTheWaiterUntilALockedItemIsDone(t *testing.T) {
	_, q := newPriority()
	q.AddWithOpts(priorityqueue.AddOpts{Priority: prio(3)}, "a")
	a := mustGet[string](t, q)
	q.Add("a")
	q.SetWaiter(func(ready func() bool) {
		if ready() {
			t.Error("ready while a is locked")
		}
		q.Done(a) // another worker finishes a
		if !ready() {
			t.Error("not ready after Done")
		}
	})
	item, p, shutdown := q.GetWithPriority()
	// A handed-out item leaves the queue, so the re-add starts afresh at
	// priority 0: that is why reconcileHandler passes the priority it got
	// explicitly when it requeues.
	if item != "a" || p != 0 || shutdown {
		t.Fatalf("GetWithPriority = %q, %d, %v; want a, 0, false", item, p, shutdown)
	}
}

func configMap(rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm", ResourceVersion: rv}}
}

// controller-runtime's own handlers find Priority by type assertion
// (handler/eventhandler.go isPriorityQueue) and pass LowPriority for objects of
// the initial list and for updates that keep the resourceVersion (resyncs).
func TestControllerRuntimeHandlersPassPrioritiesToPriority(t *testing.T) {
	ctx := context.Background()
	clk := clock.New(clock.Epoch)
	key := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "cm"}}
	h := &handler.EnqueueRequestForObject{}
	cases := []struct {
		name string
		send func(q workqueue.TypedRateLimitingInterface[reconcile.Request])
		want int
	}{
		{"create from the initial list", func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Create(ctx, event.CreateEvent{Object: configMap("1"), IsInInitialList: true}, q)
		}, handler.LowPriority},
		{"create from a watch", func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Create(ctx, event.CreateEvent{Object: configMap("1")}, q)
		}, 0},
		{"update keeping the resourceVersion", func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: configMap("1"), ObjectNew: configMap("1")}, q)
		}, handler.LowPriority},
		{"update to a new resourceVersion", func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Update(ctx, event.UpdateEvent{ObjectOld: configMap("1"), ObjectNew: configMap("2")}, q)
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := queue.NewPriority(clk, queue.DefaultRateLimiter[reconcile.Request](queue.KindPriority, clk))
			c.send(q)
			item, p, shutdown, ok := q.TryGetWithPriority()
			if !ok || shutdown || item != key || p != c.want {
				t.Fatalf("got %v priority %d (ok=%v); want %v priority %d", item, p, ok, key, c.want)
			}
		})
	}
}

// controller.go: Options.UsePriorityQueue, else the manager's
// config.Controller.UsePriorityQueue, else true.
func TestUsePriorityQueueFollowsControllerThenManagerThenDefault(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		ctrl, mgr *bool
		want      queue.Kind
	}{
		{nil, nil, queue.KindPriority},
		{nil, &no, queue.KindClassic},
		{nil, &yes, queue.KindPriority},
		{&no, nil, queue.KindClassic},
		{&no, &yes, queue.KindClassic},
		{&yes, &no, queue.KindPriority},
	}
	for _, c := range cases {
		if got := queue.UsePriorityQueue(c.ctrl, c.mgr); got != c.want {
			t.Errorf("UsePriorityQueue(%v, %v) = %v, want %v", c.ctrl, c.mgr, got, c.want)
		}
	}
}

// internal/controller priorityQueueWrapper: RateLimited wins over After, After
// > 0 delays, else Add; priorities are dropped.
func TestAsPriorityQueueWrapsTheClassicQueueAsControllerRuntimeDoes(t *testing.T) {
	clk, c := newClassic(nil)
	pq := queue.AsPriorityQueue[string](c)
	pq.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, After: time.Hour, Priority: prio(5)}, "a")
	pq.AddWithOpts(priorityqueue.AddOpts{After: time.Second}, "b")
	pq.AddWithOpts(priorityqueue.AddOpts{After: -time.Second, Priority: prio(9)}, "c")
	if c.NumRequeues("a") != 1 || c.Len() != 1 {
		t.Fatalf("requeues(a)=%d len=%d; want a rate-limited, c added", c.NumRequeues("a"), c.Len())
	}
	if item, p, _ := pq.GetWithPriority(); item != "c" || p != 0 {
		t.Fatalf("GetWithPriority = %q, %d; want c with priority 0", item, p)
	}
	clk.Step(time.Second)
	if got := drainAll[string](c); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("after 1s: %v, want [a b]", got)
	}
	_, p := newPriority()
	if queue.AsPriorityQueue[string](p) != priorityqueue.PriorityQueue[string](p) {
		t.Fatal("a priority queue must be returned as is")
	}
}
