package process

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// NewClientGoQueue is the workqueue of a client-go operator (one that builds
// its own workqueue.NewTypedRateLimitingQueue beside a SharedInformerFactory)
// in the incarnation of mgr: the simulator's model of client-go's
// rate-limiting queue (package queue's Classic) on virtual time, its
// limiter's token buckets on the virtual clock, with rl (nil: client-go's
// DefaultTypedControllerRateLimiter). Every call joins the process: the
// goroutine that calls it (the informer's handler goroutine on Add, a
// worker under wait.Until on Get) becomes a task of the process at its
// first call, runs when the plan picks it, and is frozen with a crash; a
// Get with nothing ready waits in the scheduler. mgr must be a process's
// Manager.
func NewClientGoQueue[T comparable](mgr manager.Manager, rl workqueue.TypedRateLimiter[T]) (workqueue.TypedRateLimitingInterface[T], error) {
	m, ok := mgr.(*Manager)
	if !ok {
		return nil, fmt.Errorf("ctrlsim: NewClientGoQueue needs the manager of a simulated process, not a %T", mgr)
	}
	if rl == nil {
		rl = workqueue.DefaultTypedControllerRateLimiter[T]()
	}
	vrl, err := virtualRateLimiter(rl, m.p.env.Clock)
	if err != nil {
		return nil, fmt.Errorf("ctrlsim: process %s: %w", m.p.spec.Name, err)
	}
	q := queue.New(queue.KindClassic, m.p.env.Clock, vrl)
	q.SetWaiter(m.p.env.Scheduler.WaitUntil)
	m.queues++
	c := &clientGoQueue[T]{q: q, m: m, name: fmt.Sprintf("queue#%d", m.queues)}
	m.retries = append(m.retries, c.retries)
	return c, nil
}

// NameQueue names q, a queue NewClientGoQueue returned, as the queue of
// the cluster's controller whose keys are objects of kind: the process's
// Backoffs report its keys in back-off at the end of a run (check.Run's
// Backoffs). A hosted controller of the cluster's names its queue; an
// operator's is not named (what it does to itself is judged).
func NameQueue[T comparable](q workqueue.TypedRateLimitingInterface[T], controller string, kind schema.GroupKind) error {
	c, ok := q.(*clientGoQueue[T])
	if !ok {
		return fmt.Errorf("ctrlsim: NameQueue needs a queue of NewClientGoQueue, not a %T", q)
	}
	classic, ok := c.q.(*queue.Classic[T])
	if !ok {
		return fmt.Errorf("ctrlsim: NameQueue: a %T, not client-go's classic queue", c.q)
	}
	m := c.m
	c.name, c.named = controller, true
	m.named = append(m.named, func() []check.Backoff {
		var out []check.Backoff
		for _, d := range classic.Waiting() {
			if d.Requeues == 0 || !d.ReadyAt.After(m.p.env.Clock.Now()) {
				continue // a delay asked for (AddAfter), not a failure's back-off; or due now
			}
			out = append(out, check.Backoff{Process: m.p.spec.Name, Controller: controller, Kind: kind,
				Key: fmt.Sprint(d.Item), Requeues: d.Requeues, Due: d.ReadyAt.Sub(m.p.env.Start)})
		}
		return out
	})
	return nil
}

// Backoffs are the keys the current incarnation's named queues (NameQueue)
// hold in back-off while it runs, queue by queue in the order they were named, each
// queue's earliest due first.
func (p *Process) Backoffs() []check.Backoff {
	if p.mgr == nil || !p.started { // a process down holds no queue
		return nil
	}
	var out []check.Backoff
	for _, f := range p.mgr.named {
		out = append(out, f()...)
	}
	return out
}

// IncarnationContext is the context of mgr's incarnation, the one
// controller-runtime's sources get from the simulator: cancelled when the
// incarnation ends (a crash, a stop), so that what a client-go operator
// starts on it (its informers' goroutines, WaitForCacheSync) returns then
// instead of staying blocked for the rest of the run. Their calls into the
// simulator after that are refused (frozen, as a killed process's). mgr
// must be a process's Manager.
func IncarnationContext(mgr manager.Manager) (context.Context, error) {
	m, ok := mgr.(*Manager)
	if !ok {
		return nil, fmt.Errorf("ctrlsim: IncarnationContext needs the manager of a simulated process, not a %T", mgr)
	}
	return m.ctx, nil
}

// AdoptStarted lets the goroutines the calling task of mgr's process has
// just started (an informer factory's Start) reach their first call into
// the simulator and become tasks of the process, before the caller goes on:
// the caller yields, and the kernel settles the bubble and adopts them. Code
// that starts goroutines one group after another calls it after each, so
// that each group is numbered and run after the previous one, whatever the
// goroutine ids. Outside a task of the process it does nothing.
func AdoptStarted(mgr manager.Manager) {
	m, ok := mgr.(*Manager)
	if !ok || !m.p.env.Scheduler.InBubble() {
		return
	}
	m.join()
	if m.p.env.Scheduler.Current() == nil {
		return
	}
	m.p.env.Scheduler.Yield()
}

// clientGoQueue is the queue of NewClientGoQueue: each call joins the
// incarnation first (scheduler.Join), as its client's calls do, but a
// ShutDown once the incarnation has ended (a graceful-shutdown goroutine
// on the incarnation's context, Run's deferred ShutDown at a crash or the
// world's close) returns at once, as client-go's does: the queue goes with
// the incarnation, and joining an ended one would wait for ever.
//
// A goroutine's call joins asking by the queue and the item (JoinAsking):
// an informer's handlers each run on a goroutine of their own, started in Go
// map order (client-go's sharedProcessor keeps its listeners in a map), and
// two controllers' handlers of one informer that add one namespace to their
// two queues at one instant are told apart by which queue they call, not by
// their goroutine ids.
type clientGoQueue[T comparable] struct {
	q    queue.Queue[T]
	m    *Manager
	name string // the controller NameQueue named, or queue#N in order of creation
	// named: NameQueue named it, a queue of the cluster's (Backoffs).
	named bool
	// failed: when each item's last rate-limited retry was asked for.
	failed failures[T]
}

// retries are the queue's items in back-off with a retry due after now
// (Process.Retries), none for a queue of the cluster's.
func (c *clientGoQueue[T]) retries() []Retry {
	if c.named {
		return nil
	}
	return retriesOf(c.m.p, c.name, c.q, c.failed, func(item T) string { return askingItem(item) })
}

// join joins the incarnation asking op on item of this queue.
func (c *clientGoQueue[T]) join(op string, item *T) {
	if !c.m.joining() {
		return
	}
	asking := c.name + " " + op
	if item != nil {
		asking += " " + askingItem(*item)
	}
	c.m.joinAsking(asking)
}

// askingItem is what an item tells of itself in every run: its text, unless
// it is a pointer (an address differs between runs).
func askingItem(item any) string {
	switch v := item.(type) {
	case string:
		return v
	case fmt.Stringer:
		if reflect.ValueOf(item).Kind() != reflect.Pointer {
			return v.String()
		}
		return ""
	}
	switch reflect.ValueOf(item).Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.Invalid:
		return ""
	}
	return fmt.Sprintf("%+v", item)
}

var _ workqueue.TypedRateLimitingInterface[string] = (*clientGoQueue[string])(nil)

func (c *clientGoQueue[T]) Add(item T)  { c.join("add", &item); c.q.Add(item) }
func (c *clientGoQueue[T]) Len() int    { c.join("len", nil); return c.q.Len() }
func (c *clientGoQueue[T]) Done(item T) { c.join("done", &item); c.q.Done(item) }
func (c *clientGoQueue[T]) ShutDown() {
	if !c.ended() {
		c.join("shutdown", nil)
		c.q.ShutDown()
	}
}

// ended reports whether the queue's incarnation has ended, or the world is
// closing.
func (c *clientGoQueue[T]) ended() bool {
	return c.m.ctx.Err() != nil || c.m.p.env.Scheduler.Closing()
}

func (c *clientGoQueue[T]) ShutDownWithDrain() {
	if !c.ended() {
		c.join("shutdown", nil)
		c.q.ShutDownWithDrain()
	}
}
func (c *clientGoQueue[T]) ShuttingDown() bool {
	c.join("shuttingdown", nil)
	return c.q.ShuttingDown()
}
func (c *clientGoQueue[T]) AddAfter(item T, d time.Duration) {
	c.join("addafter", &item)
	c.q.AddAfter(item, d)
}
func (c *clientGoQueue[T]) AddRateLimited(item T) {
	c.join("addratelimited", &item)
	c.failed.record(item, c.m.p.env.Clock.Now())
	c.q.AddRateLimited(item)
}
func (c *clientGoQueue[T]) Forget(item T) { c.join("forget", &item); c.q.Forget(item) }
func (c *clientGoQueue[T]) NumRequeues(item T) int {
	c.join("numrequeues", &item)
	return c.q.NumRequeues(item)
}

// Get waits in the scheduler until an item is ready; a worker killed while it
// waits is frozen there (the scheduler unwinds it when the world closes).
func (c *clientGoQueue[T]) Get() (T, bool) {
	c.join("get", nil)
	return c.q.Get()
}
