package queue_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// methods lists the exported methods of v's type.
func methods(v any) []string {
	t := reflect.TypeOf(v)
	var out []string
	for i := range t.NumMethod() {
		out = append(out, t.Method(i).Name)
	}
	return out
}

func TestTheQueuesHaveNoMetricsAndNoLogger(t *testing.T) {
	classic := []string{"Add", "AddAfter", "AddRateLimited", "Done", "Forget", "Get", "Len", "NextReady",
		"NumRequeues", "SetOnReady", "SetWaiter", "ShutDown", "ShutDownWithDrain", "ShuttingDown", "TryGet",
		"Waiting"} // what it holds back (a run's end: check.Run's Backoffs, process.Retries)
	priority := append(slices.Clone(classic), "AddWithOpts", "GetWithPriority", "TryGetWithPriority")
	slices.Sort(priority)
	if got := methods(&queue.Classic[string]{}); !slices.Equal(got, classic) {
		t.Errorf("Classic's methods are %v, want %v", got, classic)
	}
	if got := methods(&queue.Priority[string]{}); !slices.Equal(got, priority) {
		t.Errorf("Priority's methods are %v, want %v", got, priority)
	}
}

func TestTheQueuesAreBuiltFromAClockAndARateLimiterAlone(t *testing.T) {
	for i, f := range []any{queue.NewClassic[string], queue.NewPriority[string]} {
		if n := reflect.TypeOf(f).NumIn(); n != 2 {
			t.Errorf("%s takes %d arguments, want 2 (a clock and a rate limiter; no config, no underlying queue)", []string{"NewClassic", "NewPriority"}[i], n)
		}
	}
	if n := reflect.TypeOf(queue.New[string]).NumIn(); n != 3 {
		t.Errorf("New takes %d arguments, want 3 (a kind, a clock and a rate limiter)", n)
	}
}

func TestTheQueuesTakeNoLocks(t *testing.T) {
	locks := []reflect.Type{reflect.TypeFor[sync.Mutex](), reflect.TypeFor[sync.RWMutex](), reflect.TypeFor[*sync.Cond]()}
	for _, q := range []any{queue.Classic[string]{}, queue.Priority[string]{}} {
		typ := reflect.TypeOf(q)
		for i := range typ.NumField() {
			if f := typ.Field(i); slices.Contains(locks, f.Type) {
				t.Errorf("%v has a lock, field %s", typ, f.Name)
			}
		}
	}
}

func TestTheDifferentialTestsCompareBlockedGetsAsAMultiset(t *testing.T) {
	a := []got{{At: time.Second, Item: "y"}, {At: time.Second, Item: "x"}}
	b := []got{{At: time.Second, Item: "x"}, {At: time.Second, Item: "y"}}
	sortGots(a)
	sortGots(b)
	if !slices.Equal(a, b) {
		t.Fatalf("two Gets taking x and y at one instant compare unequal when they swap: %v, %v", a, b)
	}
}

func TestADelayedItemDueNowIsReadyBeforeAnyCallAtThatInstant(t *testing.T) {
	for _, kind := range []queue.Kind{queue.KindClassic, queue.KindPriority} {
		clk := clock.New(clock.Epoch)
		q := queue.New(kind, clk, queue.DefaultRateLimiter[string](kind, clk))
		var got []string
		// Scheduled before the queue's timer, so it runs first at 1s.
		clk.AfterFunc(time.Second, func() { got = drainAll[string](q) })
		q.AddAfter("a", time.Second)
		clk.Step(time.Second)
		if !slices.Equal(got, []string{"a"}) {
			t.Errorf("%v: a call at the instant a is due, before the queue's timer fires, got %v; want [a]", kind, got)
		}
	}
}

func TestPriorityAddIsVisibleAtOnce(t *testing.T) {
	_, q := newPriority()
	q.AddWithOpts(priorityqueue.AddOpts{Priority: prio(1)}, "a")
	if q.Len() != 1 {
		t.Fatalf("Len = %d right after AddWithOpts, want 1", q.Len())
	}
	if got := mustGet[string](t, q); got != "a" {
		t.Fatalf("got %q, want a", got)
	}
}

func TestPriorityShutDownTwiceDoesNotPanicAndHandsOutNothing(t *testing.T) {
	_, q := newPriority()
	q.Add("a")
	q.ShutDown()
	q.ShutDown() // the real one panics: close of a closed channel
	if item, p, shutdown := q.GetWithPriority(); item != "" || p != 0 || !shutdown {
		t.Fatalf("GetWithPriority = %q, %d, %v; want nothing, shutdown", item, p, shutdown)
	}
}
