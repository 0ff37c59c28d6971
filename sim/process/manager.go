package process

import (
	"context"
	"errors"
	"fmt"
	kclock "k8s.io/utils/clock"
	"net/http"
	"reflect"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Manager is the manager.Manager of one incarnation of a process: what an
// operator's main hands to its SetupWithManager functions. Controllers built on
// it by controller-runtime's builder run controller-runtime's own controller
// (see host.go) on the simulator's queue, cache and scheduler.
//
// What is not modelled is refused where it would be used for real, never
// faked: Start (the simulator starts processes). The REST config and HTTP
// client are served in-process (restconfig.go). Health and ready checks, metrics handlers, the webhook server and
// the conversion registry are accepted and never called.
type Manager struct {
	p           *Process
	incarnation int
	cache       *procCache
	ctx         context.Context
	cancel      context.CancelFunc
	// stopped is set when the incarnation ends, before ctx is cancelled:
	// controller-runtime's goroutines that wake on ctx then log nothing.
	stopped     atomic.Bool
	controllers []*hosted
	pending     []*hosted          // added during Setup, or waiting for the election: started when it returns, or when elected
	runnables   int                // Runnables other than controllers added (runnable.go)
	waiting     []manager.Runnable // Runnables waiting for the election
	converters  conversion.Registry
	webhookSrv  *webhookServer // GetWebhookServer's (webhooks.go)
	options     *cacheOptions  // the process's manager.Options (nil: none given)
	// leading is set once the incarnation leads: at once without leader
	// election (Spec.LeaderElection), else when it holds the Lease (elect.go);
	// elected is closed then.
	leading bool
	elected chan struct{}
	// rest serves GetConfig and GetHTTPClient (restconfig.go).
	rest *restapi.Transport
	// client is GetClient's when it is not the process's own: controller-runtime's
	// client.New with read-your-writes consistency (ryw.go).
	client client.Client
	// named are the queues NameQueue named, each reporting its keys in
	// back-off (clientgoqueue.go).
	named []func() []check.Backoff
	// queues counts the queues NewClientGoQueue built in the incarnation:
	// each one's number tells apart, in every run, goroutines that call
	// different queues at one instant (clientgoqueue.go).
	queues int
	// retries are the keys in back-off of the queues NewClientGoQueue built
	// and NameQueue did not name (retries.go).
	retries []func() []Retry
	// scheduled is the work the incarnation's models of the cluster have
	// scheduled (scheduled.go).
	scheduled []func() []Scheduled
}

var _ manager.Manager = (*Manager)(nil)

func newManager(p *Process, c *procCache) *Manager {
	m := &Manager{p: p, incarnation: p.incarnation, cache: c, elected: make(chan struct{})}
	m.rest = restapi.New(p.client.Uncached(), p.env.Server, p.spec.Name, func(asking string) { m.joinAsking(asking); p.env.Scheduler.Current() })
	m.rest.SetExec(p.env.Exec)
	if p.env.Scheduler.InBubble() {
		feeds := &watchFeeds{m: m}
		m.rest.SetFeeds(feeds.feed, settleBubble) // watches over the REST config (watchfeed.go)
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	if p.spec.LeaderElection == nil {
		m.leading = true
		close(m.elected)
	}
	return m
}

// join is the entry of the incarnation's hooks (its client, queues, REST
// config): a goroutine that the operator's code started itself (a poller of a
// Runnable, a source.Channel's goroutines) becomes a task of the process at
// its first call (scheduler.Join), a frozen one if the incarnation has ended.
func (m *Manager) join() { m.p.env.Scheduler.Join(m.p.spec.Name, m.stopped.Load()) }

// joining reports whether a join of the calling goroutine would do anything
// (scheduler.Joining): a hook builds what it asks only then.
func (m *Manager) joining() bool { return m.p.env.Scheduler.Joining() }

// joinAsking is join for a hook that knows what the call asks (a request,
// a client call): goroutines of one place that arrive or rejoin at one
// instant are ordered by it (scheduler.JoinAsking).
func (m *Manager) joinAsking(asking string) {
	m.p.env.Scheduler.JoinAsking(m.p.spec.Name, m.stopped.Load(), asking)
}

// needsLeader reports whether r waits for the election: controller-runtime's
// runnables.Add puts a LeaderElectionRunnable that says no with the others,
// and everything else (controllers by default) in the leader-election group.
func needsLeader(r manager.Runnable) bool {
	if le, ok := r.(manager.LeaderElectionRunnable); ok {
		return le.NeedLeaderElection()
	}
	return true
}

// becomeLeader is OnStartedLeading: the controllers and Runnables waiting for
// the election start, in the order added, and Elected is closed.
func (m *Manager) becomeLeader() error {
	m.leading = true
	close(m.elected)
	if err := m.startPending(); err != nil {
		return err
	}
	waiting := m.waiting
	m.waiting = nil
	for _, r := range waiting {
		if err := m.addRunnable(r); err != nil {
			return err
		}
	}
	return nil
}

// stop ends the incarnation's controllers: their contexts are cancelled (the
// workers themselves are killed by the scheduler).
func (m *Manager) stop() {
	m.stopped.Store(true)
	m.cancel()
}

// Add runs a Runnable with the process. controller-runtime's controllers (what
// the builder and controller.New add) are hosted: started when Setup returns,
// or at once when added later. Other Runnables are refused.
func (m *Manager) Add(r manager.Runnable) error {
	if !isController(r) {
		if t := reflect.TypeOf(r); t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "sigs.k8s.io/controller-runtime/pkg/internal/controller" {
			return fmt.Errorf("ctrlsim: process %s: manager.Add(%T): the simulator runs controller-runtime's controllers of reconcile.Request only (known gap of package process)", m.p.spec.Name, r)
		}
		return m.addRunnable(r)
	}
	h, err := newHosted(m, r)
	if err != nil {
		return err
	}
	for _, c := range m.controllers {
		if c.name == h.name {
			return fmt.Errorf("controller with name %s already exists. Controller names must be unique to avoid multiple controllers reporting the same metric. This validation can be disabled via the SkipNameValidation option", h.name)
		}
	}
	m.controllers = append(m.controllers, h)
	if m.p.inSetup || (!m.leading && h.needsLeader) {
		m.pending = append(m.pending, h)
		return nil
	}
	return h.start()
}

// startPending starts the controllers added during Setup, in the order added,
// except those that wait for an election not yet won.
func (m *Manager) startPending() error {
	pending := m.pending
	m.pending = nil
	for i, h := range pending {
		if !m.leading && h.needsLeader {
			m.pending = append(m.pending, h)
			continue
		}
		if err := h.start(); err != nil {
			m.pending = append(m.pending, pending[i+1:]...)
			return err
		}
	}
	return nil
}

// startLateWatches starts the sources that controllers' Watch calls have left
// since the last call (see host.go). A source that cannot start is logged and
// dropped, as controller-runtime's source goroutine logs its failure while the
// controller runs on.
func (m *Manager) startLateWatches() {
	if m.p.inSetup || !m.p.started || m.p.mgr != m {
		return
	}
	for _, h := range m.controllers {
		if !h.started || len(*h.watches) == 0 { // (read by the only goroutine running: Watch appends from a task)
			continue
		}
		if err := h.startWatches(); err != nil {
			m.p.record(trace.Step{Op: "log", Result: "ERROR " + err.Error()})
		}
	}
}

// Elected is closed once the incarnation leads: at once without leader
// election, else when it has acquired the Lease (elect.go).
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// AddMetricsServerExtraHandler is accepted; there is no metrics server.
func (m *Manager) AddMetricsServerExtraHandler(string, http.Handler) error { return nil }

// AddHealthzCheck is accepted; no probe calls it.
func (m *Manager) AddHealthzCheck(string, healthz.Checker) error { return nil }

// AddReadyzCheck is accepted; no probe calls it.
func (m *Manager) AddReadyzCheck(string, healthz.Checker) error { return nil }

// Start is refused: the simulator starts and stops processes.
func (m *Manager) Start(context.Context) error {
	return errors.New("ctrlsim: the simulator starts the manager of a process; Start must not be called")
}

// GetWebhookServer is the operator's webhook server (Options.WebhookServer,
// else controller-runtime's default one), never started: the handlers
// registered on it are called in-process by the apiserver model's webhook
// admission (webhooks.go).
func (m *Manager) GetWebhookServer() webhook.Server {
	if m.webhookSrv == nil {
		var srv webhook.Server
		if m.options != nil {
			srv = m.options.manager.WebhookServer
		}
		if srv == nil {
			srv = webhook.NewServer(webhook.Options{})
		}
		m.webhookSrv = &webhookServer{Server: srv, w: m.p.env.Webhooks}
	}
	return m.webhookSrv
}

// GetLogger is the process's logger: lines go into the trace.
func (m *Manager) GetLogger() logr.Logger { return m.p.baseLogger() }

// Exit ends the manager's process as os.Exit(code) ends a real operator's
// pod (Process.Exit: it restarts as a crashed one does). For operator code
// that exits on an unrecoverable error: os.Exit itself would end the test
// binary.
func (m *Manager) Exit(code int) { m.p.Exit(code) }

// Clock is the process's clock, the run's virtual one: for operator code
// that takes a clock (a throttle, a batch window) in place of the wall
// clock.
func (m *Manager) Clock() kclock.WithTicker { return m.p.Clock() }

// GetControllerOptions are the manager's controller defaults (Options.Controller
// when the process has Options). Name validation is
// off: the registry of names is global to the test binary, and a restarted
// process registers its controllers again (Add checks names per incarnation).
func (m *Manager) GetControllerOptions() config.Controller {
	var c config.Controller
	if m.options != nil {
		c = m.options.manager.Controller
	}
	c.SkipNameValidation = ptr.To(true)
	return c
}

// GetConverterRegistry is the incarnation's registry of converters (the
// builder's WithConverter), read by the /convert handler it registers
// (conversion.go).
func (m *Manager) GetConverterRegistry() conversion.Registry {
	if m.converters == nil {
		m.converters = conversion.NewRegistry()
	}
	return m.converters
}

// GetCache is the process's informer cache.
func (m *Manager) GetCache() cache.Cache { return m.cache }

// GetScheme is the cluster's scheme.
func (m *Manager) GetScheme() *runtime.Scheme { return m.p.GetScheme() }

// GetClient is the process's client: cached reads, writes to the apiserver.
func (m *Manager) GetClient() client.Client {
	if m.client != nil {
		return m.client
	}
	return m.p.client
}

// GetFieldIndexer indexes the process's cache.
func (m *Manager) GetFieldIndexer() client.FieldIndexer { return m.cache }

// GetRESTMapper maps the served kinds.
func (m *Manager) GetRESTMapper() meta.RESTMapper { return m.p.GetRESTMapper() }

// GetAPIReader reads from the apiserver directly.
func (m *Manager) GetAPIReader() client.Reader { return m.p.GetAPIReader() }

// GetEventRecorderFor is client-go's EventRecorder of the process (see
// Process.GetEventRecorderFor).
func (m *Manager) GetEventRecorderFor(name string) record.EventRecorder {
	return m.p.GetEventRecorderFor(name)
}

// GetEventRecorder is the events.k8s.io-style recorder of the process: its
// Events are stored as the old API's Events are (see Process.GetEventRecorderFor),
// with the action in the message's place left as the note.
func (m *Manager) GetEventRecorder(name string) recorder.EventRecorder {
	return &eventsRecorder{r: &eventRecorder{p: m.p, component: name}}
}

type eventsRecorder struct{ r *eventRecorder }

func (e *eventsRecorder) Eventf(regarding, _ runtime.Object, eventtype, reason, _, note string, args ...any) {
	e.r.emit(regarding, nil, eventtype, reason, fmt.Sprintf(note, args...))
}

func (e *eventsRecorder) AnnotatedEventf(regarding, _ runtime.Object, annotations map[string]string, eventtype, reason, _, note string, args ...any) {
	e.r.emit(regarding, annotations, eventtype, reason, fmt.Sprintf(note, args...))
}
