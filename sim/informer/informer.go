package informer

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/forms"
)

// Source is the part of the apiserver model an informer needs.
type Source interface {
	// List returns every object of kind gvk (all namespaces), in namespace/name order, and the
	// resourceVersion of that snapshot. Objects are shared immutable snapshots: deep-copy before changing.
	List(gvk schema.GroupVersionKind) ([]client.Object, uint64)
	// Watch calls fn synchronously, in resourceVersion order, for every change to an object of kind gvk
	// committed after the call. stop ends the subscription.
	Watch(gvk schema.GroupVersionKind, fn func(apiserver.Event)) (stop func())
}

// Timers is the part of the virtual clock an informer needs (sim/clock implements it).
type Timers interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) clock.Timer
}

// Lag returns the lag of the next event on one informer: how long after its commit the
// event reaches the cache (the plan draws it, e.g. from an sim/rng stream). A nil Lag, or
// a negative value, means no lag: the event is applied when the kernel next fires timers
// at the current instant.
type Lag func() time.Duration

// Informer is the informer of one kind in one process: a client-go cache.Indexer kept up
// to date from the apiserver model's watch log, with a lag, and the event handlers
// registered on it.
type Informer struct {
	gvk    schema.GroupVersionKind
	form   forms.Form
	native bool            // form is the kind's native form: the Source's objects are stored as they are
	scheme *runtime.Scheme // converts the Source's objects into form
	kin    *kin            // the informers of the same kind in the same cache (every form)
	src    Source
	timers Timers
	lag    Lag

	indexer  cache.Indexer
	handlers []cache.ResourceEventHandler

	synced    bool
	stopped   bool
	held      bool
	lastRV    uint64
	lastDue   time.Time   // when the newest scheduled event is applied
	queue     []*delivery // received, not yet applied, in resourceVersion order
	batch     *delivery   // the newest delivery with a timer, until it is applied or dropped
	stopWatch func()
	stale     *Stale // set by a cache made WithStale
	// ownWrites are the process's own writes (a cache made WithOwnWrites); nil:
	// none are shown ahead.
	ownWrites func() []Write
	// unobserved are the windows of the plan's unobserved faults on objects
	// of this kind (a cache made WithUnobserved).
	unobserved []*unobservedView
}

// delivery is one received event waiting to be applied.
type delivery struct {
	ev    apiserver.Event
	timer clock.Timer // nil for an event received while held, or one applied in an earlier delivery's batch
	// through is the newest resourceVersion the timer applies: this event's, or
	// a later one's that joined its batch.
	through uint64
	// done: applied ahead of its turn (fastForward); skipped in its turn.
	done bool
}

// kin are the informers of one kind in one cache, one per form, in creation order:
// a hold holds them all (a plan's hold stalls the kind's watches, whichever form
// the process reads it in).
type kin struct{ members []*Informer }

func newInformer(gvk schema.GroupVersionKind, form forms.Form, scheme *runtime.Scheme, src Source, timers Timers, lag Lag) *Informer {
	return &Informer{
		gvk:    gvk,
		form:   form,
		native: scheme == nil || forms.Native(scheme, gvk) == form,
		scheme: scheme,
		src:    src,
		timers: timers,
		lag:    lag,
		// As a SharedIndexInformer built by controller-runtime (pkg/cache/internal/informers.go):
		// keyed by namespace/name, with the namespace index.
		indexer: cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}),
	}
}

// start lists (synchronously) and then watches from the list's resourceVersion.
func (i *Informer) start() {
	objs, rv, since := i.list()
	i.replace(i.hideUnobserved(objs), rv)
	i.synced = true
	for _, ev := range since {
		i.receive(ev)
	}
	if i.ownWrites != nil && len(since) > 0 {
		for _, w := range i.ownWrites() {
			if w.GVK == i.gvk {
				i.fastForward(w.Key, w.At)
			}
		}
	}
	i.stopWatch = i.src.Watch(i.gvk, i.receive)
}

// fastForward applies now, in order, the queued events of the object key
// committed at or before at, ahead of the other objects' (WithOwnWrites),
// even while held.
func (i *Informer) fastForward(key string, at time.Time) {
	if i.stopped {
		return
	}
	for _, d := range i.queue {
		if !d.done && !d.ev.At.After(at) && storeKey(d.ev.Object) == key {
			d.done = true
			i.apply(d.ev)
		}
	}
}

// GVK is the kind this informer caches.
func (i *Informer) GVK() schema.GroupVersionKind { return i.gvk }

// Form is the form of the objects this informer caches and hands its handlers:
// the kind's Go type, *unstructured.Unstructured or *metav1.PartialObjectMetadata.
func (i *Informer) Form() forms.Form { return i.form }

// own returns the informer's own copy of an object from the Source, in its form.
func (i *Informer) own(obj client.Object) client.Object {
	if i.native {
		return obj.DeepCopyObject().(client.Object)
	}
	var out client.Object = &unstructured.Unstructured{}
	if i.form == forms.Metadata {
		out = &metav1.PartialObjectMetadata{}
	}
	if err := forms.Into(obj, out, i.gvk); err != nil {
		panic(fmt.Sprintf("informer: converting a %v to its %s form: %v", i.gvk, i.form, err)) // a harness bug: the Source serves the kind's native objects
	}
	return out
}

// kinOf is every informer of i's kind in its cache (i alone outside a cache).
func (i *Informer) kinOf() []*Informer {
	if i.kin == nil {
		return []*Informer{i}
	}
	return i.kin.members
}

// Indexer is the informer's store: deep copies of the objects, keyed by namespace/name
// (cache.MetaNamespaceKeyFunc), with the namespace index (cache.NamespaceIndex) and the
// field indexes added by Cache.IndexField. Treat its objects as read-only.
func (i *Informer) Indexer() cache.Indexer { return i.indexer }

// HasSynced reports whether the initial list has been applied. As with client-go, it
// stays true after the informer stops.
func (i *Informer) HasSynced() bool { return i.synced }

// LastSyncResourceVersion is the resourceVersion of the newest event applied to the
// store, or of the newest list if that is newer.
func (i *Informer) LastSyncResourceVersion() uint64 { return i.lastRV }

// Pending is the number of events received from the apiserver but not yet applied.
func (i *Informer) Pending() int { return len(i.queue) }

// Held reports whether the informer is held (see Hold).
func (i *Informer) Held() bool { return i.held }

// AddEventHandler registers h, like SharedIndexInformer.AddEventHandler. A handler added
// after the informer has synced first receives OnAdd(obj, true) for each cached object,
// in namespace/name order, synchronously, as client-go's sharedIndexInformer does when a
// listener joins a started informer (shared_informer.go AddEventHandlerWithOptions).
func (i *Informer) AddEventHandler(h cache.ResourceEventHandler) {
	i.handlers = append(i.handlers, h)
	if !i.synced {
		return
	}
	for _, obj := range i.sortedObjects() {
		h.OnAdd(obj, true)
	}
}

// Hold stops events from reaching the cache: they queue up (Pending grows) until
// Release. It holds every informer of the kind in the cache, whatever its form.
func (i *Informer) Hold() {
	for _, m := range i.kinOf() {
		m.held = true
	}
}

// Release ends a Hold: every event queued when Release is called is applied now,
// synchronously, in resourceVersion order (each updating the store, then calling the
// handlers), including events whose lag has not elapsed yet; on an informer that is not
// held, Release is thus "catch up now". Later events are delivered with their lag again,
// never before the released ones. It releases every informer of the kind in the
// cache, in the order they were created.
func (i *Informer) Release() {
	for _, m := range i.kinOf() {
		m.release()
	}
}

func (i *Informer) release() {
	i.held = false
	if n := len(i.queue); n > 0 {
		i.applyThrough(i.queue[n-1].ev.ResourceVersion)
	}
	if now := i.timers.Now(); i.lastDue.Before(now) {
		i.lastDue = now
	}
}

// Relist does what a watch restart does: it lists afresh and replaces the store the way
// client-go's Reflector and RealFIFO Replace do (controller.go processReplacedAllInfo):
// the store is replaced first; then OnDelete(cache.DeletedFinalStateUnknown) for each
// cached object missing from the list (in namespace/name order), then, in list order, OnAdd(obj,
// false) for new objects and OnUpdate(old, new) for objects whose resourceVersion changed.
// An object with an unchanged resourceVersion gets no handler call: client-go's
// sharedIndexInformer.OnUpdate treats it as a resync, delivered only to listeners whose
// resync period is due, and this model has no resync period. Queued events the list
// covers (resourceVersion <= the list's) are dropped: they belong to the broken watch.
// Relist applies synchronously, even while held; a hold stays in force for later events.
func (i *Informer) Relist() {
	if i.stopped {
		return
	}
	objs, rv := i.src.List(i.gvk)
	kept := i.queue[:0]
	for _, d := range i.queue {
		if d.ev.ResourceVersion <= rv {
			if d.timer != nil {
				d.timer.Stop()
			}
			continue
		}
		kept = append(kept, d)
	}
	i.queue = kept
	if i.batch != nil && i.batch.ev.ResourceVersion <= rv {
		i.batch = nil
	}
	i.replace(i.hideUnobserved(objs), rv)
}

// replace installs a list as the store's content and calls the handlers.
func (i *Informer) replace(objs []client.Object, rv uint64) {
	items := make([]any, 0, len(objs))
	listed := make(map[string]bool, len(objs))
	for _, o := range objs {
		c := i.own(o)
		items = append(items, c)
		listed[storeKey(c)] = true
	}
	type update struct{ old, new any }
	var deletions []cache.DeletedFinalStateUnknown
	var changes []update
	for _, old := range i.sortedObjects() { // client-go walks the keys in map order
		if k := storeKey(old); !listed[k] {
			deletions = append(deletions, cache.DeletedFinalStateUnknown{Key: k, Obj: old})
		}
	}
	for _, c := range items {
		old, exists, _ := i.indexer.Get(c)
		if !exists {
			old = nil
		}
		changes = append(changes, update{old, c})
	}
	if err := i.indexer.Replace(items, strconv.FormatUint(rv, 10)); err != nil {
		panic(err) // only a key function error, impossible for client.Objects
	}
	if rv > i.lastRV {
		i.lastRV = rv
	}
	isInInitialList := !i.synced
	for _, d := range deletions {
		i.onDelete(d)
	}
	for _, u := range changes {
		if u.old == nil {
			i.onAdd(u.new, isInInitialList)
		} else {
			i.onUpdate(u.old, u.new)
		}
	}
}

// stop ends the watch; events still queued are never applied.
func (i *Informer) stop() {
	if i.stopped {
		return
	}
	i.stopped = true
	if i.stopWatch != nil {
		i.stopWatch()
	}
	for _, d := range i.queue {
		if d.timer != nil {
			d.timer.Stop()
		}
	}
	i.queue = nil
	i.batch = nil
}

// receive is the watch callback: it runs when the apiserver commits the change.
func (i *Informer) receive(ev apiserver.Event) {
	if i.stopped || ev.ResourceVersion <= i.lastRV || i.withhold(ev) {
		return
	}
	d := &delivery{ev: ev}
	i.queue = append(i.queue, d)
	if i.held {
		return
	}
	now := i.timers.Now()
	var lag time.Duration
	if i.lag != nil {
		lag = max(i.lag(), 0)
	}
	due := now.Add(lag)
	if i.staleNow() {
		if d := i.stale.due(ev.At); d.After(due) {
			due = d
		}
	}
	if !due.After(i.lastDue) {
		// Never overtake an earlier event. One that is still waiting takes this
		// one along in its batch: client-go's processLoop pops the FIFO's events
		// back to back, so an event that was there before its predecessor was
		// popped is in the store before a worker woken by the predecessor reads it.
		if i.batch != nil {
			i.batch.through = ev.ResourceVersion
			return
		}
		due = i.lastDue
	}
	i.lastDue = due
	// When the timer fires, the events before this one are due too (their due times are
	// not later); events a relist dropped are no longer queued.
	d.through = ev.ResourceVersion
	d.timer = i.timers.AfterFunc(due.Sub(now), func() { i.applyThrough(d.through) })
	i.batch = d
}

// applyThrough applies the queued events up to resourceVersion rv, in order. It
// re-checks its conditions after each event, as a handler may hold, relist or stop.
func (i *Informer) applyThrough(rv uint64) {
	for !i.stopped && !i.held && len(i.queue) > 0 && i.queue[0].ev.ResourceVersion <= rv {
		d := i.queue[0]
		i.queue = i.queue[1:]
		if d == i.batch {
			i.batch = nil
		}
		if d.timer != nil {
			d.timer.Stop() // a no-op for the timer firing now
		}
		if !d.done {
			i.apply(d.ev)
		}
	}
}

// apply updates the store with one watch event and then calls the handlers, as
// client-go's processDeltas does (controller.go).
func (i *Informer) apply(ev apiserver.Event) {
	obj := i.own(ev.Object)
	i.lastRV = ev.ResourceVersion
	switch ev.Type {
	case watch.Added, watch.Modified:
		old, exists, _ := i.indexer.Get(obj)
		if exists {
			_ = i.indexer.Update(obj)
			i.onUpdate(old, obj)
		} else {
			_ = i.indexer.Add(obj)
			i.onAdd(obj, false)
		}
	case watch.Deleted:
		_ = i.indexer.Delete(obj)
		i.onDelete(obj)
	default:
		panic("informer: unexpected watch event type " + string(ev.Type))
	}
}

func (i *Informer) onAdd(obj any, isInInitialList bool) {
	for _, h := range i.handlers {
		h.OnAdd(obj, isInInitialList)
	}
}

// onUpdate skips updates that keep the resourceVersion: sharedIndexInformer.OnUpdate
// (shared_informer.go) delivers those only to listeners due for a resync.
func (i *Informer) onUpdate(old, new any) {
	if resourceVersion(old) == resourceVersion(new) {
		return
	}
	for _, h := range i.handlers {
		h.OnUpdate(old, new)
	}
}

func (i *Informer) onDelete(obj any) {
	for _, h := range i.handlers {
		h.OnDelete(obj)
	}
}

// sortedObjects is the store's content in key (namespace/name) order.
func (i *Informer) sortedObjects() []any {
	objs := i.indexer.List()
	sortByKey(objs)
	return objs
}

func resourceVersion(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}

func storeKey(obj any) string {
	k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		panic(err)
	}
	return k
}

// sortByKey orders cached objects by namespace, then name.
func sortByKey(objs []any) {
	slices.SortFunc(objs, func(a, b any) int {
		ma, mb := a.(client.Object), b.(client.Object)
		return cmp.Or(cmp.Compare(ma.GetNamespace(), mb.GetNamespace()), cmp.Compare(ma.GetName(), mb.GetName()))
	})
}

// Stopped reports whether the informer's watch has ended (its process died).
func (i *Informer) Stopped() bool { return i.stopped }
