package process

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/queue"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Options are a controller's options, as controller.Options are.
type Options struct {
	// MaxConcurrentReconciles is the number of workers; default 1. A plan's
	// Workers fault overrides it.
	MaxConcurrentReconciles int
	// RateLimiter is the queue's rate limiter; nil means controller-runtime's
	// default for the queue kind, on virtual time.
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	// UsePriorityQueue chooses the queue as controller-runtime does: nil or true is
	// controller-runtime v0.25's priority queue, false client-go's classic queue
	// (which the seeds' controllers ran on).
	UsePriorityQueue *bool
	// RecoverPanic: nil or true recovers a reconcile's panic into an error (and the
	// harness records it as a finding), as controller-runtime does by default.
	RecoverPanic *bool
}

// Controller is a controller registered on a process: its queue, workers and event
// sources, dispatching reconcile results exactly as controller-runtime's
// reconcileHandler does.
type Controller struct {
	name       string
	p          *Process
	reconciler reconcile.Reconciler
	opts       Options
	kind       queue.Kind
	q          queue.Queue[reconcile.Request]
	pq         priorityqueue.PriorityQueue[reconcile.Request]
	reconciles int
}

// Name is the controller's name.
func (c *Controller) Name() string { return c.name }

// Queue is the controller's workqueue.
func (c *Controller) Queue() priorityqueue.PriorityQueue[reconcile.Request] { return c.pq }

// QueueKind is which queue the controller runs on.
func (c *Controller) QueueKind() queue.Kind { return c.kind }

// Reconciles is how many reconciles the controller has started in this incarnation.
func (c *Controller) Reconciles() int { return c.reconciles }

func newController(p *Process, name string, r reconcile.Reconciler, opts Options) *Controller {
	if n := p.workersOverride(name); n > 0 {
		opts.MaxConcurrentReconciles = n
	}
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 1
	}
	c := &Controller{name: name, p: p, reconciler: r, opts: opts}
	c.kind = queue.UsePriorityQueue(opts.UsePriorityQueue, nil)
	c.q = queue.New(c.kind, p.env.Clock, opts.RateLimiter)
	c.q.SetWaiter(p.env.Scheduler.WaitUntil)
	c.pq = queue.AsPriorityQueue[reconcile.Request](c.q)
	return c
}

// watch connects the informer of obj's kind to handler h through predicates, as
// source.Kind does.
func (c *Controller) watch(obj client.Object, h handler.EventHandler, preds []predicate.Predicate) error {
	gvk, err := apiutil.GVKForObject(obj, c.p.env.Server.Scheme())
	if err != nil {
		return err
	}
	if _, ok := c.p.env.Server.KindFor(gvk); !ok {
		return fmt.Errorf("controller %s: kind %s is not served (install its CRD)", c.name, gvk)
	}
	inf := c.p.cache.Informer(gvk)
	inf.AddEventHandler(newEventHandler(context.Background(), c.pq, h, preds))
	return nil
}

// start launches the workers.
func (c *Controller) start() {
	for w := 1; w <= c.opts.MaxConcurrentReconciles; w++ {
		ws := &worker{c: c, n: w}
		t := c.p.env.Scheduler.Go(c.p.Name(), fmt.Sprintf("%s/%s#%d", c.p.Name(), c.name, w), ws.loop)
		c.p.workers[t] = ws
	}
}

// worker is one of a controller's workers; reconcile is set while it reconciles.
type worker struct {
	c         *Controller
	n         int
	reconcile int
}

// loop is controller-runtime's worker loop: processNextWorkItem until shutdown.
func (w *worker) loop() {
	for w.processNextWorkItem() {
	}
}

func (w *worker) processNextWorkItem() bool {
	c := w.c
	req, priority, shutdown := c.pq.GetWithPriority()
	if shutdown {
		return false
	}
	defer c.pq.Done(req)
	c.reconcileHandler(w, req, priority)
	return true
}

// reconcileHandler is controller-runtime's (pkg/internal/controller/controller.go,
// v0.25.2), on the simulator's queue.
func (c *Controller) reconcileHandler(w *worker, req reconcile.Request, priority int) {
	c.reconciles++
	w.reconcile = c.reconciles
	defer func() { w.reconcile = 0 }()
	p := c.p
	obj := fmt.Sprintf("%s/%s", req.Namespace, req.Name)
	p.record(trace.Step{Op: "reconcile", Object: obj})

	// The controller's logger, as controller-runtime's reconcileHandler puts one
	// in the context; its lines are trace steps of this reconcile (the step
	// already names the controller and the request, so the line leaves them out).
	ctx := logf.IntoContext(context.Background(), p.Logger())
	result, err := c.reconcile(ctx, req)
	if result.Priority != nil {
		priority = *result.Priority
	}
	var outcome string
	switch {
	case err != nil:
		if errors.Is(err, reconcile.TerminalError(nil)) {
			outcome = "terminal error: " + err.Error()
		} else {
			c.pq.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: &priority}, req)
			outcome = "error: " + err.Error()
		}
	case result.RequeueAfter > 0:
		c.pq.Forget(req)
		c.pq.AddWithOpts(priorityqueue.AddOpts{After: result.RequeueAfter, Priority: &priority}, req)
		outcome = "requeue after " + result.RequeueAfter.String()
	case result.Requeue: //nolint:staticcheck // handled until controller-runtime removes it
		c.pq.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: &priority}, req)
		outcome = "requeue"
	default:
		c.pq.Forget(req)
		outcome = "ok"
	}
	p.record(trace.Step{Op: "result", Object: obj, Result: outcome})
}

// reconcile is controller-runtime's Controller.Reconcile: a panic becomes an error
// (RecoverPanic, on by default) and is recorded as a finding. The unwinding of a
// killed task is not a panic of the reconciler and passes through.
func (c *Controller) reconcile(ctx context.Context, req reconcile.Request) (_ reconcile.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			if scheduler.IsKilled(r) {
				panic(r)
			}
			c.p.finding(Finding{Controller: c.name, Request: req, Panic: fmt.Sprint(r)})
			if c.opts.RecoverPanic == nil || *c.opts.RecoverPanic {
				err = fmt.Errorf("panic: %v [recovered]", r)
				return
			}
			panic(r)
		}
	}()
	return c.reconciler.Reconcile(ctx, req)
}

// Finding is something a run found that is a bug whatever the properties say: a
// reconcile that panicked.
type Finding struct {
	At         time.Duration
	Process    string
	Controller string
	Request    reconcile.Request
	Panic      string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s/%s: reconcile of %s panicked: %s", f.At, f.Process, f.Controller, f.Request, f.Panic)
}
