package process

import (
	"context"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// eventHandler is controller-runtime's internal source EventHandler
// (pkg/internal/source/event_handler.go, v0.25.2): it turns informer notifications
// into events, filters them through the predicates and hands them to the
// controller-runtime handler, which enqueues requests.
type eventHandler struct {
	ctx        context.Context
	handler    handler.EventHandler
	queue      workqueue.TypedRateLimitingInterface[reconcile.Request]
	predicates []predicate.Predicate
}

var _ cache.ResourceEventHandler = &eventHandler{}

func newEventHandler(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], h handler.EventHandler, preds []predicate.Predicate) *eventHandler {
	return &eventHandler{ctx: ctx, handler: h, queue: q, predicates: preds}
}

func (e *eventHandler) OnAdd(obj any, isInInitialList bool) {
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	c := event.CreateEvent{Object: o, IsInInitialList: isInInitialList}
	for _, p := range e.predicates {
		if !p.Create(c) {
			return
		}
	}
	e.handler.Create(e.ctx, c, e.queue)
}

func (e *eventHandler) OnUpdate(oldObj, newObj any) {
	o, ok1 := oldObj.(client.Object)
	n, ok2 := newObj.(client.Object)
	if !ok1 || !ok2 {
		return
	}
	u := event.UpdateEvent{ObjectOld: o, ObjectNew: n}
	for _, p := range e.predicates {
		if !p.Update(u) {
			return
		}
	}
	e.handler.Update(e.ctx, u, e.queue)
}

func (e *eventHandler) OnDelete(obj any) {
	d := event.DeleteEvent{}
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		d.DeleteStateUnknown = true
		obj = tombstone.Obj
	}
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	d.Object = o
	for _, p := range e.predicates {
		if !p.Delete(d) {
			return
		}
	}
	e.handler.Delete(e.ctx, d, e.queue)
}
