package process

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	kclock "k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Injector is what a process asks the plan's faults. The cluster implements it.
type Injector interface {
	// Lag is the lag of the informer of gvk in process; nil means none.
	Lag(process string, gvk schema.GroupVersionKind) informer.Lag
	// Held reports whether process's cache of gvk is held now.
	Held(process string, gvk schema.GroupVersionKind) bool
	// CrashAtCall reports whether process dies at its call-th client call.
	CrashAtCall(process string, call int) bool
	// CrashAfterWrite reports whether process dies right after its write-th
	// write has committed, before the response reaches it.
	CrashAfterWrite(process string, write int) bool
	// CallLatency is the time the next API call of process spends before it
	// commits in the apiserver (request) and after, until the caller has the
	// response (response). Cached reads never ask: they do not leave the process.
	CallLatency(process string, write bool) (request, response time.Duration)
	// Workers overrides the worker count of a controller (0: no override).
	Workers(process, controller string) int
	// Stale reports, when process starts, whether this incarnation lists and
	// watches through a lagging apiserver (the plan's stale fault), and how.
	Stale(process string) (informer.Stale, bool)
	// SeesOwnWrites reports whether process's informers show it each of its
	// own writes at once, in every incarnation (the plan's blind fault).
	SeesOwnWrites(process string) bool
	// Unobserved are the windows in which process's informers withhold one
	// object's changes (the plan's unobserved faults): every incarnation
	// gets the same, so a restart inside a window lists without them.
	Unobserved(process string) []*informer.Unobserved
	// Jitter is the next draw in [0, 1) of process's leader-election retry
	// jitter (client-go draws it from the global math/rand).
	Jitter(process string) float64
	// Healed reports whether the fault phase has ended, and when: the plan's
	// workload faults, which models such as the kubelet meet, stop then.
	Healed() (at time.Time, ok bool)
	// ListOrder is the order of process's lists of what (its cache's kind,
	// "cache/<group>/<version>/<Kind>", or an informer of its client-go
	// factories, "clientgo/<type or resource>"): a shuffle drawn from the
	// plan, the same in every run of it and another at each list, as a real
	// informer's store lists in Go map order. Nil: key order.
	ListOrder(process, what string) informer.Order
}

// Env is the world a process lives in.
type Env struct {
	Server    *apiserver.Server
	Clock     *clock.Clock
	Scheduler *scheduler.Scheduler
	Trace     *trace.Trace
	Start     time.Time // the run's start, for trace times
	Faults    Injector
	// OnFinding receives panics of reconcilers.
	OnFinding func(Finding)
	// Webhooks is the world's webhook admission (webhooks.go); nil: none.
	Webhooks *Webhooks
	// Exec finds the handler of a container for pods/exec and attach through
	// the process's REST config (package restapi); nil: none.
	Exec restapi.ExecHandlers
}

// Spec describes a process: who it runs as and what it runs.
type Spec struct {
	Name string
	// ServiceAccount is the process's identity; nil runs it as cluster admin.
	ServiceAccount *types.NamespacedName
	// Setup registers the process's controllers, as a main function does. It runs at
	// every start, on a fresh cache and client.
	Setup func(p *Process) error
	// BoundTo makes the process the pod of a Deployment: it runs while that
	// Deployment exists and is not being deleted. Nil: it runs from the start.
	BoundTo *types.NamespacedName
	// StartDelay is the time from a start being due to the process running (pod
	// scheduling and container start). Default 0.
	StartDelay time.Duration
	// LeaderElection, if set, makes each incarnation elect itself through a
	// Lease before its controllers start (elect.go), as
	// manager.Options.LeaderElection does.
	LeaderElection *LeaderElection
	// Options are the manager.Options of the operator's main, as far as the
	// simulator honours them (CheckOptions, cacheopts.go); nil: controller-runtime's
	// defaults, except that unstructured reads are cached.
	Options *manager.Options
	// ClientRate, if set, is the client-side rate limit of the process's
	// clients (client-go's token bucket, rest.Config's QPS and Burst), in
	// virtual time (ratelimit.go). Nil: none, as controller-runtime's config
	// has none since v0.21.
	ClientRate *ClientRate
}

// CrashLoopBackOff delays: 10s, doubling, capped at 5 minutes; reset after 10
// minutes of running (kubelet).
const (
	backoffInitial = 10 * time.Second
	backoffMax     = 300 * time.Second
	backoffReset   = 10 * time.Minute
)

// Process is a simulated operator pod: a manager with an identity, a cache, a
// client, controllers, and a lifetime (crashes, restarts, exits).
type Process struct {
	spec Spec
	env  Env
	user apiserver.User

	started     bool // running now
	inSetup     bool // Setup is running: controllers it completes start after it
	bound       bool // the Deployment it is bound to is present (always true unbound)
	pending     kclock.Timer
	startedAt   time.Time
	restarts    int
	backoffs    int // consecutive crashes, for CrashLoopBackOff
	calls       int // client calls over the whole run
	writes      int // writes (create, update, patch, delete) over the whole run
	incarnation int
	ownWrites   []informer.Write // every incarnation's writes, when its informers show them at once (SeesOwnWrites)
	stopping    string           // a clean stop is asked, for this reason (stop.go)
	// startAfterStop: StartAgain came while the clean stop waited.
	startAfterStop bool

	cache    *informer.Cache
	client   *kubeclient.Client
	mgr      *Manager
	workers  map[*scheduler.Task]*worker
	call     PendingCall              // the call between before and after
	limiters map[string]*rate.Limiter // this incarnation's clients' token buckets (ratelimit.go)
	response time.Duration            // the response latency of that call
}

// New creates a process. It starts when the cluster calls Boot.
func New(env Env, spec Spec) *Process {
	p := &Process{spec: spec, env: env, user: apiserver.Admin}
	if env.Webhooks != nil {
		env.Webhooks.add(p)
	}
	if sa := spec.ServiceAccount; sa != nil {
		p.user = apiserver.ServiceAccount(sa.Namespace, sa.Name)
	}
	p.user.Agent = spec.Name
	registerGlobal(p) // until Close (globallog.go)
	return p
}

// Name is the process's name.
func (p *Process) Name() string { return p.spec.Name }

// Running reports whether the process is running.
func (p *Process) Running() bool { return p.started }

// Restarts is how many times the process has been restarted.
func (p *Process) Restarts() int { return p.restarts }

// Calls is the number of client calls the process has made in the run.
func (p *Process) Calls() int { return p.calls }

// Controllers are the names of the current incarnation's controllers, in the
// order they were added.
func (p *Process) Controllers() []string {
	if p.mgr == nil {
		return nil
	}
	out := make([]string, len(p.mgr.controllers))
	for i, h := range p.mgr.controllers {
		out[i] = h.name
	}
	return out
}

// Manager is the manager.Manager of the current incarnation: what Setup hands to
// the operator's SetupWithManager functions.
func (p *Process) Manager() *Manager { return p.mgr }

// GetClient is the process's client: cached reads, direct writes (mgr.GetClient()).
func (p *Process) GetClient() client.Client {
	if p.mgr != nil {
		return p.mgr.GetClient()
	}
	return p.client
}

// GetAPIReader reads from the apiserver directly (mgr.GetAPIReader()).
func (p *Process) GetAPIReader() client.Reader { return p.client.APIReader() }

// GetCache is the process's informer cache, as the simulator sees it (its
// informers, holds and lags); the operator's code gets Manager().GetCache().
func (p *Process) GetCache() *informer.Cache { return p.cache }

// GetScheme is the scheme.
func (p *Process) GetScheme() *runtime.Scheme { return p.env.Server.Scheme() }

// KindsGeneration is the apiserver's count of changes to the kinds it serves
// (apiserver.Server.KindsGeneration): discovery's answers change only with it.
func (p *Process) KindsGeneration() int { return p.env.Server.KindsGeneration() }

// GetRESTMapper maps the served kinds.
func (p *Process) GetRESTMapper() meta.RESTMapper { return p.client.RESTMapper() }

// Clock is the virtual clock, for controllers that take an injected clock.
func (p *Process) Clock() kclock.WithTicker { return p.env.Clock }

// Healed reports whether the fault phase has ended, and when (the cluster's
// Heal): a model that meets the plan's workload faults (the kubelet) ends them
// there.
func (p *Process) Healed() (time.Time, bool) { return p.env.Faults.Healed() }

// Boot starts the process, or for a bound process starts watching its Deployment.
// It is called once, by the cluster, from the kernel.
func (p *Process) Boot() {
	if p.spec.BoundTo == nil {
		p.bound = true
		p.scheduleStart(p.spec.StartDelay)
		return
	}
	w := p.env.Server.Watcher()
	gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
	key := *p.spec.BoundTo
	objs, _ := w.List(gvk)
	for _, o := range objs {
		if o.GetNamespace() == key.Namespace && o.GetName() == key.Name && o.GetDeletionTimestamp() == nil {
			p.bound = true
			p.scheduleStart(p.spec.StartDelay)
		}
	}
	w.Watch(gvk, func(ev apiserver.Event) {
		if ev.Object.GetNamespace() != key.Namespace || ev.Object.GetName() != key.Name {
			return
		}
		present := ev.Type != watch.Deleted && ev.Object.GetDeletionTimestamp() == nil
		switch {
		case present && !p.bound:
			p.bound = true
			p.backoffs = 0
			p.scheduleStart(p.spec.StartDelay)
		case !present && p.bound:
			p.bound = false
			// The pod is terminated after the write that removed it returns.
			p.env.Clock.AfterFunc(0, func() { p.stop("deployment " + key.String() + " is gone") })
		}
	})
}

func (p *Process) scheduleStart(d time.Duration) {
	if p.pending != nil {
		p.pending.Stop()
	}
	p.pending = p.env.Clock.AfterFunc(d, func() {
		p.pending = nil
		if p.bound && !p.started {
			p.start()
		}
	})
}

// start runs Setup on a fresh cache and client and starts the workers.
func (p *Process) start() {
	p.incarnation++
	if p.incarnation > 1 {
		p.restarts++
	}
	p.startedAt = p.env.Clock.Now()
	p.workers = map[*scheduler.Task]*worker{}
	p.limiters = nil // a new incarnation's clients start with full buckets
	name := p.spec.Name
	opts := []informer.Option{informer.WithHeld(func(gvk schema.GroupVersionKind) bool { return p.env.Faults.Held(name, gvk) })}
	stale, isStale := p.env.Faults.Stale(name)
	if isStale {
		opts = append(opts, informer.WithStale(stale))
	}
	if p.env.Faults.SeesOwnWrites(name) {
		opts = append(opts, informer.WithOwnWrites(&p.ownWrites))
	}
	if us := p.env.Faults.Unobserved(name); len(us) > 0 {
		opts = append(opts, informer.WithUnobserved(us))
	}
	opts = append(opts, informer.WithListOrder(func(gvk schema.GroupVersionKind) informer.Order {
		return p.env.Faults.ListOrder(name, "cache/"+gvk.Group+"/"+gvk.Version+"/"+gvk.Kind)
	}))
	var m *Manager // this incarnation's: its client's calls join it (Manager.join)
	clientOpts := kubeclient.Options{Hooks: kubeclient.Hooks{
		Before: func(c kubeclient.Call) error { m.joinAsking(asking(c)); return p.before(c) },
		After:  func(c kubeclient.Call, err error) { m.join(); p.after(c, err) },
	},
		// controller-runtime's client logs each warning (client.New's default).
		WarningHandler: logf.NewKubeAPIWarningLogger(logf.KubeAPIWarningLoggerOptions{})}
	co, optsErr := p.applyOptions(&opts, &clientOpts)
	p.cache = informer.NewCache(p.env.Server.Watcher(), p.env.Clock, p.env.Server.Scheme(),
		func(gvk schema.GroupVersionKind) informer.Lag { return p.env.Faults.Lag(name, gvk) }, opts...)
	clientOpts.Cache = p.cache
	p.client = kubeclient.New(p.env.Server, p.user, clientOpts)
	p.mgr = newManager(p, &procCache{Cache: p.cache, p: p})
	m = p.mgr
	op := "start"
	if p.incarnation > 1 {
		op = "restart"
	}
	p.record(trace.Step{Op: op, Result: "incarnation " + strconv.Itoa(p.incarnation)})
	if isStale {
		p.record(trace.Step{Op: "stale", Result: stale.Describe(stale.Until.Sub(p.env.Start))})
	}
	p.started = true // Setup may crash the process (a crash planned at one of its calls)
	incarnation := p.incarnation
	p.mgr.options = co
	if optsErr == nil && readYourWrites(p.spec.Options) {
		p.mgr.client, optsErr = p.mgr.consistentClient(*p.spec.Options) // ryw.go
	} else if optsErr == nil && p.spec.Options != nil && ptr.Deref(p.spec.Options.Client.DryRun, false) {
		// Client.DryRun: controller-runtime's client.New wraps its client so.
		p.mgr.client = client.NewDryRunClient(p.client)
	}
	if optsErr != nil {
		p.record(trace.Step{Op: "setup", Result: "error: " + optsErr.Error()})
		p.terminate("setup failed: "+optsErr.Error(), true)
		return
	}
	if p.spec.Setup != nil {
		p.inSetup = true
		err := p.spec.Setup(p)
		p.inSetup = false
		if !p.started || p.incarnation != incarnation {
			return // it crashed during Setup; the restart is scheduled
		}
		if err != nil {
			p.record(trace.Step{Op: "setup", Result: "error: " + err.Error()})
			p.terminate("setup failed: "+err.Error(), true)
			return
		}
	}
	if err := p.mgr.startPending(); err != nil {
		p.record(trace.Step{Op: "setup", Result: "error: " + err.Error()})
		p.terminate("setup failed: "+err.Error(), true)
		return
	}
	if le := p.spec.LeaderElection; le != nil {
		// The manager's Start runs the elector after its caches and the
		// Runnables that need no election.
		m, cfg := p.mgr, le.withDefaults()
		p.env.Scheduler.Go(p.spec.Name, p.spec.Name+"/leader-election", func() { p.elect(cfg, m) })
	}
}

// Hold holds (or releases) the process's cache of gvk, creating the informer if
// needed. Holds survive restarts through the Injector.
func (p *Process) Hold(gvk schema.GroupVersionKind, hold bool) {
	if !p.started {
		return
	}
	inf := p.cache.Informer(gvk)
	if hold {
		inf.Hold()
	} else if inf.Held() {
		inf.Release()
	}
}

// Crash kills the process now, as an OOM kill or a panic outside a reconcile
// would: its in-flight reconciles stop where they are (no later or deferred call
// reaches the apiserver), its cache and queues are gone, and it restarts after the
// CrashLoopBackOff delay. Called from inside one of its own tasks, Crash does not
// return.
func (p *Process) Crash(reason string) { p.terminate(reason, true) }

// Exit ends the process as os.Exit(code) would; it restarts like a crashed one
// (restartPolicy Always). Called from inside one of its tasks, it does not return.
func (p *Process) Exit(code int) { p.terminate(fmt.Sprintf("exit %d", code), true) }

// Close ends what is left of the process when its world is closed (after the
// scheduler has killed its tasks): controller-runtime's goroutines waiting on
// the incarnation's context return.
func (p *Process) Close() {
	unregisterGlobal(p)
	if p.mgr != nil {
		p.mgr.stop()
	}
}

func (p *Process) stop(reason string) {
	if p.pending != nil {
		p.pending.Stop()
		p.pending = nil
	}
	if p.started {
		p.terminate(reason, false)
	}
}

func (p *Process) terminate(reason string, restart bool) {
	if !p.started && p.cache == nil {
		return
	}
	p.record(trace.Step{Op: "crash", Result: reason})
	if p.env.Clock.Now().Sub(p.startedAt) >= backoffReset {
		p.backoffs = 0
	}
	p.started = false
	p.cache.Stop()
	p.mgr.stop()
	if restart && p.bound {
		delay := backoffInitial << p.backoffs
		if delay > backoffMax || delay <= 0 {
			delay = backoffMax
		}
		p.backoffs++
		p.scheduleStart(delay + p.spec.StartDelay)
	}
	p.env.Scheduler.KillGroup(p.spec.Name)
}

// before runs before every client call: the call counts; a crash planned at this
// call happens instead of it; otherwise the task yields: a cached read just lets
// others interleave, an API call sleeps for its request latency (the time to reach
// the apiserver and be served), so that calls take virtual time as they take wall
// time in a real cluster.
func (p *Process) before(call kubeclient.Call) error {
	s := p.env.Scheduler
	s.CheckAlive()
	if p.env.Webhooks.Serving() {
		return errWebhookCall
	}
	if !p.started || s.Killed() {
		// A call from a dead incarnation's kernel code (an event handler), or from
		// a killed worker's deferred code.
		return errProcessGone
	}
	p.mgr.startLateWatches()
	p.calls++
	if p.env.Faults.CrashAtCall(p.spec.Name, p.calls) {
		// Inside a task, Crash unwinds it; in the kernel (an event handler's or
		// Setup's call) it returns, and the call fails instead of happening.
		p.Crash(fmt.Sprintf("crash at client call %d (%s)", p.calls, call.Verb))
		return errProcessGone
	}
	var response time.Duration
	if s.Current() != nil { // (a call from Setup, in the kernel, has nothing to interleave with)
		if call.Cached {
			s.Yield()
		} else {
			var request time.Duration
			request, response = p.env.Faults.CallLatency(p.spec.Name, isWrite(call))
			s.Sleep(p.throttle() + request)
		}
		s.CheckAlive()
	}
	// The call runs now, with no yield before after() records it (other workers
	// of the process cannot overwrite p.call or p.response in between).
	p.call, p.response = BeforeCall(p.env.Server, call), response
	if isWrite(call) {
		p.writes++
	}
	return nil
}

// isWrite reports whether call may change the cluster: not a read, and not
// a dry run (which changes nothing: no crash after it, no write counted).
func isWrite(call kubeclient.Call) bool {
	return call.Verb != "get" && call.Verb != "list" && !call.DryRun
}

// errProcessGone is what a call made by a process that has just died returns to
// kernel code that made it (an event handler's map function, Setup).
var errProcessGone = errors.New("ctrlsim: the process has died; the call never reached the apiserver")

// after records the call in the trace, then, for an API call inside a task, waits
// for the response to travel back: the change is committed (and on its way to the
// informers) while the caller does not know it yet. A crash in that window leaves
// a write done that its caller never saw succeed.
func (p *Process) after(call kubeclient.Call, err error) {
	s := p.call.Step(p.env.Server, call, err)
	if call.Cached && call.Verb == "list" && err == nil {
		s.RVSeen, s.RVCurrent = p.cachedListVersions(call)
	}
	p.record(s)
	if isWrite(call) && p.env.Faults.CrashAfterWrite(p.spec.Name, p.writes) {
		// The write has committed; the process dies before the response
		// reaches it (inside a task, Crash does not return).
		p.Crash(fmt.Sprintf("crash after write %d (%s)", p.writes, call.Verb))
		return
	}
	committed := p.env.Clock.Now()
	if d := p.response; d > 0 && p.env.Scheduler.Current() != nil {
		p.response = 0
		p.env.Scheduler.Sleep(d)
		p.env.Scheduler.CheckAlive()
	}
	if err == nil && isWrite(call) && call.Verb != "deletecollection" {
		p.sawOwnWrite(call, committed)
	}
}

// cachedListVersions are the resourceVersions of a cached list's trace step:
// the one the cache had applied the kind's changes through, and that of the
// newest change to what it lists (the kind, in the list's namespace), the
// same when the cache had it (the cache may be further on: a change of
// another namespace).
func (p *Process) cachedListVersions(call kubeclient.Call) (seen, current uint64) {
	if p.cache == nil {
		return 0, 0
	}
	gvk, err := forms.GVK(call.Object, p.env.Server.Scheme())
	if err != nil {
		return 0, 0
	}
	gvk = forms.ItemGVK(gvk)
	form := forms.Of(call.Object)
	if call.Got != nil {
		form = forms.Of(call.Got) // read from the informer of the caller's form
	}
	seen, ok := p.cache.SyncedThrough(gvk, form)
	if !ok {
		return 0, 0
	}
	current = p.env.Server.LatestResourceVersion(gvk, call.Namespace)
	if current <= seen {
		current = seen
	}
	return seen, current
}

// sawOwnWrite tells the cache made WithOwnWrites (a blind fault) of a write the
// process has the response of.
func (p *Process) sawOwnWrite(call kubeclient.Call, committed time.Time) {
	if p.cache == nil || !p.env.Faults.SeesOwnWrites(p.spec.Name) {
		return
	}
	gvk, err := apiutil.GVKForObject(call.Object, p.env.Server.Scheme())
	if err != nil {
		return
	}
	key := call.Name
	if o, ok := call.Object.(client.Object); ok && call.Verb != "delete" {
		key = o.GetName() // a generated name is known after the call
	}
	ns := call.Namespace
	if o, ok := call.Object.(client.Object); ok && ns == "" {
		ns = o.GetNamespace()
	}
	if ns != "" {
		key = ns + "/" + key
	}
	p.cache.OwnWrite(informer.Write{GVK: gvk, Key: key, At: committed})
}

// PendingCall is what a trace step needs to know from just before a call: for a
// write, the resourceVersion the caller sent and the server's one at that moment.
type PendingCall struct{ sent, current uint64 }

// BeforeCall notes the resourceVersions of a call that is about to run.
func BeforeCall(server *apiserver.Server, call kubeclient.Call) PendingCall {
	o, ok := call.Object.(client.Object)
	if !ok || call.Name == "" {
		return PendingCall{}
	}
	sent, _ := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	return PendingCall{sent: sent, current: server.CurrentResourceVersion(o, call.Namespace, call.Name)}
}

// Step is the trace step of a client call: verb, object, the resourceVersions
// (for a read, what it got against the server's current one; for a write, what
// the caller sent against what the server had: a difference is a stale write),
// and the result.
func (pc PendingCall) Step(server *apiserver.Server, call kubeclient.Call, err error) trace.Step {
	name, namespace := call.Name, call.Namespace
	if o, ok := call.Object.(client.Object); ok && call.Verb != "list" && call.Verb != "deletecollection" && err == nil {
		name, namespace = o.GetName(), o.GetNamespace() // a generated name is known after the call
	}
	s := trace.Step{Op: call.Verb, Object: objectName(server.Scheme(), call.Object, namespace, name)}
	if call.Subresource != "" {
		s.Op += "/" + call.Subresource
	}
	if call.DryRun {
		s.Op = "dry-run " + s.Op // not a write (trace.IsWrite)
	}
	if call.Cached {
		s.Op = "cached-" + s.Op
	}
	switch call.Verb {
	case "get":
		if o, ok := call.Object.(client.Object); ok && err == nil {
			s.RVSeen, _ = strconv.ParseUint(o.GetResourceVersion(), 10, 64)
			s.RVCurrent = server.CurrentResourceVersion(o, namespace, name)
		} else if ok && apierrors.IsNotFound(err) {
			// Found nothing: stale when the object existed.
			s.RVCurrent = server.CurrentResourceVersion(o, namespace, name)
		}
	case "list":
		read := call.Object
		if call.Got != nil {
			read = call.Got // the list of another form, as read
		}
		if err == nil && meta.IsListType(read) {
			s.Items = meta.LenList(read)
		}
	case "update", "patch", "delete":
		if pc.sent != 0 { // an unconditional write has nothing to be stale against
			s.RVSeen, s.RVCurrent = pc.sent, pc.current
		}
	}
	if o, ok := call.Object.(client.Object); ok && err == nil && isWrite(call) && call.Verb != "delete" && call.Verb != "deletecollection" {
		s.RVWritten, _ = strconv.ParseUint(o.GetResourceVersion(), 10, 64)
		s.Digest = Digest(o)
		if (call.Verb == "update" || call.Verb == "patch") && call.Subresource == "" && server.CurrentResourceVersion(o, namespace, name) == 0 {
			// The write removed the last finalizer of a deleting object:
			// the server deleted it instead of storing the write.
			s.Digest = trace.DigestDeleted
		}
	}
	s.Result = "ok"
	if err != nil {
		s.Result = errorSummary(err)
	}
	return s
}

// Digest is a short digest of an object's content: FNV-1a (64 bits) over its JSON
// encoding, whose struct fields come in declaration order and map keys sorted, so
// equal objects give equal digests in every run.
func Digest(o runtime.Object) string {
	b, err := json.Marshal(o)
	if err != nil {
		return "unencodable"
	}
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

func objectName(scheme *runtime.Scheme, obj runtime.Object, namespace, name string) string {
	kind := fmt.Sprintf("%T", obj)
	if gvks, _, err := scheme.ObjectKinds(obj); err == nil {
		kind = strings.TrimSuffix(gvks[0].Kind, "List")
	}
	switch {
	case name == "" && namespace == "":
		return kind
	case name == "":
		return kind + " " + namespace + "/*"
	case namespace == "":
		return kind + " " + name
	default:
		return kind + " " + namespace + "/" + name
	}
}

// record adds a step attributed to the process and, inside a worker, to its
// controller, worker and reconcile.
func (p *Process) record(s trace.Step) {
	s.At = p.env.Clock.Now().Sub(p.env.Start)
	s.Process = p.spec.Name
	if t := p.env.Scheduler.Current(); t != nil {
		if w, ok := p.workers[t]; ok {
			s.Controller, s.Worker, s.Reconcile = w.c.name, w.n, w.reconcile
		}
	}
	p.env.Trace.Add(s)
}

func (p *Process) finding(f Finding) {
	f.At = p.env.Clock.Now().Sub(p.env.Start)
	f.Process = p.spec.Name
	p.record(trace.Step{Op: "panic", Object: f.Request.String(), Result: f.Panic})
	if p.env.OnFinding != nil {
		p.env.OnFinding(f)
	}
}

func (p *Process) workersOverride(controller string) int {
	return p.env.Faults.Workers(p.spec.Name, controller)
}

// asking is what a client call asks: its verb, subresource, object type,
// namespace and name (the object's, for a create).
func asking(c kubeclient.Call) string {
	name := c.Name
	if name == "" {
		if o, err := meta.Accessor(c.Object); err == nil {
			name = o.GetName()
		}
	}
	return fmt.Sprintf("%s %s %T %s/%s", c.Verb, c.Subresource, c.Object, c.Namespace, name)
}
