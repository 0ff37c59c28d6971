package process

import (
	"context"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	admissionregistration "k8s.io/client-go/informers/admissionregistration"
	apiserverinternal "k8s.io/client-go/informers/apiserverinternal"
	apps "k8s.io/client-go/informers/apps"
	autoscaling "k8s.io/client-go/informers/autoscaling"
	batch "k8s.io/client-go/informers/batch"
	certificates "k8s.io/client-go/informers/certificates"
	coordination "k8s.io/client-go/informers/coordination"
	core "k8s.io/client-go/informers/core"
	discovery "k8s.io/client-go/informers/discovery"
	events "k8s.io/client-go/informers/events"
	extensions "k8s.io/client-go/informers/extensions"
	flowcontrol "k8s.io/client-go/informers/flowcontrol"
	"k8s.io/client-go/informers/internalinterfaces"
	lifecycle "k8s.io/client-go/informers/lifecycle"
	networking "k8s.io/client-go/informers/networking"
	node "k8s.io/client-go/informers/node"
	policy "k8s.io/client-go/informers/policy"
	rbac "k8s.io/client-go/informers/rbac"
	resource "k8s.io/client-go/informers/resource"
	scheduling "k8s.io/client-go/informers/scheduling"
	storage "k8s.io/client-go/informers/storage"
	storagemigration "k8s.io/client-go/informers/storagemigration"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/informer"
)

// Informer factories that start their informers in a deterministic order.
//
// client-go's factories start their informers by ranging over a map, each
// in a goroutine that starts the informer's reflector; the reflectors become
// tasks of the process at their first request, numbered by their goroutine
// ids, which then follow the map's order and the runtime's. The factories
// operatortest/clientgo's Env gives are client-go's own, one per informer
// type (or resource), started in the order the operator asked for them:
// each informer's goroutines are started, and reach the simulator, before
// the next one's (process.AdoptStarted), so the same plan numbers and runs
// them the same way every time.
//
// NewInformerFactory, NewDynamicInformerFactory and NewMetadataInformerFactory
// give them to code that hosts client-go controllers: operatortest/clientgo's
// Setup and package kcm (kube-controller-manager's own controllers).

// NewInformerFactory is informers.SharedInformerFactory (no resync) on client,
// for the incarnation of mgr (a process's Manager): one client-go factory per
// informer type, started in the order they were asked for, each one's
// goroutines tasks of the process before the next one starts.
func NewInformerFactory(mgr manager.Manager, client kubernetes.Interface) informers.SharedInformerFactory {
	return newOrderedFactory(listThenWatch{client}, adopter(mgr), listOrder(mgr))
}

// NewDynamicInformerFactory is NewInformerFactory's dynamicinformer
// counterpart: one factory per resource, started in the order asked for.
func NewDynamicInformerFactory(mgr manager.Manager, client dynamic.Interface) dynamicinformer.DynamicSharedInformerFactory {
	return newOrderedDynamicFactory(listThenWatchDynamic{client}, adopter(mgr), listOrder(mgr))
}

// NewMetadataInformerFactory is NewInformerFactory's metadatainformer
// counterpart: one factory per resource, started in the order asked for.
func NewMetadataInformerFactory(mgr manager.Manager, client metadata.Interface) metadatainformer.SharedInformerFactory {
	return newOrderedMetadataFactory(listThenWatchMetadata{client}, adopter(mgr), listOrder(mgr))
}

// listThenWatch is the clientset of the ordered factories' informers: it
// says it does not support watch-list (watchlist.DoesClientNotSupportWatchListSemantics),
// so that their reflectors list and then watch. client-go's watch-list
// hands a kind's initial objects to the informer in the Go map order of a
// store of its own (Reflector.watchList: r.store.Replace(temporaryStore.List(), ...)),
// so the handlers saw two objects listed at a start or a relist in a new
// order each run, and two StatefulSets (two ReplicaSets, two Jobs) created
// together were synced in either order (package kcm's
// TestTwoObjectsListedTogetherDeterminism). A list's items come in the
// watch feed's order (watchfeed.go: by key).
type listThenWatch struct{ kubernetes.Interface }

func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

// listThenWatchDynamic is listThenWatch's dynamic client.
type listThenWatchDynamic struct{ dynamic.Interface }

func (listThenWatchDynamic) IsWatchListSemanticsUnSupported() bool { return true }

// listThenWatchMetadata is listThenWatch's metadata client.
type listThenWatchMetadata struct{ metadata.Interface }

func (listThenWatchMetadata) IsWatchListSemanticsUnSupported() bool { return true }

// orderedFactory is informers.SharedInformerFactory over one client-go
// factory per informer type.
type orderedFactory struct {
	client kubernetes.Interface
	adopt  func()
	order  func(what string) informer.Order // listOrder
	mu     sync.Mutex
	subs   []informers.SharedInformerFactory
	byType map[reflect.Type]informers.SharedInformerFactory
}

var _ informers.SharedInformerFactory = (*orderedFactory)(nil)

func newOrderedFactory(client kubernetes.Interface, adopt func(), order func(what string) informer.Order) *orderedFactory {
	return &orderedFactory{client: client, adopt: adopt, order: order, byType: map[reflect.Type]informers.SharedInformerFactory{}}
}

// InformerFor is the informer of obj's type: made by its own factory.
func (f *orderedFactory) InformerFor(obj runtime.Object, newFunc internalinterfaces.NewInformerFunc) cache.SharedIndexInformer {
	t := reflect.TypeOf(obj)
	f.mu.Lock()
	sub := f.byType[t]
	if sub == nil {
		sub = informers.NewSharedInformerFactory(f.client, 0)
		f.byType[t] = sub
		f.subs = append(f.subs, sub)
	}
	f.mu.Unlock()
	inf := sub.InformerFor(obj, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		inf := newFunc(c, resync)
		sortIndexer(inf, f.order(typeName(t))) // clientgo_indexer.go
		return newOrderedInformer(inf)         // clientgo_handlers.go
	})
	return inf
}

// InformerName is nil: no informer metrics (as a factory made without
// WithInformerName).
func (f *orderedFactory) InformerName() *cache.InformerName { return nil }

// ForResource is the generic informer of a resource, from a factory of its
// own.
func (f *orderedFactory) ForResource(gvr schema.GroupVersionResource) (informers.GenericInformer, error) {
	sub := informers.NewSharedInformerFactory(f.client, 0)
	gi, err := sub.ForResource(gvr)
	if err != nil {
		return nil, err
	}
	sortIndexer(gi.Informer(), f.order(gvr.String()))
	f.mu.Lock()
	f.subs = append(f.subs, sub)
	f.mu.Unlock()
	return gi, nil
}

func (f *orderedFactory) factories() []informers.SharedInformerFactory {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]informers.SharedInformerFactory(nil), f.subs...)
}

// Start starts each factory's informers in the order they were asked for,
// one after the other's goroutines have reached the simulator.
func (f *orderedFactory) Start(stopCh <-chan struct{}) {
	for _, sub := range f.factories() {
		sub.Start(stopCh)
		f.adopt()
	}
}

func (f *orderedFactory) StartWithContext(ctx context.Context) {
	for _, sub := range f.factories() {
		sub.StartWithContext(ctx)
		f.adopt()
	}
}

func (f *orderedFactory) Shutdown() {
	for _, sub := range f.factories() {
		sub.Shutdown()
	}
}

func (f *orderedFactory) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	return f.WaitForCacheSyncWithContext(wait.ContextForChannel(stopCh)).Synced
}

func (f *orderedFactory) WaitForCacheSyncWithContext(ctx context.Context) cache.SyncResult {
	res := cache.SyncResult{Synced: map[reflect.Type]bool{}}
	for _, sub := range f.factories() {
		r := sub.WaitForCacheSyncWithContext(ctx)
		for t, ok := range r.Synced { // lint:order-independent a copy into a map
			res.Synced[t] = ok
		}
		if r.Err != nil && res.Err == nil {
			res.Err = r.Err
		}
	}
	return res
}

func (f *orderedFactory) Admissionregistration() admissionregistration.Interface {
	return admissionregistration.New(f, "", nil)
}
func (f *orderedFactory) Internal() apiserverinternal.Interface {
	return apiserverinternal.New(f, "", nil)
}
func (f *orderedFactory) Apps() apps.Interface                 { return apps.New(f, "", nil) }
func (f *orderedFactory) Autoscaling() autoscaling.Interface   { return autoscaling.New(f, "", nil) }
func (f *orderedFactory) Batch() batch.Interface               { return batch.New(f, "", nil) }
func (f *orderedFactory) Certificates() certificates.Interface { return certificates.New(f, "", nil) }
func (f *orderedFactory) Coordination() coordination.Interface { return coordination.New(f, "", nil) }
func (f *orderedFactory) Core() core.Interface                 { return core.New(f, "", nil) }
func (f *orderedFactory) Discovery() discovery.Interface       { return discovery.New(f, "", nil) }
func (f *orderedFactory) Events() events.Interface             { return events.New(f, "", nil) }
func (f *orderedFactory) Extensions() extensions.Interface     { return extensions.New(f, "", nil) }
func (f *orderedFactory) Flowcontrol() flowcontrol.Interface   { return flowcontrol.New(f, "", nil) }
func (f *orderedFactory) Lifecycle() lifecycle.Interface       { return lifecycle.New(f, "", nil) }
func (f *orderedFactory) Networking() networking.Interface     { return networking.New(f, "", nil) }
func (f *orderedFactory) Node() node.Interface                 { return node.New(f, "", nil) }
func (f *orderedFactory) Policy() policy.Interface             { return policy.New(f, "", nil) }
func (f *orderedFactory) Rbac() rbac.Interface                 { return rbac.New(f, "", nil) }
func (f *orderedFactory) Resource() resource.Interface         { return resource.New(f, "", nil) }
func (f *orderedFactory) Scheduling() scheduling.Interface     { return scheduling.New(f, "", nil) }
func (f *orderedFactory) Storage() storage.Interface           { return storage.New(f, "", nil) }
func (f *orderedFactory) Storagemigration() storagemigration.Interface {
	return storagemigration.New(f, "", nil)
}

// gvrFactory is what client-go's dynamic and metadata informer factories
// have in common.
type gvrFactory interface {
	Start(stopCh <-chan struct{})
	ForResource(gvr schema.GroupVersionResource) informers.GenericInformer
	WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool
	Shutdown()
}

// orderedGVRFactory is dynamicinformer.DynamicSharedInformerFactory, or
// metadatainformer.SharedInformerFactory, over one client-go factory per
// resource (newSub makes one).
type orderedGVRFactory struct {
	newSub func() gvrFactory
	adopt  func()
	order  func(what string) informer.Order // listOrder
	mu     sync.Mutex
	subs   []gvrFactory
	byGVR  map[schema.GroupVersionResource]gvrFactory
}

var (
	_ dynamicinformer.DynamicSharedInformerFactory = (*orderedGVRFactory)(nil)
	_ metadatainformer.SharedInformerFactory       = (*orderedGVRFactory)(nil)
)

func newOrderedDynamicFactory(client dynamic.Interface, adopt func(), order func(what string) informer.Order) *orderedGVRFactory {
	return &orderedGVRFactory{adopt: adopt, order: order, byGVR: map[schema.GroupVersionResource]gvrFactory{},
		newSub: func() gvrFactory { return dynamicinformer.NewDynamicSharedInformerFactory(client, 0) }}
}

func newOrderedMetadataFactory(client metadata.Interface, adopt func(), order func(what string) informer.Order) *orderedGVRFactory {
	return &orderedGVRFactory{adopt: adopt, order: order, byGVR: map[schema.GroupVersionResource]gvrFactory{},
		newSub: func() gvrFactory { return metadatainformer.NewSharedInformerFactory(client, 0) }}
}

func (f *orderedGVRFactory) ForResource(gvr schema.GroupVersionResource) informers.GenericInformer {
	f.mu.Lock()
	sub := f.byGVR[gvr]
	if sub == nil {
		sub = f.newSub()
		f.byGVR[gvr] = sub
		f.subs = append(f.subs, sub)
	}
	f.mu.Unlock()
	gi := sub.ForResource(gvr)
	sortIndexer(gi.Informer(), f.order(gvr.String()))
	return gi
}

func (f *orderedGVRFactory) factories() []gvrFactory {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]gvrFactory(nil), f.subs...)
}

func (f *orderedGVRFactory) Start(stopCh <-chan struct{}) {
	for _, sub := range f.factories() {
		sub.Start(stopCh)
		f.adopt()
	}
}

func (f *orderedGVRFactory) WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool {
	out := map[schema.GroupVersionResource]bool{}
	for _, sub := range f.factories() {
		for gvr, ok := range sub.WaitForCacheSync(stopCh) { // lint:order-independent a copy into a map
			out[gvr] = ok
		}
	}
	return out
}

func (f *orderedGVRFactory) Shutdown() {
	for _, sub := range f.factories() {
		sub.Shutdown()
	}
}

// adopter is the hook the ordered factories call after starting one
// factory's informers: the goroutines they started reach the simulator and
// become tasks of the process before the next ones start.
func adopter(mgr manager.Manager) func() {
	return func() { AdoptStarted(mgr) }
}

// listOrder is the order of the lists of mgr's process's client-go
// informers of what ("clientgo/" and the informer's object type or
// resource): the plan's shuffle (Injector.ListOrder); nil (key order) for a
// manager that is not a process's.
func listOrder(mgr manager.Manager) func(what string) informer.Order {
	return func(what string) informer.Order {
		m, ok := mgr.(*Manager)
		if !ok {
			return nil
		}
		return m.p.env.Faults.ListOrder(m.p.spec.Name, "clientgo/"+what)
	}
}

// typeName names an informer's object type: its package path and name.
func typeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() + "." + t.Name()
}

// InBubble reports whether mgr's process runs in a testing/synctest bubble
// (package wallclock), where goroutines a client-go controller starts become
// tasks of the process: hosting one needs it.
func InBubble(mgr manager.Manager) bool {
	m, ok := mgr.(*Manager)
	return ok && m.p.env.Scheduler.InBubble()
}

// Join makes the calling goroutine a task of mgr's process, as its first
// call into the simulator (a request, a queue call) would: a goroutine that
// a host starts to run client-go code calls it first, so that it runs when
// the plan picks it and is frozen with a crash (AdoptStarted, called by the
// task that started it, numbers it before what that task does next).
func Join(mgr manager.Manager) {
	if m, ok := mgr.(*Manager); ok {
		m.join()
	}
}

var errorHandlersOnce sync.Once

// DropErrorBackoff replaces utilruntime.ErrorHandlers (what
// utilruntime.HandleError and HandleErrorWithContext call: client-go
// controllers' workers and reflectors, kube-controller-manager's
// controllers) by their logging handler alone, once for the test binary.
// The other, a rudimentary backoff that sleeps until 1 ms has passed since
// the last error, is one variable for the whole test binary, set from the
// wall clock when the binary starts and read from each world's bubble
// clock: its sleeps depend on the worlds run before (the first sleeps for
// years of bubble time, and the worker that logged the error with it), so
// the same plan would not give the same trace. The line logged is the same
// (a process's line in its timeline, logger UnhandledError).
func DropErrorBackoff() {
	errorHandlersOnce.Do(func() {
		utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{
			func(ctx context.Context, err error, msg string, keysAndValues ...any) {
				logger := klog.LoggerWithName(klog.FromContext(ctx).WithCallDepth(3), "UnhandledError")
				logger.Error(err, msg, keysAndValues...)
			},
		}
	})
}

// EnableStorageObjectInUseProtection turns on the StorageObjectInUseProtection
// admission plugin of the apiserver model mgr's process talks to
// (apiserver.Server.SetStorageObjectInUseProtection): a host of
// kube-controller-manager's pvc-protection controller calls it.
func EnableStorageObjectInUseProtection(mgr manager.Manager) {
	if m, ok := mgr.(*Manager); ok {
		m.p.env.Server.SetStorageObjectInUseProtection(true)
	}
}
