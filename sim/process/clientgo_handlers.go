package process

import (
	"context"
	"slices"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// orderedInformer is a client-go shared informer of the ordered factories
// whose event handlers registered before it starts share one of client-go's
// listeners, called in the order they were registered.
//
// client-go gives each handler a listener of its own, with goroutines that
// its sharedProcessor starts by ranging over a Go map: two controllers with
// handlers on one informer (kube-controller-manager's ReplicaSet and
// Deployment controllers on the ReplicaSet and pod informers) had their
// handlers' goroutines made in a new order at every run, so the scheduler
// adopted them as tasks in a new order (sim/scheduler's adopt.go orders by
// creation site, then goroutine id) and one plan gave two traces: which
// controller's worker woke first. One listener for them all delivers each
// event to the handlers one after the other, as one task.
//
// A handler registered once the informer runs, or with a resync period of
// its own, gets client-go's listener as ever (started at once: its
// goroutines are made in registration order).
type orderedInformer struct {
	cache.SharedIndexInformer
	mu      sync.Mutex
	started bool
	fan     *fanOut
}

func newOrderedInformer(inf cache.SharedIndexInformer) *orderedInformer {
	return &orderedInformer{SharedIndexInformer: inf}
}

func (i *orderedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandlerWithOptions(h, cache.HandlerOptions{})
}

func (i *orderedInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.started || (o.ResyncPeriod != nil && *o.ResyncPeriod != 0) {
		return i.SharedIndexInformer.AddEventHandlerWithOptions(h, o)
	}
	if i.fan == nil {
		fan := &fanOut{}
		reg, err := i.SharedIndexInformer.AddEventHandlerWithOptions(fan, cache.HandlerOptions{Logger: o.Logger})
		if err != nil {
			return nil, err
		}
		fan.reg = reg
		i.fan = fan
	}
	return i.fan.add(h), nil
}

func (i *orderedInformer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	if r, ok := handle.(*fanHandler); ok {
		r.fan.remove(r)
		return nil
	}
	return i.SharedIndexInformer.RemoveEventHandler(handle)
}

func (i *orderedInformer) Run(stopCh <-chan struct{}) {
	i.start()
	i.SharedIndexInformer.Run(stopCh)
}

func (i *orderedInformer) RunWithContext(ctx context.Context) {
	i.start()
	i.SharedIndexInformer.RunWithContext(ctx)
}

func (i *orderedInformer) start() {
	i.mu.Lock()
	i.started = true
	i.mu.Unlock()
}

// fanOut is the one client-go handler of an orderedInformer's handlers.
type fanOut struct {
	reg      cache.ResourceEventHandlerRegistration
	mu       sync.Mutex
	handlers []*fanHandler
}

// fanHandler is one handler of a fanOut, and its registration: it has
// synced when the fanOut's has (every handler of a fanOut got the same
// initial list).
type fanHandler struct {
	cache.ResourceEventHandler
	fan *fanOut
}

func (r *fanHandler) HasSynced() bool                     { return r.fan.reg.HasSynced() }
func (r *fanHandler) HasSyncedChecker() cache.DoneChecker { return r.fan.reg.HasSyncedChecker() }

func (f *fanOut) add(h cache.ResourceEventHandler) *fanHandler {
	r := &fanHandler{ResourceEventHandler: h, fan: f}
	f.mu.Lock()
	f.handlers = append(f.handlers, r)
	f.mu.Unlock()
	return r
}

func (f *fanOut) remove(r *fanHandler) {
	f.mu.Lock()
	f.handlers = slices.DeleteFunc(slices.Clone(f.handlers), func(h *fanHandler) bool { return h == r })
	f.mu.Unlock()
}

func (f *fanOut) each() []*fanHandler {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.handlers
}

func (f *fanOut) OnAdd(obj any, isInInitialList bool) {
	for _, h := range f.each() {
		h.OnAdd(obj, isInInitialList)
	}
}

func (f *fanOut) OnUpdate(oldObj, newObj any) {
	for _, h := range f.each() {
		h.OnUpdate(oldObj, newObj)
	}
}

func (f *fanOut) OnDelete(obj any) {
	for _, h := range f.each() {
		h.OnDelete(obj)
	}
}
