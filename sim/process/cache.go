package process

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
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

// GetInformer returns the informer of obj's kind in obj's form, as
// controller-runtime's informer cache does (a structured, an unstructured and a
// metadata-only informer per kind, each with its own store, lag, holds and
// indexes); a kind the apiserver does not serve is the RESTMapper's
// NoKindMatchError.
func (c *procCache) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	gvk, err := c.gvkOf(obj)
	if err != nil {
		return nil, err
	}
	return c.informer(gvk, forms.Of(obj))
}

// GetInformerForKind returns the informer of gvk in its native form: its Go type,
// or unstructured for a kind the scheme has no type for (controller-runtime's
// GetInformerForKind makes a structured informer when the scheme knows the kind,
// an unstructured one otherwise).
func (c *procCache) GetInformerForKind(_ context.Context, gvk schema.GroupVersionKind, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return c.informer(gvk, forms.Native(c.p.GetScheme(), gvk))
}

func (c *procCache) informer(gvk schema.GroupVersionKind, f forms.Form) (cache.Informer, error) {
	if _, ok := c.p.env.Server.KindFor(gvk); !ok {
		return nil, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
	return &sharedInformer{i: c.FormInformer(gvk, f)}, nil
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
type sharedInformer struct{ i *informer.Informer }

var _ cache.Informer = (*sharedInformer)(nil)

// registration is a handler registered on an informer; removing it stops its
// deliveries.
type registration struct {
	i       *informer.Informer
	h       toolscache.ResourceEventHandler
	removed bool
}

func (r *registration) HasSynced() bool { return r.i.HasSynced() }

func (r *registration) HasSyncedChecker() toolscache.DoneChecker { return syncedChecker{r.i} }

func (r *registration) OnAdd(obj any, isInInitialList bool) {
	if !r.removed {
		r.h.OnAdd(obj, isInInitialList)
	}
}

func (r *registration) OnUpdate(old, new any) {
	if !r.removed {
		r.h.OnUpdate(old, new)
	}
}

func (r *registration) OnDelete(obj any) {
	if !r.removed {
		r.h.OnDelete(obj)
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
	r := &registration{i: s.i, h: h}
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
