package process

import (
	"sort"
	"sync"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// Watches over the REST config (restapi's watch.go): a reflector that a
// client-go informer factory built on mgr.GetConfig() runs lists and watches
// the incarnation's own informer of the kind (its native form), so that the
// operator's client-go informers see what its controller-runtime cache would:
// the plan's lag, holds, relists and stale restarts. Each kind's feed keeps
// the events its informer applied since it was made, so that a reflector's
// watch from the resourceVersion of its list (two calls later) misses none.

// watchFeeds are the feeds of one incarnation, by kind.
type watchFeeds struct {
	m     *Manager
	mu    sync.Mutex
	byGVK map[schema.GroupVersionKind]*watchFeed
}

// feed is restapi's Feeds: the kind's feed, made on first use.
func (w *watchFeeds) feed(gvk schema.GroupVersionKind) (restapi.Feed, error) {
	w.mu.Lock()
	if f := w.byGVK[gvk]; f != nil {
		w.mu.Unlock()
		return f, nil
	}
	w.mu.Unlock()
	inf := w.m.cache.FormInformer(gvk, forms.Native(w.m.p.GetScheme(), gvk))
	order := w.m.p.env.Faults.ListOrder(w.m.p.spec.Name, "feed/"+gvk.Group+"/"+gvk.Version+"/"+gvk.Kind)
	f := &watchFeed{inf: inf, start: inf.LastSyncResourceVersion(), order: order}
	f.registering = true
	inf.AddEventHandler(f)
	f.registering = false
	w.mu.Lock()
	if w.byGVK == nil {
		w.byGVK = map[schema.GroupVersionKind]*watchFeed{}
	}
	w.byGVK[gvk] = f
	w.mu.Unlock()
	return f, nil
}

// settle lets the goroutines an event woke run until they block or call in
// (the bubble's synctest.Wait, as the scheduler settles). Watches are
// served only in a bubble (InBubble).
func settleBubble() { synctest.Wait() }

// watchFeed is one kind's feed: a handler on the incarnation's informer.
type watchFeed struct {
	inf         *informer.Informer
	order       informer.Order // Snapshot's: the plan's shuffle (Injector.ListOrder)
	start       uint64         // the resourceVersion the informer had reached when the feed began
	registering bool           // AddEventHandler's replay of the cached objects: not events
	mu          sync.Mutex
	log         []restapi.WatchEvent
	subs        []*feedSub
}

type feedSub struct {
	fn   func(restapi.WatchEvent)
	done bool
}

var _ cache.ResourceEventHandler = (*watchFeed)(nil)

// Snapshot is the cached objects in namespace/name order, as
// kube-apiserver's watch cache lists them, and with initial in an order
// drawn from the plan (a shuffle of namespace/name order, a new one at each
// call, the same in every run of the plan). initial is a reflector's
// resourceVersion=0 list, and so the order in which its informer hands a
// start's (or a relist's) objects to the handlers: every reflector of a
// world lists, then watches (watchlist.go), where client-go's watch-list,
// its default, hands them over in the Go map order of a store of its own,
// any order. A list in namespace/name order in every plan would make
// impossible the orders a real client meets.
func (f *watchFeed) Snapshot(initial bool) ([]client.Object, uint64) {
	items := f.inf.Indexer().List()
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		if o, ok := it.(client.Object); ok {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].GetNamespace() != out[j].GetNamespace() {
			return out[i].GetNamespace() < out[j].GetNamespace()
		}
		return out[i].GetName() < out[j].GetName()
	})
	if initial && f.order != nil {
		f.order(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out, f.inf.LastSyncResourceVersion()
}

func (f *watchFeed) Since(rv uint64) ([]restapi.WatchEvent, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rv < f.start {
		return nil, false
	}
	var out []restapi.WatchEvent
	for _, ev := range f.log {
		if ev.RV > rv {
			out = append(out, ev)
		}
	}
	return out, true
}

func (f *watchFeed) Subscribe(fn func(restapi.WatchEvent)) func() {
	s := &feedSub{fn: fn}
	f.mu.Lock()
	f.subs = append(f.subs, s)
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		s.done = true
		f.mu.Unlock()
	}
}

func (f *watchFeed) emit(typ watch.EventType, obj any) {
	if f.registering {
		return
	}
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	ev := restapi.WatchEvent{Type: typ, Object: o, RV: f.inf.LastSyncResourceVersion()}
	f.mu.Lock()
	f.log = append(f.log, ev)
	subs := f.subs[:0:0]
	live := f.subs[:0]
	for _, s := range f.subs {
		if !s.done {
			subs = append(subs, s)
			live = append(live, s)
		}
	}
	f.subs = live
	f.mu.Unlock()
	for _, s := range subs {
		s.fn(ev)
	}
}

func (f *watchFeed) OnAdd(obj any, _ bool) { f.emit(watch.Added, obj) }
func (f *watchFeed) OnUpdate(_, obj any)   { f.emit(watch.Modified, obj) }
func (f *watchFeed) OnDelete(obj any)      { f.emit(watch.Deleted, obj) }
