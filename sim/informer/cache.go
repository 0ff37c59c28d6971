package informer

import (
	"time"

	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/forms"
)

// Cache is the informer cache of one process: one Informer per kind and form, created
// on first use, as controller-runtime's informer cache (pkg/cache/informer_cache.go,
// pkg/cache/internal/informers.go, whose Informers keeps a map per form: structured,
// unstructured and metadata). It serves the reads of the process's default client and
// its field indexes.
type Cache struct {
	held       func(gvk schema.GroupVersionKind) bool // WithHeld
	stale      *Stale                                 // WithStale
	own        *[]Write                               // WithOwnWrites: the process's writes, every incarnation's
	unobserved []*Unobserved                          // WithUnobserved
	src        Source
	timers     Timers
	scheme     *runtime.Scheme
	lag        func(gvk schema.GroupVersionKind) Lag
	mapper     meta.RESTMapper
	informers  map[informerKey]*Informer
	kins       map[schema.GroupVersionKind]*kin
	scopes     map[schema.GroupVersionKind]meta.RESTScopeName
	stopped    bool
	filter     func(gvk schema.GroupVersionKind, namespaced bool) *Filter // WithFilter
	filters    map[schema.GroupVersionKind]*Filter                        // the filter of each kind's informers
	order      func(gvk schema.GroupVersionKind) Order                    // WithListOrder
}

// informerKey names one informer of a cache: a kind in one form.
type informerKey struct {
	gvk  schema.GroupVersionKind
	form forms.Form
}

var (
	_ client.Reader       = (*Cache)(nil)
	_ client.FieldIndexer = (*Cache)(nil)
)

// Option configures a Cache.
type Option func(*Cache)

// WithRESTMapper gives the cache the scope of each kind, as controller-runtime's cache
// takes it from its RESTMapper: a Get of a cluster-scoped kind ignores the key's
// namespace, and a kind the mapper does not know fails the read with the mapper's error.
// Without a mapper every kind is read as namespaced (the key is used as given).
func WithRESTMapper(m meta.RESTMapper) Option { return func(c *Cache) { c.mapper = m } }

// Order permutes the n items of a list, calling swap(i, j) (rng.Stream's
// Shuffle): the order in which a cache's List returns them.
type Order func(n int, swap func(i, j int))

// WithListOrder makes each List of kind gvk come in the order order(gvk)
// draws (a shuffle from the plan), applied to the items in key order: a real
// cache's List comes in its store's Go map order, so code that takes "the
// last item" of a list meets a different one at each call. A nil Order, or
// no WithListOrder, lists in key order (namespace, then name).
func WithListOrder(order func(gvk schema.GroupVersionKind) Order) Option {
	return func(c *Cache) { c.order = order }
}

// WithHeld makes an informer created while held(gvk) is true start held: it lists,
// then its watch delivers nothing until Release (a watch that stalls from the start).
func WithHeld(held func(gvk schema.GroupVersionKind) bool) Option {
	return func(c *Cache) { c.held = held }
}

// Write is one write of the process that owns a cache: the object (its kind,
// and its key, namespace/name or name) and when it committed.
type Write struct {
	GVK schema.GroupVersionKind
	Key string
	At  time.Time
}

// WithOwnWrites makes the cache show the process each of its own writes at
// once, whatever holds or delays the rest (no real informer does: the
// fault-free run of a faulted run's blind time, plan.Blind, is made so): own
// holds the process's writes so far, its earlier incarnations' included, and
// OwnWrite adds to it. An informer that starts (lists) applies at once the
// queued events of each object the process wrote after the instant its list
// shows, through that write; OwnWrite applies those of the object written.
func WithOwnWrites(own *[]Write) Option { return func(c *Cache) { c.own = own } }

// OwnWrite records a write of the process (WithOwnWrites; otherwise it does
// nothing) and applies, in each informer of its kind, every queued event of
// the object committed at or before it, now and in order, ahead of the rest.
func (c *Cache) OwnWrite(w Write) {
	if c.own == nil {
		return
	}
	*c.own = append(*c.own, w)
	if k := c.kins[w.GVK]; k != nil {
		for _, i := range k.members {
			i.fastForward(w.Key, w.At)
		}
	}
}

// NewCache returns the empty cache of one process. lag gives each informer its Lag when
// the informer is created; lag may be nil (no lag).
func NewCache(src Source, timers Timers, scheme *runtime.Scheme, lag func(gvk schema.GroupVersionKind) Lag, opts ...Option) *Cache {
	c := &Cache{
		src:       src,
		timers:    timers,
		scheme:    scheme,
		lag:       lag,
		informers: map[informerKey]*Informer{},
		kins:      map[schema.GroupVersionKind]*kin{},
		scopes:    map[schema.GroupVersionKind]meta.RESTScopeName{},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Informer returns an informer of kind gvk, for what acts on a kind whatever the form
// its informers have (a plan's holds, tests): the one of the kind's native form (its Go
// type, or Unstructured for a kind with none) if the cache has it, else the first one
// created in another form, else a new one of the native form. Hold and Release on it
// act on the kind's informers of every form.
func (c *Cache) Informer(gvk schema.GroupVersionKind) *Informer {
	native := forms.Native(c.scheme, gvk)
	if i, ok := c.informers[informerKey{gvk, native}]; ok {
		return i
	}
	if k := c.kins[gvk]; k != nil && len(k.members) > 0 {
		return k.members[0]
	}
	return c.FormInformer(gvk, native)
}

// FormInformer returns the informer of kind gvk in form f. On the first call for a kind
// and form it is created, lists synchronously (so it has synced when FormInformer
// returns) and starts watching, with a lag of its own (Cache's lag function is called
// for it) and held if the kind's other informers are, or WithHeld says so. After Stop, a
// new informer is created stopped and never syncs.
func (c *Cache) FormInformer(gvk schema.GroupVersionKind, f forms.Form) *Informer {
	key := informerKey{gvk, f}
	if i, ok := c.informers[key]; ok {
		return i
	}
	var lag Lag
	if c.lag != nil {
		lag = c.lag(gvk)
	}
	src, filter := c.filtered(gvk)
	if c.filters == nil {
		c.filters = map[schema.GroupVersionKind]*Filter{}
	}
	c.filters[gvk] = filter
	i := newInformer(gvk, f, c.scheme, src, c.timers, lag)
	if c.stale != nil && c.stale.covers(gvk) {
		i.stale = c.stale
	}
	if c.own != nil {
		i.ownWrites = func() []Write { return *c.own }
	}
	for _, u := range c.unobserved {
		if u.GVK == gvk {
			i.unobserved = append(i.unobserved, &unobservedView{u: u})
		}
	}
	c.informers[key] = i
	k := c.kins[gvk]
	if k == nil {
		k = &kin{}
		c.kins[gvk] = k
	}
	held := len(k.members) > 0 && k.members[0].held
	k.members = append(k.members, i)
	i.kin = k
	if c.stopped {
		i.stopped = true
	} else {
		i.start()
		if held || (c.held != nil && c.held(gvk)) {
			i.held = true
		}
	}
	return i
}

// SyncedThrough is the resourceVersion through which the cache's informer of
// kind gvk in form f has applied the kind's changes (its
// LastSyncResourceVersion: what a read from it reflects), for the trace step
// of a cached read: without one of form f, the kind's first informer of
// another form (a client's hooks see a read of another form as of the native
// one); false when the cache has no informer of the kind. It creates none.
func (c *Cache) SyncedThrough(gvk schema.GroupVersionKind, f forms.Form) (uint64, bool) {
	if i, ok := c.informers[informerKey{gvk, f}]; ok {
		return i.lastRV, true
	}
	if k := c.kins[gvk]; k != nil && len(k.members) > 0 {
		return k.members[0].lastRV, true
	}
	return 0, false
}

// Informers returns the cache's informers ordered by group, version, kind and form
// (typed, unstructured, metadata).
func (c *Cache) Informers() []*Informer {
	out := make([]*Informer, 0, len(c.informers))
	for _, i := range c.informers { // lint:order-independent sorted below
		out = append(out, i)
	}
	slices.SortFunc(out, func(a, b *Informer) int {
		return cmp.Or(cmp.Compare(a.gvk.Group, b.gvk.Group), cmp.Compare(a.gvk.Version, b.gvk.Version),
			cmp.Compare(a.gvk.Kind, b.gvk.Kind), cmp.Compare(a.form, b.form))
	})
	return out
}

// Stop stops every watch, as the cache of a crashed process: queued events are dropped
// and never reach the store or the handlers. The stores keep their last content and
// stay readable.
func (c *Cache) Stop() {
	c.stopped = true
	for _, i := range c.Informers() {
		i.stop()
	}
}

// Stopped reports whether Stop was called.
func (c *Cache) Stopped() bool { return c.stopped }

// informerFor returns the synced informer for gvk and whether the kind is namespaced,
// following controller-runtime's Informers.Get (pkg/cache/internal/informers.go).
// obj is the cache's type, named in the error when the informer cannot sync.
func (c *Cache) informerFor(gvk schema.GroupVersionKind, f forms.Form, obj runtime.Object) (*Informer, bool, error) {
	if _, known := c.scopes[gvk]; !known {
		scope := meta.RESTScopeNameNamespace
		if c.mapper != nil {
			mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				return nil, false, err
			}
			scope = mapping.Scope.Name()
		}
		c.scopes[gvk] = scope
	}
	i := c.FormInformer(gvk, f)
	if !i.HasSynced() {
		// A stopped cache never syncs; the real Get waits until its context ends.
		return nil, false, apierrors.NewTimeoutError(fmt.Sprintf("failed waiting for %T Informer to sync", obj), 0)
	}
	return i, c.scopes[gvk] != meta.RESTScopeNameRoot, nil
}

// Get reads one object from the cache into obj, like controller-runtime's CacheReader.Get
// (pkg/cache/internal/cache_reader.go): a deep copy with its GroupVersionKind set, or a
// NotFound error whose resource is the Kind (`ConfigMap "x" not found`).
//
// An *unstructured.Unstructured or *metav1.PartialObjectMetadata is read from the
// kind's informer of that form, as controller-runtime reads it from its
// unstructured or metadata informer.
func (c *Cache) Get(ctx context.Context, key client.ObjectKey, out client.Object, opts ...client.GetOption) error {
	gvk, err := forms.GVK(out, c.scheme)
	if err != nil {
		return err
	}
	i, namespaced, err := c.informerFor(gvk, forms.Of(out), out)
	if err != nil {
		return err
	}
	getOpts := client.GetOptions{}
	getOpts.ApplyOptions(opts)
	if !namespaced {
		key.Namespace = ""
	} else if !c.filters[gvk].readable(key.Namespace) {
		return errUnknownNamespace("get", key)
	}
	storeKey := key.Name
	if key.Namespace != "" {
		storeKey = key.Namespace + "/" + key.Name
	}
	obj, exists, err := i.indexer.GetByKey(storeKey)
	if err != nil {
		return err
	}
	if !exists {
		// controller-runtime puts the Kind where the resource goes.
		return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, key.Name)
	}
	deepCopy := getOpts.UnsafeDisableDeepCopy == nil || !*getOpts.UnsafeDisableDeepCopy
	if deepCopy {
		obj = obj.(runtime.Object).DeepCopyObject()
	}
	outVal, objVal := reflect.ValueOf(out), reflect.ValueOf(obj)
	if !objVal.Type().AssignableTo(outVal.Type()) {
		return fmt.Errorf("cache had type %s, but %s was asked for", objVal.Type(), outVal.Type())
	}
	reflect.Indirect(outVal).Set(reflect.Indirect(objVal))
	if deepCopy {
		out.GetObjectKind().SetGroupVersionKind(gvk)
	}
	return nil
}

// List reads objects of the list's item kind (FooList lists Foo) from the cache, like
// controller-runtime's CacheReader.List: namespace through the namespace index, field
// selectors through the indexes made by IndexField (exact matches only), label
// selectors, Limit, deep copies with their GroupVersionKind set. As there, the list's
// continue token is "continue-not-supported" and its resourceVersion is left empty.
// Unlike there, items come in namespace/name order, not map order.
//
// An UnstructuredList or PartialObjectMetadataList (of kind Foo or FooList) is read
// from the kind's informer of that form; it keeps the caller's apiVersion/kind.
func (c *Cache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	gvk, err := forms.GVK(list, c.scheme)
	if err != nil {
		return err
	}
	gvk = forms.ItemGVK(gvk)
	form := forms.Of(list)
	var itemType runtime.Object
	switch form {
	case forms.Typed:
		if itemType, err = c.scheme.New(gvk); err != nil {
			return err
		}
	case forms.Unstructured:
		itemType = &unstructured.Unstructured{}
	case forms.Metadata:
		itemType = &metav1.PartialObjectMetadata{}
	}
	i, namespaced, err := c.informerFor(gvk, form, itemType)
	if err != nil {
		return err
	}

	listOpts := client.ListOptions{}
	listOpts.ApplyOptions(opts)
	if namespaced && !c.filters[gvk].readable(listOpts.Namespace) {
		return errUnknownNamespace("list", listOpts.Namespace)
	}
	if listOpts.Continue != "" {
		return fmt.Errorf("continue list option is not supported by the cache")
	}
	var objs []any
	switch {
	case listOpts.FieldSelector != nil:
		if !requiresExactMatch(listOpts.FieldSelector) {
			return fmt.Errorf("non-exact field matches are not supported by the cache")
		}
		objs, err = byIndexes(i.indexer, listOpts.FieldSelector.Requirements(), listOpts.Namespace)
	case listOpts.Namespace != "":
		objs, err = i.indexer.ByIndex(cache.NamespaceIndex, listOpts.Namespace)
	default:
		objs = i.indexer.List()
	}
	if err != nil {
		return err
	}
	sortByKey(objs)
	if c.order != nil {
		if shuffle := c.order(gvk); shuffle != nil {
			shuffle(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
		}
	}

	deepCopy := listOpts.UnsafeDisableDeepCopy == nil || !*listOpts.UnsafeDisableDeepCopy
	items := make([]runtime.Object, 0, len(objs))
	for _, item := range objs {
		if listOpts.Limit > 0 && int64(len(items)) >= listOpts.Limit {
			break
		}
		obj := item.(client.Object)
		if listOpts.LabelSelector != nil && !listOpts.LabelSelector.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		var outObj runtime.Object = obj
		if deepCopy {
			outObj = obj.DeepCopyObject()
			outObj.GetObjectKind().SetGroupVersionKind(gvk)
		}
		items = append(items, outObj)
	}
	if err := meta.SetList(list, items); err != nil {
		return err
	}
	list.SetContinue("continue-not-supported")
	return nil
}

// IndexField adds a field index to the informer of obj's kind (creating the informer if
// needed), like controller-runtime's informerCache.IndexField: values are stored as
// "<namespace>/<value>" and, for namespaced objects, also "__all_namespaces/<value>",
// under the index named "field:<field>".
//
// An index added with an Unstructured or PartialObjectMetadata object indexes the
// kind's informer of that form, whose objects extract sees.
func (c *Cache) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	gvk, err := forms.GVK(obj, c.scheme)
	if err != nil {
		return err
	}
	i := c.FormInformer(gvk, forms.Of(obj))
	if i.stopped {
		return fmt.Errorf("indexer was not added because it has stopped already")
	}
	return i.indexer.AddIndexers(cache.Indexers{fieldIndexName(field): func(raw any) ([]string, error) {
		o, ok := raw.(client.Object)
		if !ok {
			return nil, fmt.Errorf("object of type %T is not an Object", raw)
		}
		ns := o.GetNamespace()
		rawVals := extract(o)
		vals := make([]string, 0, 2*len(rawVals))
		for _, v := range rawVals {
			vals = append(vals, keyToNamespacedKey(ns, v))
		}
		if ns != "" {
			for _, v := range rawVals {
				vals = append(vals, keyToNamespacedKey("", v))
			}
		}
		return vals, nil
	}})
}

// The helpers below copy controller-runtime's pkg/cache/internal/cache_reader.go and
// pkg/internal/field/selector (internal packages, not importable).

func fieldIndexName(field string) string { return "field:" + field }

const allNamespacesNamespace = "__all_namespaces"

func keyToNamespacedKey(ns, baseKey string) string {
	if ns != "" {
		return ns + "/" + baseKey
	}
	return allNamespacesNamespace + "/" + baseKey
}

// requiresExactMatch checks that a field selector is of the form k=v or k==v.
func requiresExactMatch(sel fields.Selector) bool {
	reqs := sel.Requirements()
	if len(reqs) == 0 {
		return false
	}
	for _, r := range reqs {
		if r.Operator != selection.Equals && r.Operator != selection.DoubleEquals {
			return false
		}
	}
	return true
}

// byIndexes looks up the first requirement in its index and filters by the others.
// Unlike controller-runtime it first sorts the requirements by field: fields.SelectorFromSet
// (client.MatchingFields) orders them by map iteration, which decides which error a
// missing index gives; the result set does not depend on the order.
func byIndexes(indexer cache.Indexer, requires fields.Requirements, namespace string) ([]any, error) {
	requires = slices.Clone(requires)
	slices.SortStableFunc(requires, func(a, b fields.Requirement) int { return cmp.Compare(a.Field, b.Field) })
	var objs []any
	indexers := indexer.GetIndexers()
	for n, req := range requires {
		indexName := fieldIndexName(req.Field)
		value := keyToNamespacedKey(namespace, req.Value)
		if n == 0 {
			var err error
			objs, err = indexer.ByIndex(indexName, value)
			if err != nil {
				return nil, err
			}
			if len(objs) == 0 {
				return nil, nil
			}
			continue
		}
		fn, ok := indexers[indexName]
		if !ok {
			return nil, fmt.Errorf("index with name %s does not exist", indexName)
		}
		filtered := make([]any, 0, len(objs))
		for _, obj := range objs {
			vals, err := fn(obj)
			if err != nil {
				return nil, err
			}
			if slices.Contains(vals, value) {
				filtered = append(filtered, obj)
			}
		}
		if len(filtered) == 0 {
			return nil, nil
		}
		objs = filtered
	}
	return objs, nil
}
