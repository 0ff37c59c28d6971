package process

import (
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlsim/ctrlsim/sim/queue"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Hosting controller-runtime's own controller.
//
// The builder (ctrl.NewControllerManagedBy(mgr)...Complete) and controller.New
// build controller-runtime's internal controller
// (sigs.k8s.io/controller-runtime/pkg/internal/controller.Controller, v0.25.2)
// and hand it to mgr.Add. The simulator runs that controller's own Start,
// worker loop (processNextWorkItem), reconcileHandler (results, errors,
// TerminalError, RequeueAfter, logging) and Reconcile (panic recovery,
// ReconciliationTimeout), changing four things through the seams below:
//
//   - Queue (an exported field): the simulator's model of the queue the
//     controller's own NewQueue builds (called once to learn which: the
//     priority queue or client-go's classic one; that queue is shut down at
//     once), on virtual time, with the controller's RateLimiter (client-go's
//     token bucket moved to virtual time).
//   - Do (an exported field): wrapped to trace each reconcile and its result,
//     attribute log lines, and record panics as findings.
//   - Event sources: the controller starts its sources with goroutines and
//     wall-clock timeouts (startEventSourcesAndQueueLocked). The simulator marks
//     that done (didStartEventSourcesOnce, unexported) and starts each source
//     itself, one at a time in the order the builder added them, waiting for
//     each to sync. startedEventSourcesAndQueue (unexported) stays false, so a
//     later Watch (a reconciler adding a watch at run time) leaves its source in
//     startWatches (unexported), and the simulator starts it before the
//     caller's next client call: as on a real cluster, where it starts
//     concurrently, the watch is in place shortly after Watch returns.
//   - Workers: Start runs unmodified on a goroutine of its own and launches
//     MaxConcurrentReconciles worker goroutines; the scheduler adopts each at
//     its first Queue.Get (scheduler.Host), so a worker runs only when the
//     scheduler hands it a turn. A killed worker leaves with runtime.Goexit.
//
// TestTheSeamMatchesControllerRuntime pins the fields this relies on; an
// upgrade that moves one makes Add fail with the field's name.
const hostedControllerType = "sigs.k8s.io/controller-runtime/pkg/internal/controller.Controller[sigs.k8s.io/controller-runtime/pkg/reconcile.Request]"

// hosted is one controller-runtime controller running in an incarnation.
type hosted struct {
	m          *Manager
	name       string
	ctrl       manager.Runnable
	v          reflect.Value // the controller struct
	do         reconcile.Reconciler
	recover    bool
	kind       queue.Kind
	q          queue.Queue[reconcile.Request]
	reconciles int
	workers    int
	mu         *sync.Mutex                              // the controller's mu
	watches    *[]source.TypedSource[reconcile.Request] // the controller's startWatches
	pq         priorityqueue.PriorityQueue[reconcile.Request]
	// needsLeader: the controller's NeedLeaderElection (true unless its
	// options say otherwise); it then starts once the incarnation leads.
	needsLeader bool
	started     bool // its Start has run: its sources start with it, never before
	// failed: when each key's last rate-limited retry was asked for (retries.go).
	failed failures[reconcile.Request]
}

// field returns a settable view of the controller's field name, exported or
// not, or an error naming it when controller-runtime no longer has it with
// that type.
func (h *hosted) field(name string, typ reflect.Type) (reflect.Value, error) {
	f := h.v.FieldByName(name)
	if !f.IsValid() || (typ != nil && f.Type() != typ) {
		return reflect.Value{}, fmt.Errorf("ctrlsim: controller-runtime's controller has no field %s of type %v (the simulator hosts controller-runtime v0.25.2; see sim/process/host.go)", name, typ)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), nil
}

// isController reports whether r is controller-runtime's controller of
// reconcile.Request (the one kind of controller the host runs).
func isController(r manager.Runnable) bool {
	t := reflect.TypeOf(r)
	return t.Kind() == reflect.Pointer && t.Elem().PkgPath()+"."+t.Elem().Name() == hostedControllerType
}

func newHosted(m *Manager, r manager.Runnable) (*hosted, error) {
	if !isController(r) {
		return nil, fmt.Errorf("ctrlsim: process %s: %T is not controller-runtime's controller of reconcile.Request", m.p.spec.Name, r)
	}
	h := &hosted{m: m, ctrl: r, v: reflect.ValueOf(r).Elem(), needsLeader: needsLeader(r)}
	name, err := h.field("Name", reflect.TypeFor[string]())
	if err != nil {
		return nil, err
	}
	h.name = name.String()
	do, err := h.field("Do", reflect.TypeFor[reconcile.Reconciler]())
	if err != nil {
		return nil, err
	}
	h.do = do.Interface().(reconcile.Reconciler)
	do.Set(reflect.ValueOf(reconcile.Reconciler(h)))
	rp, err := h.field("RecoverPanic", reflect.TypeFor[*bool]())
	if err != nil {
		return nil, err
	}
	h.recover = rp.IsNil() || rp.Elem().Bool()
	workers, err := h.field("MaxConcurrentReconciles", reflect.TypeFor[int]())
	if err != nil {
		return nil, err
	}
	if n := m.p.workersOverride(h.name); n > 0 {
		workers.SetInt(int64(n))
	}
	h.workers = int(workers.Int())

	// The queue: the kind the controller's own NewQueue builds.
	newQueue, err := h.field("NewQueue", reflect.TypeFor[func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]]())
	if err != nil {
		return nil, err
	}
	rl, err := h.field("RateLimiter", reflect.TypeFor[workqueue.TypedRateLimiter[reconcile.Request]]())
	if err != nil {
		return nil, err
	}
	limiter, _ := rl.Interface().(workqueue.TypedRateLimiter[reconcile.Request])
	probe := newQueue.Interface().(func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request])(h.name, limiter)
	probe.ShutDown()
	switch probe.(type) {
	case priorityqueue.PriorityQueue[reconcile.Request]:
		h.kind = queue.KindPriority
	default:
		if reflect.TypeOf(probe).String() != "*workqueue.rateLimitingType[sigs.k8s.io/controller-runtime/pkg/reconcile.Request]" {
			return nil, fmt.Errorf("ctrlsim: controller %s: a custom NewQueue (%T) is not modelled; the simulator models controller-runtime's priority queue and client-go's rate-limiting queue (known gap of package process)", h.name, probe)
		}
		h.kind = queue.KindClassic
	}
	limiter, err = virtualRateLimiter(limiter, m.p.env.Clock)
	if err != nil {
		return nil, fmt.Errorf("ctrlsim: controller %s: %w", h.name, err)
	}
	h.q = queue.New(h.kind, m.p.env.Clock, limiter)
	h.q.SetWaiter(m.p.env.Scheduler.WaitUntil)
	qf, err := h.field("Queue", reflect.TypeFor[priorityqueue.PriorityQueue[reconcile.Request]]())
	if err != nil {
		return nil, err
	}
	h.pq = &hostedQueue{PriorityQueue: queue.AsPriorityQueue[reconcile.Request](h.q), h: h}
	qf.Set(reflect.ValueOf(h.pq))

	// The sources start when the simulator says (startWatches), never from
	// startEventSourcesAndQueueLocked.
	once, err := h.field("didStartEventSourcesOnce", reflect.TypeFor[sync.Once]())
	if err != nil {
		return nil, err
	}
	once.Addr().Interface().(*sync.Once).Do(func() {})
	if _, err := h.field("startedEventSourcesAndQueue", reflect.TypeFor[bool]()); err != nil {
		return nil, err
	}
	mu, err := h.field("mu", reflect.TypeFor[sync.Mutex]())
	if err != nil {
		return nil, err
	}
	h.mu = mu.Addr().Interface().(*sync.Mutex)
	watches, err := h.field("startWatches", reflect.TypeFor[[]source.TypedSource[reconcile.Request]]())
	if err != nil {
		return nil, err
	}
	h.watches = watches.Addr().Interface().(*[]source.TypedSource[reconcile.Request])
	return h, nil
}

// start starts the controller's sources, then runs its Start, whose workers
// the scheduler adopts.
func (h *hosted) start() error {
	if gvk, waiting := h.unservedKind(); waiting {
		h.waitServed(gvk, h.m.p.env.Clock.Now()) // crdwait.go
		return nil
	}
	h.started = true
	if err := h.startWatches(); err != nil {
		return err
	}
	p := h.m.p
	ctx := h.m.ctx
	tasks, err := p.env.Scheduler.Host(p.spec.Name, p.spec.Name+"/"+h.name, h.workers, func() error {
		return h.ctrl.Start(ctx) // returns when the incarnation's context ends
	})
	for i, t := range tasks {
		p.workers[t] = &worker{c: h, n: i + 1}
	}
	return err
}

// startWatches starts the sources waiting in the controller's startWatches, one
// at a time, each synced before the next; it returns the first error, as the
// controller's own start does.
func (h *hosted) startWatches() error {
	h.mu.Lock()
	srcs := *h.watches
	*h.watches = nil
	h.mu.Unlock()
	for _, src := range srcs {
		if err := h.checkSource(src); err != nil {
			return err
		}
		s, syncing := src.(source.TypedSyncingSource[reconcile.Request])
		if !syncing {
			// A source.Channel or source.Func: Start returns at once; the
			// goroutines it starts (the Channel's reader of the operator's
			// channel and its handler's loop) become tasks of the process at
			// their first call into the simulator (the handler's queue.Add).
			if err := src.Start(h.m.ctx, h.pq); err != nil {
				return err
			}
			continue
		}
		var err error
		h.m.p.env.Scheduler.Helped("sigs.k8s.io/controller-runtime/pkg/internal/source.(*Kind", func() {
			// The Kind source's goroutine registers its handler with the
			// simulator's informer, which has synced, while this one waits
			// for it: its calls (the initial list's queue adds) are ours.
			if err = src.Start(h.m.ctx, h.pq); err != nil {
				return
			}
			if werr := s.WaitForSync(context.Background()); werr != nil {
				err = fmt.Errorf("failed to wait for %s caches to sync %v: %w", h.name, s, werr)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkSource accepts controller-runtime's Kind sources on the process's own
// cache, whose kind is served, its Channel sources and Func sources: a Kind on
// another cache would retry on an informer the simulator does not feed, a kind
// that is not served would retry for ever on the wall clock, and a source of
// the operator's own type is not known to start nothing else.
func (h *hosted) checkSource(src source.TypedSource[reconcile.Request]) error {
	v := reflect.ValueOf(src)
	if v.Kind() == reflect.Func && v.Type() == reflect.TypeFor[source.TypedFunc[reconcile.Request]]() {
		return nil // source.Func: the operator's function, called with the controller's queue
	}
	if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct && v.Elem().Type().PkgPath() == "sigs.k8s.io/controller-runtime/pkg/source" && strings.HasPrefix(v.Elem().Type().Name(), "channel[") {
		return nil // source.Channel
	}
	if v.Kind() != reflect.Pointer || v.Elem().Type().PkgPath() != "sigs.k8s.io/controller-runtime/pkg/internal/source" || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("ctrlsim: controller %s: source %T is not modelled; the simulator runs source.Kind on mgr.GetCache(), source.Channel and source.Func (known gap of package process)", h.name, src)
	}
	c := v.Elem().FieldByName("Cache")
	typ := v.Elem().FieldByName("Type")
	if !c.IsValid() || !typ.IsValid() {
		return fmt.Errorf("ctrlsim: controller %s: source %T is not modelled; the simulator runs source.Kind on mgr.GetCache(), source.Channel and source.Func (known gap of package process)", h.name, src)
	}
	if pc, ok := c.Interface().(*procCache); !ok || pc != h.m.cache {
		return fmt.Errorf("ctrlsim: controller %s: %v reads a cache other than mgr.GetCache() of its process; not modelled (known gap of package process)", h.name, src)
	}
	obj, ok := typ.Interface().(client.Object)
	if !ok {
		return fmt.Errorf("ctrlsim: controller %s: source %v has no object type", h.name, src)
	}
	gvk, err := h.m.cache.gvkOf(obj)
	if err != nil {
		return fmt.Errorf("ctrlsim: controller %s: %w", h.name, err)
	}
	if _, ok := h.m.p.env.Server.KindFor(gvk); !ok {
		return fmt.Errorf("controller %s: kind %s is not served (install its CRD)", h.name, gvk)
	}
	return nil
}

// Reconcile is the controller's Do: the reconciler's Reconcile, traced.
func (h *hosted) Reconcile(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	p := h.m.p
	w := p.workers[p.env.Scheduler.Current()]
	p.stopIfIdle(w) // a clean stop asked: it happens before this reconcile begins (stop.go)
	h.reconciles++
	if w != nil {
		w.reconcile = h.reconciles
	}
	obj := req.Namespace + "/" + req.Name
	p.record(trace.Step{Op: "reconcile", Object: obj})
	ctx = logf.IntoContext(ctx, userLogger(logf.FromContext(ctx)))
	defer func() {
		if w != nil {
			w.reconcile = 0
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			if scheduler.IsKilled(r) || p.env.Scheduler.Killed() {
				panic(r)
			}
			p.finding(Finding{Controller: h.name, Request: req, Panic: fmt.Sprint(r), Location: panicLocation()})
			if h.recover {
				p.record(trace.Step{Op: "result", Object: obj, Result: fmt.Sprintf("error: panic: %v [recovered]", r)})
			}
			panic(r) // controller-runtime's Reconcile recovers it (RecoverPanic)
		}
	}()
	res, err = h.do.Reconcile(ctx, req)
	if !p.env.Scheduler.Killed() {
		p.record(trace.Step{Op: "result", Object: obj, Result: outcome(res, err)})
		p.stopIfIdle(w) // or right after it ends
	}
	return res, err
}

// outcome is what controller-runtime's reconcileHandler does with a result.
func outcome(res reconcile.Result, err error) string {
	switch {
	case err != nil && errors.Is(err, reconcile.TerminalError(nil)):
		return "terminal error: " + err.Error()
	case err != nil:
		return "error: " + err.Error()
	case res.RequeueAfter > 0:
		return "requeue after " + res.RequeueAfter.String()
	case res.Requeue: //nolint:staticcheck // handled until controller-runtime removes it
		return "requeue"
	}
	return "ok"
}

// worker is one of a controller's workers; reconcile is set while it reconciles.
type worker struct {
	c         *hosted
	n         int
	reconcile int
}

// hostedQueue is the queue a hosted controller sees: the simulator's queue,
// plus the scheduler's adoption of each worker at its first Get, the end of a
// worker's task, and nothing from a killed worker unwinding.
type hostedQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	h *hosted
}

// join joins the incarnation asking op of this controller's queue: goroutines
// of the operator's (a source.Channel's, two controllers') that call at one
// instant are told apart by the controller whose queue they call.
func (q *hostedQueue) join(op string) {
	if q.h.m.joining() {
		q.h.m.joinAsking(q.h.name + " " + op)
	}
}

func (q *hostedQueue) GetWithPriority() (req reconcile.Request, priority int, shutdown bool) {
	s := q.h.m.p.env.Scheduler
	defer s.EndIfKilled()
	if s.Adopting() {
		s.Adopt()
	}
	q.join("get")
	q.h.m.startLateWatches()
	req, priority, shutdown = q.PriorityQueue.GetWithPriority()
	if shutdown {
		s.EndAdopted()
	}
	return req, priority, shutdown
}

func (q *hostedQueue) Get() (reconcile.Request, bool) {
	req, _, shutdown := q.GetWithPriority()
	return req, shutdown
}

func (q *hostedQueue) Done(req reconcile.Request) {
	q.join("done")
	s := q.h.m.p.env.Scheduler
	if s.Killed() {
		s.EndIfKilled() // the worker's last contact with the simulator
		return
	}
	q.PriorityQueue.Done(req)
}

func (q *hostedQueue) AddWithOpts(o priorityqueue.AddOpts, reqs ...reconcile.Request) {
	q.join("add")
	if !q.h.m.p.env.Scheduler.Killed() {
		if o.RateLimited {
			for _, r := range reqs {
				q.h.failed.record(r, q.h.m.p.env.Clock.Now())
			}
		}
		q.PriorityQueue.AddWithOpts(o, reqs...)
	}
}

// Add is what a source.Channel's handler calls, from controller-runtime's
// goroutine that reads the source: a goroutine of the process (join).
func (q *hostedQueue) Add(req reconcile.Request) {
	q.join("add")
	if !q.h.m.p.env.Scheduler.Killed() {
		q.PriorityQueue.Add(req)
	}
}

func (q *hostedQueue) AddAfter(req reconcile.Request, d time.Duration) {
	q.join("addafter")
	if !q.h.m.p.env.Scheduler.Killed() {
		q.PriorityQueue.AddAfter(req, d)
	}
}

func (q *hostedQueue) AddRateLimited(req reconcile.Request) {
	q.join("addratelimited")
	if !q.h.m.p.env.Scheduler.Killed() {
		q.h.failed.record(req, q.h.m.p.env.Clock.Now())
		q.PriorityQueue.AddRateLimited(req)
	}
}

func (q *hostedQueue) Len() int {
	q.join("len")
	return q.PriorityQueue.Len()
}

func (q *hostedQueue) NumRequeues(req reconcile.Request) int {
	q.join("numrequeues")
	return q.PriorityQueue.NumRequeues(req)
}

func (q *hostedQueue) Forget(req reconcile.Request) {
	q.join("forget")
	if !q.h.m.p.env.Scheduler.Killed() {
		q.PriorityQueue.Forget(req)
	}
}

// Finding is something a run found that is a bug whatever the properties say: a
// reconcile that panicked.
type Finding struct {
	At         time.Duration
	Process    string
	Controller string
	Request    reconcile.Request
	Panic      string
	// Location is the code that panicked: the function and its file's base
	// name and line (the same in every run and on every machine, unlike a
	// stack trace's goroutine ids, addresses and paths), "" if unknown. It
	// tells two panics apart (operatortest's signatures).
	Location string
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s %s/%s: reconcile of %s panicked: %s", f.At, f.Process, f.Controller, f.Request, f.Panic)
	if f.Location != "" {
		s += " (at " + f.Location + ")"
	}
	return s
}

// panicLocation is the frame that panicked, called from the deferred
// function that recovers: the first frame under runtime.gopanic outside the
// runtime (a nil dereference or an index out of range passes through
// runtime.sigpanic or runtime.panicIndex first).
func panicLocation() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	below := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			below = true
		case below && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s (%s:%d)", f.Function, path.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// virtualRateLimiter returns rl with client-go's token bucket limiters, which
// read the wall clock, replaced by the same buckets on the virtual clock, also
// inside client-go's MaxOf limiter (whose list of limiters is unexported).
func virtualRateLimiter[T comparable](rl workqueue.TypedRateLimiter[T], clk clock.PassiveClock) (workqueue.TypedRateLimiter[T], error) {
	switch l := rl.(type) {
	case nil:
		return nil, nil
	case *workqueue.TypedBucketRateLimiter[T]:
		return &queue.BucketRateLimiter[T]{Limiter: l.Limiter, Clock: clk}, nil
	case *workqueue.TypedMaxOfRateLimiter[T]:
		f := reflect.ValueOf(l).Elem().FieldByName("limiters")
		if !f.IsValid() || f.Type() != reflect.TypeFor[[]workqueue.TypedRateLimiter[T]]() {
			return nil, fmt.Errorf("client-go's MaxOfRateLimiter has no field limiters (see sim/process/host.go)")
		}
		inner := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().([]workqueue.TypedRateLimiter[T])
		out := make([]workqueue.TypedRateLimiter[T], len(inner))
		for i, x := range inner {
			v, err := virtualRateLimiter(x, clk)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return workqueue.NewTypedMaxOfRateLimiter(out...), nil
	}
	return rl, nil
}
