package kopf

import (
	"context"
	"os"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

// Defaults of the Reconciler's knobs.
const (
	// DefaultBatchWindow is kopf's worker batch window
	// (config.WorkersConfig.worker_batch_window, now settings.batching.batch_window):
	// a worker waits this long for more events of the object and handles only the
	// latest.
	DefaultBatchWindow = 100 * time.Millisecond
	// DefaultHandlerBackoff is kopf's retry delay of a handler that raised an
	// arbitrary exception.
	DefaultHandlerBackoff = 60 * time.Second
	// RobustResetAfter is how long after its last backoff ended the robust variant
	// must go without a failure of an object before the backoff starts again from
	// the first step (the kubelet's rule for CrashLoopBackOff: ten minutes of
	// running).
	RobustResetAfter = 10 * time.Minute
)

// Reconciler is a kopf operator for KopfExamples, written as a controller-runtime
// reconciler: every watch event of an object is a reconcile of its key (kopf's
// per-object worker), and a reconcile is one handling cycle (see handle).
type Reconciler struct {
	// Client reads from the informer cache (kopf handles the object of the watch
	// event) and writes to the API server.
	Client client.Client
	// Clock is the operator's time: throttling, the batch window, progress times.
	Clock clock.Clock
	// Exit ends the operator as os.Exit does (nil: os.Exit). The fixed variant
	// calls it on an unrecoverable error (nolar/kopf #509).
	Exit    func(code int)
	Variant variant.Variant
	// Handlers are the operator's change handlers, in registration order.
	Handlers []Handler
	// ErrorDelays are the fixed variant's throttling delays (nolar/kopf #510); nil
	// means DefaultErrorDelays, and an empty non-nil list disables throttling, as
	// `error_delays = []` does in kopf.
	ErrorDelays []time.Duration
	// BatchWindow is the buggy and fixed variants' batch window (0:
	// DefaultBatchWindow).
	BatchWindow time.Duration
	// HandlerBackoff is the retry delay of a failed handler (0:
	// DefaultHandlerBackoff).
	HandlerBackoff time.Duration
	// RetryLimiter is the robust variant's per-object retry backoff (nil: the
	// per-item part of controller-runtime's default rate limiter, client-go's
	// DefaultTypedControllerRateLimiter: 5ms·2^n capped at 1000s).
	RetryLimiter workqueue.TypedRateLimiter[reconcile.Request]

	mu       sync.Mutex
	memories map[types.NamespacedName]*memory
}

// memory is what the operator keeps about one object between handlings, in
// memory only (kopf's ResourceMemory): lost when the process restarts.
type memory struct {
	throttler Throttler // fixed
	// pending: an event arrived while throttling was active, so the latest state
	// is handled when it ends (kopf's first throttling sleep completes).
	pending bool

	notBefore time.Time // robust: no attempt before this time (the end of the backoff)
}

// SetupWithManager registers the operator with a manager: every event of every
// KopfExample is handled (kopf filters nothing before its cause detection), on
// client-go's classic workqueue. A nil Clock becomes the real clock, a nil Exit
// os.Exit.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&KopfExample{}).
		WithOptions(controller.Options{UsePriorityQueue: ptr.To(false)}).
		Complete(r)
}

func (r *Reconciler) memory(key types.NamespacedName) *memory {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.memories == nil {
		r.memories = map[types.NamespacedName]*memory{}
	}
	m, ok := r.memories[key]
	if !ok {
		m = &memory{}
		r.memories[key] = m
	}
	return m
}

// forget drops the memory of a deleted object (kopf: memories.forget on DELETED).
func (r *Reconciler) forget(req reconcile.Request) {
	r.mu.Lock()
	delete(r.memories, req.NamespacedName)
	r.mu.Unlock()
	if r.Variant == variant.Robust {
		r.retryLimiter().Forget(req)
	}
}

func (r *Reconciler) batchWindow() time.Duration {
	if r.BatchWindow > 0 {
		return r.BatchWindow
	}
	return DefaultBatchWindow
}

func (r *Reconciler) handlerBackoff() time.Duration {
	if r.HandlerBackoff > 0 {
		return r.HandlerBackoff
	}
	return DefaultHandlerBackoff
}

func (r *Reconciler) errorDelays() []time.Duration {
	if r.ErrorDelays == nil {
		return DefaultErrorDelays
	}
	return r.ErrorDelays
}

func (r *Reconciler) retryLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.RetryLimiter == nil {
		r.RetryLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, 1000*time.Second)
	}
	return r.RetryLimiter
}

func (r *Reconciler) exit(code int) {
	if r.Exit != nil {
		r.Exit(code)
		return
	}
	os.Exit(code)
}

// Reconcile handles one event of an object, as the variant's kopf would.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	switch r.Variant {
	case variant.Fixed:
		return r.reconcileFixed(ctx, req)
	case variant.Robust:
		return r.reconcileRobust(ctx, req)
	default:
		return r.reconcileBuggy(ctx, req)
	}
}

// get reads the object of the event from the cache: kopf's raw event. It reports
// false when the object is gone (and forgets it).
func (r *Reconciler) get(ctx context.Context, req reconcile.Request) (*KopfExample, bool, error) {
	var obj KopfExample
	if err := r.Client.Get(ctx, req.NamespacedName, &obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req)
			return nil, false, nil
		}
		return nil, false, err
	}
	return &obj, true, nil
}

func requeue(c cycle) reconcile.Result { return reconcile.Result{RequeueAfter: c.delay} }

// reconcileBuggy is zalando-incubator/kopf ≤ 0.27 (349a976,
// kopf/reactor/queueing.py worker): wait the batch window, handle, and on any
// exception log "failed with an exception. Ignoring the event." and carry on.
// Nothing slows the next handling down: the next watch event of the object, such
// as the one its own handler's write makes, is handled at once.
func (r *Reconciler) reconcileBuggy(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	r.Clock.Sleep(r.batchWindow())
	obj, ok, err := r.get(ctx, req)
	if err == nil && ok {
		var c cycle
		c, err = r.handle(ctx, obj)
		if err == nil {
			return requeue(c), nil
		}
	}
	if err != nil {
		log.Error(err, "Event processing failed with an exception. Ignoring the event.")
	}
	return reconcile.Result{}, nil
}

// reconcileFixed is kopf after nolar/kopf #509 and #510. The handling cycle runs
// inside throttled() (kopf/_core/actions/throttlers.py): an error there starts or
// continues the sequence of ErrorDelays and skips every event of the object
// until the delay has passed; the latest state is then handled once if an event
// came meanwhile, and otherwise not until the next event (kopf has no timer that
// retries). A success resets the sequence. An error outside the throttled span
// (here: reading the object of the event) is unrecoverable: the operator exits.
func (r *Reconciler) reconcileFixed(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	m := r.memory(req.NamespacedName)
	batch := true
	if t := &m.throttler; t.Active() {
		now := r.Clock.Now()
		if now.Before(t.ActiveUntil) {
			// The first sleep of throttled(): this event is handled, as the latest,
			// when the sleep completes.
			m.pending = true
			return reconcile.Result{RequeueAfter: t.ActiveUntil.Sub(now)}, nil
		}
		log.Info("Throttling is over. Switching back to normal operations.")
		t.Over()
		// kopf handles right after a completed sleep; an event that came after the
		// throttling ended waits the batch window like any other.
		batch = !m.pending
	}
	m.pending = false
	if batch {
		r.Clock.Sleep(r.batchWindow())
	}
	obj, ok, err := r.get(ctx, req)
	if err != nil {
		log.Error(err, "Event processing has failed with an unrecoverable error for "+req.String()+".")
		r.exit(1)
		return reconcile.Result{}, err
	}
	if !ok {
		return reconcile.Result{}, nil
	}
	c, err := r.handle(ctx, obj)
	if err != nil {
		if delay, on := m.throttler.Fail(r.Clock.Now(), r.errorDelays()); on {
			log.Error(err, "Throttling due to an unexpected error", "seconds", delay.Seconds())
		} else {
			log.Error(err, "Event processing failed; throttling is disabled.")
		}
		// The second sleep of throttled(): wait for the delay or the next event,
		// whichever comes first; nothing is retried by a timer.
		return reconcile.Result{}, nil
	}
	m.throttler.Succeed()
	return requeue(c), nil
}

// reconcileRobust is this project's design. No batch window and no exit: an
// error anywhere is retried by a timer (level-triggered), after a per-object
// backoff from RetryLimiter, and events that arrive before the backoff has
// passed are deferred to it rather than handled at once, so neither the
// operator's own writes nor anyone else's can outrun the backoff. The backoff is
// not reset by one success, only RobustResetAfter after it ended without a
// failure, so a write that fails every other time still backs off.
func (r *Reconciler) reconcileRobust(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	m := r.memory(req.NamespacedName)
	now := r.Clock.Now()
	if now.Before(m.notBefore) {
		return reconcile.Result{RequeueAfter: m.notBefore.Sub(now)}, nil
	}
	obj, ok, err := r.get(ctx, req)
	if err != nil {
		return reconcile.Result{}, err // the controller's rate-limited requeue
	}
	if !ok {
		return reconcile.Result{}, nil
	}
	c, err := r.handle(ctx, obj)
	now = r.Clock.Now()
	if err != nil {
		lim := r.retryLimiter()
		if !m.notBefore.IsZero() && now.Sub(m.notBefore) >= RobustResetAfter {
			lim.Forget(req) // RobustResetAfter since the last backoff ended, without a failure
		}
		d := lim.When(req)
		m.notBefore = now.Add(d)
		log.Error(err, "Handling failed; retrying after a backoff", "after", d.String())
		return reconcile.Result{RequeueAfter: d}, nil
	}
	return requeue(c), nil
}
