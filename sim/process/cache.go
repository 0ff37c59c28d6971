package process

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/informer"
)

// procCache is the cache.Cache of one incarnation (mgr.GetCache(),
// mgr.GetFieldIndexer()): reads and field indexes of the process's informer
// cache, and its informers for controller-runtime's sources. It was started
// with the process and is synced: an informer lists synchronously when it is
// first asked for.
type procCache struct {
	*informer.Cache
	p *Process
}

var _ cache.Cache = (*procCache)(nil)

// gvkOf is the kind of obj: from the scheme for a Go type, from the object for
// an unstructured or metadata-only one (which must name it).
func (c *procCache) gvkOf(obj client.Object) (schema.GroupVersionKind, error) {
	return forms.GVK(obj, c.p.GetScheme())
}

// GetInformer returns the informer of obj's kind, as controller-runtime's
// informer cache does; a kind the apiserver does not serve is the RESTMapper's
// NoKindMatchError. For an unstructured or metadata-only object it is a view of
// the kind's typed informer whose handlers receive objects of that form.
func (c *procCache) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return nil, err
	}
	inf, err := c.GetInformerForKind(ctx, gvk, opts...)
	if err != nil {
		return nil, err
	}
	switch obj.(type) {
	case *unstructured.Unstructured:
		inf.(*sharedInformer).convert = func(o any) any { return inForm(o, &unstructured.Unstructured{}, gvk) }
	case *metav1.PartialObjectMetadata:
		inf.(*sharedInformer).convert = func(o any) any { return inForm(o, &metav1.PartialObjectMetadata{}, gvk) }
	}
	return inf, nil
}

// inForm converts a cached typed object (or a deleted one's final state) into
// out, the form of an informer's view (sim/forms).
func inForm(o any, out client.Object, gvk schema.GroupVersionKind) any {
	if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		d.Obj = inForm(d.Obj, out, gvk)
		return d
	}
	if err := forms.Into(o.(runtime.Object), out, gvk); err != nil {
		panic(fmt.Sprintf("ctrlsim: converting a cached %T to %T: %v", o, out, err)) // a harness bug: cached objects are of served kinds
	}
	return out
}

// GetInformerForKind returns the informer of gvk.
func (c *procCache) GetInformerForKind(_ context.Context, gvk schema.GroupVersionKind, _ ...cache.InformerGetOption) (cache.Informer, error) {
	if _, ok := c.p.env.Server.KindFor(gvk); !ok {
		return nil, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
	return &sharedInformer{i: c.Informer(gvk)}, nil
}

// RemoveInformer is refused: informers live as long as their incarnation.
func (c *procCache) RemoveInformer(context.Context, client.Object) error {
	return fmt.Errorf("ctrlsim: RemoveInformer is not modelled (known gap of package process)")
}

// Start returns at once: the simulator started the cache with the process.
func (c *procCache) Start(context.Context) error { return nil }

// WaitForCacheSync is true: informers list synchronously when created.
func (c *procCache) WaitForCacheSync(context.Context) bool { return !c.Stopped() }

// sharedInformer is an informer as controller-runtime's cache hands it out (a
// client-go SharedIndexInformer's handler-facing part).
type sharedInformer struct {
	i       *informer.Informer
	convert func(any) any // nil: the typed objects; else to the informer's form
}

var _ cache.Informer = (*sharedInformer)(nil)

// registration is a handler registered on an informer; removing it stops its
// deliveries.
type registration struct {
	i       *informer.Informer
	h       toolscache.ResourceEventHandler
	convert func(any) any
	removed bool
}

func (r *registration) form(o any) any {
	if r.convert == nil {
		return o
	}
	return r.convert(o)
}

func (r *registration) HasSynced() bool { return r.i.HasSynced() }

func (r *registration) HasSyncedChecker() toolscache.DoneChecker { return syncedChecker{r.i} }

func (r *registration) OnAdd(obj any, isInInitialList bool) {
	if !r.removed {
		r.h.OnAdd(r.form(obj), isInInitialList)
	}
}

func (r *registration) OnUpdate(old, new any) {
	if !r.removed {
		r.h.OnUpdate(r.form(old), r.form(new))
	}
}

func (r *registration) OnDelete(obj any) {
	if !r.removed {
		r.h.OnDelete(r.form(obj))
	}
}

// syncedChecker is done at once: the simulator's informers have synced when
// they are handed out.
type syncedChecker struct{ i *informer.Informer }

func (s syncedChecker) Name() string { return s.i.GVK().String() }

func (s syncedChecker) Done() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

func (s *sharedInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	r := &registration{i: s.i, h: h, convert: s.convert}
	s.i.AddEventHandler(r)
	return r, nil
}

func (s *sharedInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, _ time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandler(h) // no resyncs (known gap of package informer)
}

func (s *sharedInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, _ toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandler(h)
}

func (s *sharedInformer) RemoveEventHandler(h toolscache.ResourceEventHandlerRegistration) error {
	r, ok := h.(*registration)
	if !ok || r.i != s.i {
		return fmt.Errorf("ctrlsim: RemoveEventHandler of a registration of another informer")
	}
	r.removed = true
	return nil
}

func (s *sharedInformer) AddIndexers(indexers toolscache.Indexers) error {
	return s.i.Indexer().AddIndexers(indexers)
}

func (s *sharedInformer) HasSynced() bool { return s.i.HasSynced() }

func (s *sharedInformer) HasSyncedChecker() toolscache.DoneChecker { return syncedChecker{s.i} }

func (s *sharedInformer) IsStopped() bool { return s.i.Stopped() }
