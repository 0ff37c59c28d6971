package kcm

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/process"
)

// GarbageCollector is the name of kube-controller-manager's garbage
// collector, as its --controllers flag names it.
const GarbageCollector = "garbage-collector-controller"

// GCSyncPeriod is how often the hosted garbage collector reads discovery
// again (kube-controller-manager's garbageCollectorController.Run: 30s), in
// virtual time.
const GCSyncPeriod = 30 * time.Second

// SetupGarbageCollector hosts kube-controller-manager's garbage collector
// (pkg/controller/garbagecollector) in p, as newGarbageCollectorController
// and its controller context build it: a clientset, a metadata client and a
// RESTMapper on discovery (the deferred discovery mapper's rule, sharedMapper, over a
// memory-cached discovery client) on p's REST config, the dependency graph
// builder (NewDependencyGraphBuilder, with DefaultIgnoredResources) on an
// object-or-metadata informer factory (a typed informer for a kind the
// clientset knows, a metadata one otherwise), NewComposedGarbageCollector,
// then Run with 20 workers (--concurrent-gc-syncs) and Sync every 30s of
// virtual time, each a goroutine that joins the process first. Its three
// workqueues are replaced by the simulator's (gcQueues). collects, when not
// nil, narrows the resources discovery reports to the Sync to those of the
// kinds it accepts, each kind as its resource list names it (a world's
// kinds: informers for every served resource would cost every world a
// monitor each); owners are still looked up by the RESTMapper over all of
// discovery, read again when what the Sync reads changes (a kind it does
// not accept changes nothing there: a CRD installed during the run must be
// accepted for owners of its kind to be found). Discovery, the Sync's and
// the RESTMapper's, is read from the apiserver's kind table
// (process.Discovery), and the Sync's again only once the served kinds
// change. It needs a testing/synctest bubble (Available).
func SetupGarbageCollector(p *process.Process, collects func(schema.GroupVersionKind) bool) error {
	mgr := p.Manager()
	if !process.InBubble(mgr) {
		return fmt.Errorf("kcm: process %s: kube-controller-manager's garbage collector needs a testing/synctest bubble (package wallclock)", p.Name())
	}
	process.DropErrorBackoff()
	incarnation, err := process.IncarnationContext(mgr)
	if err != nil {
		return err
	}
	running, stop := context.WithCancel(incarnation)
	ok := false
	defer func() {
		if !ok {
			stop()
		}
	}()
	flusher := &gcFlusher{running: running}
	// Every request of the collector first hands the queues the items its
	// task added since its last call in (gcFlusher).
	cfg := *mgr.GetConfig()
	prevWrap := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prevWrap != nil {
			rt = prevWrap(rt)
		}
		return flushingTransport{rt, flusher}
	}
	cs, err := kubernetes.NewForConfig(&cfg)
	if err != nil {
		return fmt.Errorf("kcm: %s: clientset: %w", GarbageCollector, err)
	}
	md, err := metadata.NewForConfig(&cfg)
	if err != nil {
		return fmt.Errorf("kcm: %s: metadata client: %w", GarbageCollector, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(&cfg)
	if err != nil {
		return fmt.Errorf("kcm: %s: discovery: %w", GarbageCollector, err)
	}
	mapperDisc, err := discovery.NewDiscoveryClientForConfig(&cfg)
	if err != nil {
		return fmt.Errorf("kcm: %s: discovery: %w", GarbageCollector, err)
	}
	// Discovery read from the apiserver's kind table, not through the REST
	// transport (process.Discovery): the same answers, at a fraction of a
	// small world's cost.
	mapper := newSharedMapper(memory.NewMemCacheClient(process.Discovery(mgr, mapperDisc)))
	// A goroutine of the collector that logs joins the process first (the
	// graph builder's Run logs "Running" before its first call in): its
	// line is then the process's, in its timeline, not klog's stderr.
	ctx := klog.NewContext(running, logr.New(joining{untilEnded{klog.Background().GetSink(), running}, mgr}).WithName(GarbageCollector))

	// The informers list, then watch, instead of client-go's watch-list
	// (listClientset): the order a relist's objects reach the handlers is
	// then the list's.
	factory := &gcInformerFactory{mgr: mgr, cs: listClientset{cs}, md: listMetadata{md}, byGVR: map[schema.GroupVersionResource]*gcInformer{}}
	informersStarted := make(chan struct{})
	gb := garbagecollector.NewDependencyGraphBuilder(ctx, md, mapper, garbagecollector.DefaultIgnoredResources(), factory, informersStarted)
	if err := gcQueues(mgr, running, gb, flusher); err != nil {
		return fmt.Errorf("kcm: %s: %w", GarbageCollector, err)
	}
	gc, err := garbagecollector.NewComposedGarbageCollector(ctx, cs, md, mapper, gb)
	if err != nil {
		return fmt.Errorf("kcm: %s: %w", GarbageCollector, err)
	}
	var sync discovery.ServerResourcesInterface = process.Discovery(mgr, disc)
	if collects != nil {
		sync = collectedDiscovery{sync, collects}
	}
	sync = &unchangedDiscovery{ServerResourcesInterface: sync, generation: p.KindsGeneration}
	// kube-controller-manager closes InformersStarted once every
	// controller is built and the shared informers started; the collector's
	// monitors start their informers themselves (startMonitors), after it.
	close(informersStarted)
	running_, err := graphBuilderRunning(gb)
	if err != nil {
		return fmt.Errorf("kcm: %s: %w", GarbageCollector, err)
	}
	runs := []func(context.Context){
		func(ctx context.Context) { gc.Run(ctx, 20, GCSyncPeriod) },
		func(ctx context.Context) {
			// Sync starts the monitors' informers itself once the graph
			// builder runs (startMonitors), and the graph builder's Run
			// starts those Sync made before: which one starts them would
			// depend on how Go ran the builder's goroutine, outside the
			// scheduler. Sync waits (in virtual time) until the builder
			// runs, so that it is always Sync, a task.
			for !running_() {
				if !sleep(ctx, time.Millisecond) {
					return
				}
			}
			gc.Sync(ctx, sync, GCSyncPeriod)
		},
	}
	err = mgr.Add(manager.RunnableFunc(func(rctx context.Context) error {
		for _, run := range runs {
			go func() {
				process.Join(mgr)
				run(ctx)
			}()
			process.AdoptStarted(mgr)
		}
		<-rctx.Done()
		stop()
		return nil
	}))
	if err != nil {
		return err
	}
	ok = true
	return nil
}

// graphBuilderRunning reads the graph builder's running flag (set by its
// Run, under its monitorLock), through reflect: the builder exports no way
// to know it.
func graphBuilderRunning(gb *garbagecollector.GraphBuilder) (func() bool, error) {
	lock, err := field(reflect.ValueOf(gb), "monitorLock")
	if err != nil {
		return nil, err
	}
	mu, ok := lock.Addr().Interface().(*sync.RWMutex)
	if !ok {
		return nil, fmt.Errorf("GraphBuilder.monitorLock is a %s", lock.Type())
	}
	flag, err := field(reflect.ValueOf(gb), "running")
	if err != nil {
		return nil, err
	}
	if flag.Kind() != reflect.Bool {
		return nil, fmt.Errorf("GraphBuilder.running is a %s", flag.Type())
	}
	return func() bool {
		mu.RLock()
		defer mu.RUnlock()
		return flag.Bool()
	}, nil
}

// sleep waits d (virtual time, in a task) or until ctx ends: false if it
// ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// joining is a log sink whose every line joins the calling goroutine to the
// process first (process.Join), as a call in would.
type joining struct {
	untilEnded
	mgr manager.Manager
}

func (s joining) Info(level int, msg string, kv ...any) {
	if s.incarnation.Err() == nil {
		process.Join(s.mgr)
	}
	s.untilEnded.Info(level, msg, kv...)
}

func (s joining) Error(err error, msg string, kv ...any) {
	if s.incarnation.Err() == nil {
		process.Join(s.mgr)
	}
	s.untilEnded.Error(err, msg, kv...)
}

func (s joining) WithValues(kv ...any) logr.LogSink {
	return joining{s.untilEnded.WithValues(kv...).(untilEnded), s.mgr}
}

func (s joining) WithName(name string) logr.LogSink {
	return joining{s.untilEnded.WithName(name).(untilEnded), s.mgr}
}

// listClientset is a clientset whose informers list and then watch: it
// says it does not support watch-list semantics
// (watchlist.DoesClientNotSupportWatchListSemantics), so client-go's
// reflector does not stream its initial objects (a watch with
// sendInitialEvents). A reflector that does collects them in a store of
// its own and hands them to the informer in that store's Go map order
// (Reflector.watchList: r.store.Replace(temporaryStore.List(), ...)): after
// a restart, a kind's several objects reached the collector's graph in a
// new order in some runs of one plan. A list (resourceVersion 0, served
// from the process's informer in an order drawn from the plan) keeps its
// order.
type listClientset struct{ kubernetes.Interface }

func (listClientset) IsWatchListSemanticsUnSupported() bool { return true }

// listMetadata is listClientset's metadata client.
type listMetadata struct{ metadata.Interface }

func (listMetadata) IsWatchListSemanticsUnSupported() bool { return true }

// collectedDiscovery is discovery as the collector's Sync reads it: only
// the resources of the kinds collects accepts (each its kind as its
// resource list names it: a kind served since the RESTMapper last read
// discovery is not one it can map yet).
type collectedDiscovery struct {
	discovery.ServerResourcesInterface
	collects func(schema.GroupVersionKind) bool
}

func (d collectedDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	lists, err := d.ServerResourcesInterface.ServerPreferredResources()
	var out []*metav1.APIResourceList
	for _, l := range lists {
		gv, perr := schema.ParseGroupVersion(l.GroupVersion)
		if perr != nil {
			continue
		}
		kept := *l
		kept.APIResources = slices.DeleteFunc(slices.Clone(l.APIResources), func(r metav1.APIResource) bool {
			return !d.collects(gv.WithKind(r.Kind))
		})
		if len(kept.APIResources) > 0 {
			out = append(out, &kept)
		}
	}
	return out, err
}

// unchangedDiscovery answers the collector's Sync (every 30 s) with its last
// answer while the apiserver serves the same kinds (Process.KindsGeneration):
// discovery is no call of the process (package restapi), so what the Sync
// reads is the same, and a world saves a discovery request of each of its
// 30-odd group versions, through the REST transport and JSON, at every
// sync (most of a small world's run, measured).
type unchangedDiscovery struct {
	discovery.ServerResourcesInterface
	generation func() int

	mu    sync.Mutex
	read  bool
	gen   int
	lists []*metav1.APIResourceList
	err   error
}

func (d *unchangedDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if g := d.generation(); !d.read || g != d.gen {
		d.lists, d.err = d.ServerResourcesInterface.ServerPreferredResources()
		d.read, d.gen = d.err == nil, g
	}
	return slices.Clone(d.lists), d.err
}

// gcInformerFactory is the collector's informerfactory.InformerFactory, as
// kube-controller-manager's ObjectOrMetadataInformerFactory: a resource the
// clientset knows gets a typed informer, any other a metadata one; each its
// own ordered factory of package process. The graph builder asks for its
// monitors' informers in the order of a Go map (syncMonitors): Start starts
// the ones not yet started in the order of their resources' names, each
// one's goroutines tasks of the process before the next one's.
type gcInformerFactory struct {
	mgr   manager.Manager
	cs    kubernetes.Interface
	md    metadata.Interface
	mu    sync.Mutex
	byGVR map[schema.GroupVersionResource]*gcInformer
}

type gcInformer struct {
	informer informers.GenericInformer
	start    func(stopCh <-chan struct{})
	started  bool
}

var _ informerfactory.InformerFactory = (*gcInformerFactory)(nil)

func (f *gcInformerFactory) ForResource(gvr schema.GroupVersionResource) (informers.GenericInformer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := f.byGVR[gvr]; i != nil {
		return i.informer, nil
	}
	typed := process.NewInformerFactory(f.mgr, f.cs)
	gi, err := typed.ForResource(gvr)
	start := typed.Start
	if err != nil {
		mf := process.NewMetadataInformerFactory(f.mgr, f.md)
		gi = mf.ForResource(gvr)
		start = mf.Start
	}
	f.byGVR[gvr] = &gcInformer{informer: gi, start: start}
	return gi, nil
}

func (f *gcInformerFactory) Start(stopCh <-chan struct{}) {
	f.mu.Lock()
	var todo []schema.GroupVersionResource
	for gvr, i := range f.byGVR { // lint:order-independent sorted below
		if !i.started {
			i.started = true
			todo = append(todo, gvr)
		}
	}
	sort.Slice(todo, func(a, b int) bool { return todo[a].String() < todo[b].String() })
	starts := make([]func(<-chan struct{}), len(todo))
	for n, gvr := range todo {
		starts[n] = f.byGVR[gvr].start
	}
	f.mu.Unlock()
	for _, start := range starts {
		start(stopCh) // the ordered factory adopts its goroutines
	}
}

// gcQueues replaces the graph builder's three client-go workqueues
// (graphChanges, attemptToDelete, attemptToOrphan; built in
// NewDependencyGraphBuilder, on the wall clock, their goroutines outside
// the scheduler) by the simulator's, with the rate limiters it gave them.
// attemptToDelete and attemptToOrphan hold *node, a type the package does
// not export: GetGraphResources returns them typed, so a queue of that type
// can be built here. graphChanges holds *event, which no exported name
// mentions: it gets a queue of pointers of this package's type, written into
// the field through unsafe (an interface value of the same shape: the same
// methods in the same order, each taking or returning one pointer).
//
// The graph builder and the workers add dependents in the order of a Go map
// (a node's dependents): the node queues hold each task's adds until that
// task next calls in (gcFlusher), then add them in the order of their
// objects' identities (namespace, kind, name, uid), so that the same plan
// works them in the same order.
func gcQueues(mgr manager.Manager, running context.Context, gb *garbagecollector.GraphBuilder, flusher *gcFlusher) error {
	del, orphan, _ := gb.GetGraphResources()
	sdel, err := nodeQueue(mgr, running, del, flusher, false)
	if err != nil {
		return fmt.Errorf("attemptToDelete: %w", err)
	}
	sorphan, err := nodeQueue(mgr, running, orphan, flusher, true)
	if err != nil {
		return fmt.Errorf("attemptToOrphan: %w", err)
	}
	for name, q := range map[string]any{"attemptToDelete": sdel, "attemptToOrphan": sorphan} { // lint:order-independent each field set once
		v, err := field(reflect.ValueOf(gb), name)
		if err != nil {
			return err
		}
		if !reflect.TypeOf(q).AssignableTo(v.Type()) {
			return fmt.Errorf("%s: the simulator's queue is no %s", name, v.Type())
		}
		v.Set(reflect.ValueOf(q))
	}
	del.ShutDown()
	orphan.ShutDown()

	v, err := field(reflect.ValueOf(gb), "graphChanges")
	if err != nil {
		return err
	}
	if v.Kind() != reflect.Interface || v.Type().PkgPath() != reflect.TypeFor[workqueue.TypedRateLimitingInterface[*opaque]]().PkgPath() ||
		!strings.HasPrefix(v.Type().Name(), "TypedRateLimitingInterface[") || v.Type().NumMethod() != reflect.TypeFor[workqueue.TypedRateLimitingInterface[*opaque]]().NumMethod() {
		return fmt.Errorf("graphChanges: a %s, not a rate-limiting workqueue", v.Type())
	}
	old, ok := v.Interface().(interface{ ShutDown() })
	if !ok || old == nil {
		return fmt.Errorf("graphChanges: a %s, not a workqueue", v.Type())
	}
	sq, err := process.NewClientGoQueue[*opaque](mgr, nil) // client-go's DefaultTypedControllerRateLimiter, as upstream's
	if err != nil {
		return err
	}
	var changes workqueue.TypedRateLimitingInterface[*opaque] = &flushing[*opaque]{inner: &queue[*opaque]{TypedRateLimitingInterface: sq, incarnation: running}, flusher: flusher}
	*(*workqueue.TypedRateLimitingInterface[*opaque])(unsafe.Pointer(v.UnsafeAddr())) = changes
	old.ShutDown()
	return nil
}

// opaque stands for the graph builder's unexported event type.
type opaque struct{}

// nodeQueue is the simulator's queue in place of old (a node queue of the
// graph builder), adds sorted by node identity (sortedAdds).
func nodeQueue[T comparable](mgr manager.Manager, running context.Context, old workqueue.TypedRateLimitingInterface[T], flusher *gcFlusher, orphans bool) (workqueue.TypedRateLimitingInterface[T], error) {
	limiter, err := field(reflect.ValueOf(old), "rateLimiter")
	if err != nil {
		return nil, fmt.Errorf("client-go's rate-limiting queue: %w", err)
	}
	rl, ok := limiter.Interface().(workqueue.TypedRateLimiter[T])
	if !ok {
		return nil, fmt.Errorf("its rate limiter is a %s", limiter.Type())
	}
	sq, err := process.NewClientGoQueue(mgr, rl)
	if err != nil {
		return nil, err
	}
	inner := &queue[T]{TypedRateLimitingInterface: sq, incarnation: running}
	held := &sortedAdds[T]{inner: inner}
	flusher.add(held.flush)
	q := &flushing[T]{inner: inner, held: held, flusher: flusher}
	if orphans {
		// An owner taken to orphan its dependents: their patches take turns
		// (orphan.go).
		q.onGet, q.onDone = flusher.orphanStart, flusher.orphanEnd
	}
	return q, nil
}

// gcFlusher hands the node queues their held adds: called at every call in
// of the collector's tasks (a queue call other than a node queue's Add, a
// request), before it, so that a task's adds reach the queue before the
// task yields to another.
type gcFlusher struct {
	mu      sync.Mutex
	queues  []func()
	running context.Context
	turns   []*orphanTurn // orphanings in progress (orphan.go's turns)
}

func (f *gcFlusher) add(flush func()) {
	f.mu.Lock()
	f.queues = append(f.queues, flush)
	f.mu.Unlock()
}

func (f *gcFlusher) flush() {
	f.mu.Lock()
	qs := slices.Clone(f.queues)
	f.mu.Unlock()
	for _, q := range qs {
		q()
	}
}

// sortedAdds holds a node queue's Adds until flush, then adds them to inner
// in the order of identityKey.
type sortedAdds[T comparable] struct {
	inner workqueue.TypedRateLimitingInterface[T]
	mu    sync.Mutex
	held  []T
}

func (q *sortedAdds[T]) add(item T) {
	q.mu.Lock()
	q.held = append(q.held, item)
	q.mu.Unlock()
}

func (q *sortedAdds[T]) flush() {
	q.mu.Lock()
	held := q.held
	q.held = nil
	q.mu.Unlock()
	if len(held) == 0 {
		return
	}
	keys := make([]string, len(held))
	for n, item := range held {
		keys[n] = identityKey(item)
	}
	order := make([]int, len(held))
	for n := range order {
		order[n] = n
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	for _, n := range order {
		q.inner.Add(held[n])
	}
}

// identityKey is a graph node's identity (its objectReference: namespace,
// API version, kind, name, uid), read through reflect.
func identityKey(item any) string {
	v := reflect.ValueOf(item)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	id := v.FieldByName("identity")
	if !id.IsValid() {
		return ""
	}
	s := func(v reflect.Value, name string) string {
		if !v.IsValid() {
			return ""
		}
		f := v.FieldByName(name)
		if !f.IsValid() {
			return ""
		}
		return f.String()
	}
	ref := id.FieldByName("OwnerReference")
	return strings.Join([]string{s(id, "Namespace"), s(ref, "APIVersion"), s(ref, "Kind"), s(ref, "Name"), s(ref, "UID")}, "\x00")
}

// flushing is a collector's queue as the collector holds it: every call but
// a node queue's Add (held, when not nil, holds those) first flushes every
// node queue's held adds.
type flushing[T comparable] struct {
	inner         workqueue.TypedRateLimitingInterface[T]
	held          *sortedAdds[T]
	flusher       *gcFlusher
	onGet, onDone func(item any)
}

func (f *flushing[T]) Add(item T) {
	if f.held != nil {
		f.held.add(item)
		return
	}
	f.flusher.flush()
	f.inner.Add(item)
}
func (f *flushing[T]) Len() int { f.flusher.flush(); return f.inner.Len() }
func (f *flushing[T]) Get() (T, bool) {
	f.flusher.flush()
	item, shutdown := f.inner.Get()
	if f.onGet != nil && !shutdown {
		f.onGet(item)
	}
	return item, shutdown
}
func (f *flushing[T]) Done(item T) {
	f.flusher.flush()
	if f.onDone != nil {
		f.onDone(item)
	}
	f.inner.Done(item)
}
func (f *flushing[T]) ShutDown()          { f.flusher.flush(); f.inner.ShutDown() }
func (f *flushing[T]) ShutDownWithDrain() { f.flusher.flush(); f.inner.ShutDownWithDrain() }
func (f *flushing[T]) ShuttingDown() bool { f.flusher.flush(); return f.inner.ShuttingDown() }
func (f *flushing[T]) AddAfter(item T, d time.Duration) {
	f.flusher.flush()
	f.inner.AddAfter(item, d)
}
func (f *flushing[T]) AddRateLimited(item T)  { f.flusher.flush(); f.inner.AddRateLimited(item) }
func (f *flushing[T]) Forget(item T)          { f.flusher.flush(); f.inner.Forget(item) }
func (f *flushing[T]) NumRequeues(item T) int { f.flusher.flush(); return f.inner.NumRequeues(item) }

// flushingTransport flushes the collector's held adds before each request.
type flushingTransport struct {
	rt      http.RoundTripper
	flusher *gcFlusher
}

func (t flushingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.flusher.flush()
	if turn, i := t.flusher.turnOf(r); turn != nil {
		select {
		case <-turn.open[i]:
		case <-t.flusher.running.Done():
		}
		defer t.flusher.advance(turn, i)
	}
	return t.rt.RoundTrip(r)
}
