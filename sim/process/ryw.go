package process

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// Read-your-writes consistency (Client.Cache.EnableReadYourWritesConsistency).
//
// controller-runtime v0.25 implements it in client.New (pkg/client's
// consistency.go): with the option on, the client it returns is a
// consistentClient wrapping the cache-backed client. Each write (Create,
// Update, Patch, Apply, their status forms, Delete) holds a write barrier on
// its object's key while it is in flight and, when it returns, records the
// resourceVersion of the answer as the minimum the cache must have seen for
// that key (a Delete whose answer has none waits for the object's uid to
// leave the cache instead); a consistency handler registered on the kind's
// informer (per kind and form) tracks the highest resourceVersion the
// informer has delivered. A Get waits for the barrier of its key, then
// until the handler has seen the key's minimum (a List: the kind's highest
// minimum and every pending delete), and then reads the cache. That code,
// the barrier and the handler are unexported or internal packages, with an
// upstream interface that has an unexported method, so nothing of it can be
// called from here but client.New itself.
//
// So the process's client is client.New's, as the manager builds it: its
// rest.Config and HTTP client are the incarnation's REST transport (package
// restapi: each request one call of the process's own client: trace, yield,
// latency, crash points, identity, faults), its Cache.Reader the process's
// cached client (reads through the same hooks) that is also the
// incarnation's cache.Informers (the consistency handlers are handlers of
// the process's informers), its mapper the process's. Every write and every
// live read goes over REST; a cached read after the process's own write
// waits, as controller-runtime's does, on a channel the handler's
// goroutines close when the informer delivers the event: inside a
// testing/synctest bubble that wait is a task blocked outside the scheduler,
// which rejoins when the informer's event (a timer of virtual time) wakes
// it (sim/scheduler's outside.go), so the wait lasts exactly the informer's
// lag in virtual time. Outside a bubble the option is refused (a blocked
// task would deadlock the kernel).

// readYourWrites reports whether o turns read-your-writes consistency on.
func readYourWrites(o *manager.Options) bool {
	return o != nil && o.Client.Cache != nil && ptr.Deref(o.Client.Cache.EnableReadYourWritesConsistency, false)
}

// errReadYourWritesNeedsBubble is the start error of a process with
// read-your-writes consistency outside a testing/synctest bubble.
var errReadYourWritesNeedsBubble = errors.New("ctrlsim: Client.Cache.EnableReadYourWritesConsistency needs a testing/synctest bubble (a read after the process's own write waits on a channel until the cache has seen the write): run the world with package wallclock (operatortest does)")

// consistentClient is controller-runtime's own client.New for the options o,
// on the incarnation's REST transport, cache and mapper (see above).
func (m *Manager) consistentClient(o manager.Options) (client.Client, error) {
	p := m.p
	if !p.env.Scheduler.InBubble() {
		return nil, errReadYourWritesNeedsBubble
	}
	cc := o.Client.Cache
	return client.New(m.GetConfig(), client.Options{
		HTTPClient: m.GetHTTPClient(),
		Scheme:     p.GetScheme(),
		Mapper:     p.client.RESTMapper(),
		Cache: &client.CacheOptions{
			Reader:                          &consistentReader{Client: p.client, cache: m.cache},
			DisableFor:                      cc.DisableFor,
			Unstructured:                    cc.Unstructured,
			EnableReadYourWritesConsistency: ptr.To(true),
		},
		// FieldValidation is refused by CheckOptions.
		FieldOwner: o.Client.FieldOwner,
		DryRun:     o.Client.DryRun,
	})
}

// consistentReader is the Cache.Reader controller-runtime's client is given:
// reads are the process's cached reads (through its hooks: a yield point and
// a trace step each), and it is the incarnation's cache.Informers, as
// client.New requires of a Reader with read-your-writes consistency (the
// manager hands it its cache, which is both).
type consistentReader struct {
	*kubeclient.Client
	cache *procCache
}

var _ cache.Informers = (*consistentReader)(nil)

func (r *consistentReader) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return r.cache.GetInformer(ctx, obj, opts...)
}

func (r *consistentReader) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return r.cache.GetInformerForKind(ctx, gvk, opts...)
}

func (r *consistentReader) RemoveInformer(ctx context.Context, obj client.Object) error {
	return r.cache.RemoveInformer(ctx, obj)
}

func (r *consistentReader) Start(ctx context.Context) error { return r.cache.Start(ctx) }

func (r *consistentReader) WaitForCacheSync(ctx context.Context) bool {
	return r.cache.WaitForCacheSync(ctx)
}

func (r *consistentReader) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return r.cache.IndexField(ctx, obj, field, extract)
}
