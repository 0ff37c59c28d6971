package process

import (
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Builder registers a controller on a process the way controller-runtime's
// builder does (For, Owns, Watches, WithEventFilter, WithOptions, Named,
// Complete), with controller-runtime's own handlers and predicates.
type Builder struct {
	p       *Process
	name    string
	forObj  client.Object
	forPred []predicate.Predicate
	owns    []watchInput
	watches []watchInput
	global  []predicate.Predicate
	opts    Options
	err     error
}

type watchInput struct {
	obj   client.Object
	h     handler.EventHandler
	preds []predicate.Predicate
}

// NewControllerManagedBy starts a controller registration, like
// ctrl.NewControllerManagedBy(mgr).
func (p *Process) NewControllerManagedBy() *Builder { return &Builder{p: p} }

// For is the reconciled kind: its events enqueue the object itself
// (handler.EnqueueRequestForObject).
func (b *Builder) For(obj client.Object, preds ...predicate.Predicate) *Builder {
	if b.forObj != nil {
		b.err = fmt.Errorf("For(...) should only be called once")
	}
	b.forObj, b.forPred = obj, preds
	return b
}

// Owns watches a kind whose objects the reconciled kind controls: their events
// enqueue the controller owner (handler.EnqueueRequestForOwner with
// OnlyControllerOwner, as the builder's Owns does by default).
func (b *Builder) Owns(obj client.Object, preds ...predicate.Predicate) *Builder {
	b.owns = append(b.owns, watchInput{obj: obj, preds: preds})
	return b
}

// Watches watches a kind with a handler of your own.
func (b *Builder) Watches(obj client.Object, h handler.EventHandler, preds ...predicate.Predicate) *Builder {
	b.watches = append(b.watches, watchInput{obj: obj, h: h, preds: preds})
	return b
}

// WithEventFilter adds predicates to every watch.
func (b *Builder) WithEventFilter(p predicate.Predicate) *Builder {
	b.global = append(b.global, p)
	return b
}

// WithOptions sets the controller's options.
func (b *Builder) WithOptions(o Options) *Builder {
	b.opts = o
	return b
}

// Named names the controller; the default is the lower-case kind of For.
func (b *Builder) Named(name string) *Builder {
	b.name = name
	return b
}

// Complete registers the controller with its reconciler. On a running process
// the workers start at once.
func (b *Builder) Complete(r reconcile.Reconciler) error {
	if b.err != nil {
		return b.err
	}
	if b.forObj == nil && b.name == "" {
		return fmt.Errorf("one of For() or Named() must be called")
	}
	scheme := b.p.env.Server.Scheme()
	name := b.name
	if name == "" {
		gvk, err := apiutil.GVKForObject(b.forObj, scheme)
		if err != nil {
			return err
		}
		name = strings.ToLower(gvk.Kind)
	}
	for _, c := range b.p.controllers {
		if c.name == name {
			return fmt.Errorf("controller with name %s already exists; controller names must be unique", name)
		}
	}
	c := newController(b.p, name, r, b.opts)
	if b.forObj != nil {
		if err := c.watch(b.forObj, &handler.EnqueueRequestForObject{}, append(append([]predicate.Predicate{}, b.global...), b.forPred...)); err != nil {
			return err
		}
	}
	for _, o := range b.owns {
		h := handler.EnqueueRequestForOwner(scheme, b.p.client.RESTMapper(), b.forObj, handler.OnlyControllerOwner())
		if err := c.watch(o.obj, h, append(append([]predicate.Predicate{}, b.global...), o.preds...)); err != nil {
			return err
		}
	}
	for _, w := range b.watches {
		if err := c.watch(w.obj, w.h, append(append([]predicate.Predicate{}, b.global...), w.preds...)); err != nil {
			return err
		}
	}
	b.p.controllers = append(b.p.controllers, c)
	if b.p.started && !b.p.inSetup { // (a controller completed during Setup starts when Setup returns)
		c.start()
	}
	return nil
}
