package queue

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// Timers is the part of the virtual clock a queue needs; sim/clock.Clock
// implements it. AfterFunc callbacks must run synchronously on the goroutine
// that advances the clock, as sim/clock's do: the queues take no locks.
type Timers interface {
	clock.PassiveClock
	AfterFunc(d time.Duration, f func()) clock.Timer
}

// Queue is what the simulator's controller runtime needs from either queue:
// client-go's rate-limiting workqueue interface, plus the non-blocking and
// observable parts that replace Get's blocking.
type Queue[T comparable] interface {
	workqueue.TypedRateLimitingInterface[T]

	// TryGet is Get without blocking. ok is false when Get would block (no
	// item can be handed out and the queue is not shutting down); otherwise
	// item and shutdown are what Get returns.
	TryGet() (item T, shutdown bool, ok bool)
	// NextReady is the earliest instant at which an item added with a delay
	// (AddAfter, AddRateLimited) becomes ready; false if none is pending.
	NextReady() (time.Time, bool)
	// Waiting are the items held back (AddAfter, AddRateLimited), earliest
	// first, each with its rate limiter's count of requeues; it changes
	// nothing.
	Waiting() []Delayed[T]
	// SetWaiter installs the hook that Get calls instead of blocking (and
	// Classic.ShutDownWithDrain while items are being processed): it must
	// park the calling goroutine until ready() reports true, as
	// sim/scheduler's WaitUntil does. Without it, Get on an empty running
	// queue panics: blocking is a harness bug in the simulator.
	SetWaiter(wait func(ready func() bool))
	// SetOnReady installs a callback invoked, after the queue's state is
	// consistent, whenever a blocked Get or ShutDownWithDrain may be able to
	// proceed: an item became available, the queue shut down, or (while
	// draining) the last item being processed is Done. It may call back into
	// the queue.
	SetOnReady(f func())
}

// Kind says which of controller-runtime's two queues a controller gets.
type Kind int

const (
	// KindPriority is controller-runtime's priorityqueue, the default in
	// v0.25.2 (pkg/controller/controller.go: ptr.Deref(UsePriorityQueue, true)).
	KindPriority Kind = iota
	// KindClassic is client-go's rate-limiting workqueue, what controllers
	// ran on before (and with UsePriorityQueue set to false).
	KindClassic
)

func (k Kind) String() string {
	switch k {
	case KindPriority:
		return "priority"
	case KindClassic:
		return "classic"
	}
	return "Kind(?)"
}

// UsePriorityQueue reports which queue controller-runtime v0.25.2 builds for a
// controller that sets no Options.NewQueue: the controller's own
// Options.UsePriorityQueue if set; else the manager's
// config.Controller.UsePriorityQueue (TypedOptions.DefaultFromConfig copies it
// when the controller's is nil); else the priority queue
// (NewTypedUnmanaged: ptr.Deref(options.UsePriorityQueue, true)).
func UsePriorityQueue(controllerOption, managerOption *bool) Kind {
	use := controllerOption
	if use == nil {
		use = managerOption
	}
	if use == nil || *use {
		return KindPriority
	}
	return KindClassic
}

// DefaultRateLimiter is the rate limiter controller-runtime gives a controller
// whose Options.RateLimiter is nil (NewTypedUnmanaged): for the priority queue
// the per-item exponential limiter alone (5ms*2^n, capped at 1000s); for the
// classic queue client-go's default, here on virtual time
// (DefaultControllerRateLimiter).
func DefaultRateLimiter[T comparable](kind Kind, clk clock.PassiveClock) workqueue.TypedRateLimiter[T] {
	if kind == KindPriority {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second)
	}
	return DefaultControllerRateLimiter[T](clk)
}

// New returns the queue of the given kind on the virtual clock, as
// controller-runtime's default Options.NewQueue would build it. A nil
// rateLimiter means DefaultRateLimiter(kind, clk).
func New[T comparable](kind Kind, clk Timers, rateLimiter workqueue.TypedRateLimiter[T]) Queue[T] {
	if rateLimiter == nil {
		rateLimiter = DefaultRateLimiter[T](kind, clk)
	}
	if kind == KindPriority {
		return NewPriority(clk, rateLimiter)
	}
	return NewClassic(clk, rateLimiter)
}

// AsPriorityQueue returns q itself if it is a priorityqueue.PriorityQueue, and
// otherwise wraps it as controller-runtime's internal controller does
// (pkg/internal/controller/controller.go, priorityQueueWrapper), so a runtime
// can dispatch reconcile results through AddWithOpts whatever the queue:
// RateLimited means AddRateLimited (After is then ignored), After > 0 means
// AddAfter, anything else Add; priorities are dropped and GetWithPriority
// reports priority 0.
func AsPriorityQueue[T comparable](q workqueue.TypedRateLimitingInterface[T]) priorityqueue.PriorityQueue[T] {
	if pq, ok := q.(priorityqueue.PriorityQueue[T]); ok {
		return pq
	}
	return wrapper[T]{q}
}

type wrapper[T comparable] struct {
	workqueue.TypedRateLimitingInterface[T]
}

func (w wrapper[T]) AddWithOpts(o priorityqueue.AddOpts, items ...T) {
	for _, item := range items {
		switch {
		case o.RateLimited:
			w.AddRateLimited(item)
		case o.After > 0:
			w.AddAfter(item, o.After)
		default:
			w.Add(item)
		}
	}
}

func (w wrapper[T]) GetWithPriority() (T, int, bool) {
	item, shutdown := w.Get()
	return item, 0, shutdown
}

// hooks holds what SetWaiter and SetOnReady install; both queues embed it.
type hooks struct {
	wait    func(ready func() bool)
	onReady func()
}

// SetWaiter implements Queue.
func (h *hooks) SetWaiter(wait func(ready func() bool)) { h.wait = wait }

// SetOnReady implements Queue.
func (h *hooks) SetOnReady(f func()) { h.onReady = f }

func (h *hooks) notify() {
	if h.onReady != nil {
		h.onReady()
	}
}

// block waits through the hook until ready() holds; what names the blocking
// call for the panic when no hook is installed.
func (h *hooks) block(what string, ready func() bool) {
	if ready() {
		return
	}
	if h.wait == nil {
		panic("queue: " + what + " would block and no waiter is installed (SetWaiter); in the simulator nothing may block: use TryGet or install the scheduler's WaitUntil (harness bug)")
	}
	h.wait(ready)
}
