package informer

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Selectors choose the objects an informer lists and watches, as the label
// and field selectors of its ListWatch do, and the Transform its store
// applies before storing an object (client-go's SetTransform).
type Selectors struct {
	Label     labels.Selector // nil: every object
	Field     fields.Selector // nil: every object
	Transform toolscache.TransformFunc
}

// Filter is what the informer of one kind caches, as controller-runtime's
// cache options (DefaultNamespaces, ByObject, Default*Selector) decide it.
type Filter struct {
	// Namespaces are the namespaces cached, each with its selectors (the key
	// "" stands for every namespace not listed); nil caches every namespace
	// with All. Cluster-scoped kinds use All.
	Namespaces map[string]Selectors
	All        Selectors
	// Fields is the field set of an object for Field (the apiserver's:
	// apiserver.Kind.Fields).
	Fields func(client.Object) fields.Set
}

// WithFilter makes each informer cache only what filter(gvk) selects (nil:
// everything), and its reads refuse namespaces the filter does not cache, as
// controller-runtime's multi-namespace cache does. namespaced reports the
// kind's scope.
func WithFilter(filter func(gvk schema.GroupVersionKind, namespaced bool) *Filter) Option {
	return func(c *Cache) { c.filter = filter }
}

// selectors returns the selectors that apply to o, and false if o is not
// cached at all.
func (f *Filter) selectors(o client.Object, namespaced bool) (Selectors, bool) {
	if f.Namespaces == nil || !namespaced {
		return f.All, true
	}
	if s, ok := f.Namespaces[o.GetNamespace()]; ok {
		return s, true
	}
	s, ok := f.Namespaces[""]
	return s, ok
}

func (f *Filter) matches(o client.Object, namespaced bool) (Selectors, bool) {
	s, ok := f.selectors(o, namespaced)
	if !ok {
		return s, false
	}
	if s.Label != nil && !s.Label.Matches(labels.Set(o.GetLabels())) {
		return s, false
	}
	if s.Field != nil && !s.Field.Empty() && !s.Field.Matches(f.Fields(o)) {
		return s, false
	}
	return s, true
}

// readable reports whether a read in namespace ns is served (multiNamespaceCache
// Get and List: a namespace not cached, with no "" entry, is an error).
func (f *Filter) readable(ns string) bool {
	if f == nil || f.Namespaces == nil || ns == "" {
		return true
	}
	_, ok := f.Namespaces[ns]
	_, all := f.Namespaces[""]
	return ok || all
}

// namespaces are the cached namespaces, sorted, for messages.
func (f *Filter) namespaces() []string {
	var out []string
	for ns := range f.Namespaces { // lint:order-independent sorted below
		out = append(out, ns)
	}
	slices.Sort(out)
	return out
}

// filteredSource is the Source of one informer with a Filter: lists and
// watch events carry only the objects selected, as a ListWatch with selectors
// and a namespace receives them from the watch cache: an object that stops
// matching arrives as Deleted (with its last matching state), one that starts
// matching as Added. It remembers what it has sent (one per informer).
type filteredSource struct {
	src        Source
	f          *Filter
	namespaced bool
	sent       map[string]client.Object // key -> last state sent
}

func newFilteredSource(src Source, f *Filter, namespaced bool) *filteredSource {
	return &filteredSource{src: src, f: f, namespaced: namespaced}
}

func (s *filteredSource) pass(o client.Object) (client.Object, bool) {
	sel, ok := s.f.matches(o, s.namespaced)
	if !ok {
		return nil, false
	}
	if sel.Transform == nil {
		return o, true
	}
	out, err := sel.Transform(o.DeepCopyObject())
	if err != nil {
		// client-go's store keeps the error from its caller's Add; the
		// reflector logs and retries. The object is not cached.
		return nil, false
	}
	t, ok := out.(client.Object)
	return t, ok
}

func (s *filteredSource) keep(objs []client.Object) []client.Object {
	s.sent = map[string]client.Object{}
	var out []client.Object
	for _, o := range objs {
		if t, ok := s.pass(o); ok {
			out = append(out, t)
			s.sent[storeKey(o)] = t
		}
	}
	return out
}

// List implements Source.
func (s *filteredSource) List(gvk schema.GroupVersionKind) ([]client.Object, uint64) {
	objs, rv := s.src.List(gvk)
	return s.keep(objs), rv
}

// Watch implements Source.
func (s *filteredSource) Watch(gvk schema.GroupVersionKind, fn func(apiserver.Event)) func() {
	return s.src.Watch(gvk, func(ev apiserver.Event) {
		if out, ok := s.translate(ev); ok {
			fn(out)
		}
	})
}

func (s *filteredSource) translate(ev apiserver.Event) (apiserver.Event, bool) {
	key := storeKey(ev.Object)
	last, had := s.sent[key]
	t, passes := s.pass(ev.Object)
	switch {
	case ev.Type == watch.Deleted && had:
		delete(s.sent, key)
		if passes {
			ev.Object = t
		} else {
			ev.Object = last
		}
		return ev, true
	case ev.Type == watch.Deleted:
		return ev, false
	case passes:
		s.sent[key] = t
		ev.Object = t
		if !had {
			ev.Type = watch.Added
		}
		return ev, true
	case had:
		delete(s.sent, key)
		ev.Type, ev.Object = watch.Deleted, last
		return ev, true
	}
	return ev, false
}

// errUnknownNamespace is controller-runtime's multiNamespaceCache's error for a
// read in a namespace it does not cache.
func errUnknownNamespace(verb string, what any) error {
	return fmt.Errorf("unable to %s: %v because of unknown namespace for the cache", verb, what)
}

// filteredPastSource is a filteredSource over a PastSource: a stale informer
// with a Filter lists the past and receives the events since through it.
type filteredPastSource struct {
	*filteredSource
	past PastSource
}

// ListAsOf implements PastSource.
func (s filteredPastSource) ListAsOf(gvk schema.GroupVersionKind, at time.Time) ([]client.Object, uint64) {
	objs, rv := s.past.ListAsOf(gvk, at)
	return s.keep(objs), rv
}

// ListAtRV implements PastSource.
func (s filteredPastSource) ListAtRV(gvk schema.GroupVersionKind, rv uint64) ([]client.Object, uint64) {
	objs, got := s.past.ListAtRV(gvk, rv)
	return s.keep(objs), got
}

// EventsAfter implements PastSource.
func (s filteredPastSource) EventsAfter(gvk schema.GroupVersionKind, rv uint64) []apiserver.Event {
	var out []apiserver.Event
	for _, ev := range s.past.EventsAfter(gvk, rv) {
		if t, ok := s.translate(ev); ok {
			out = append(out, t)
		}
	}
	return out
}

// filtered wraps src for one informer of gvk when the cache has a Filter for it.
func (c *Cache) filtered(gvk schema.GroupVersionKind) (Source, *Filter) {
	if c.filter == nil {
		return c.src, nil
	}
	f := c.filter(gvk, c.namespaced(gvk))
	if f == nil {
		return c.src, nil
	}
	fs := newFilteredSource(c.src, f, c.namespaced(gvk))
	if past, ok := c.src.(PastSource); ok {
		return filteredPastSource{fs, past}, f
	}
	return fs, f
}

// namespaced is the kind's scope from the cache's RESTMapper (namespaced without one).
func (c *Cache) namespaced(gvk schema.GroupVersionKind) bool {
	if c.mapper == nil {
		return true
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return err != nil || m.Scope.Name() != meta.RESTScopeNameRoot
}
