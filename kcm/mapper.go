package kcm

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"
)

// sharedMapper is the collector's RESTMapper: client-go's
// DeferredDiscoveryRESTMapper's behaviour (built from discovery on first use,
// built again after Reset, and after a lookup that finds nothing while the
// discovery cache is not fresh), with what it builds
// (restmapper.NewDiscoveryRESTMapper, read-only once built) shared by every
// world whose discovery serves the same groups and resources. Building it in
// every world was a quarter of the hosted collector's cost; the mapper is a
// function of what discovery serves, so sharing it changes no lookup.
type sharedMapper struct {
	cl    discovery.CachedDiscoveryInterface
	built *mappers

	mu       sync.Mutex
	delegate meta.RESTMapper
}

var _ meta.ResettableRESTMapper = &sharedMapper{}

// mappers are the mappers built, by a digest of the discovery they were
// built from; at most maxBuilt are kept (a test binary's worlds serve a
// handful of kind sets), the oldest forgotten first.
type mappers struct {
	sync.Mutex
	by    map[[32]byte]meta.RESTMapper
	order [][32]byte
}

// built are the mappers of every world of the process.
var built = &mappers{}

const maxBuilt = 64

func newSharedMapper(cl discovery.CachedDiscoveryInterface) *sharedMapper {
	return &sharedMapper{cl: cl, built: built}
}

func (m *sharedMapper) get() (meta.RESTMapper, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.delegate != nil {
		return m.delegate, nil
	}
	grs, err := restmapper.GetAPIGroupResources(m.cl)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(grs) // struct fields in order, map keys sorted
	if err != nil {
		return nil, err
	}
	key := sha256.Sum256(b)
	m.built.Lock()
	defer m.built.Unlock()
	if d, ok := m.built.by[key]; ok {
		m.delegate = d
		return d, nil
	}
	if m.built.by == nil {
		m.built.by = map[[32]byte]meta.RESTMapper{}
	}
	d := restmapper.NewDiscoveryRESTMapper(grs)
	m.built.by[key] = d
	m.built.order = append(m.built.order, key)
	if len(m.built.order) > maxBuilt {
		delete(m.built.by, m.built.order[0])
		m.built.order = m.built.order[1:]
	}
	m.delegate = d
	return d, nil
}

// Reset forgets the mapper and discovery's cache: the next lookup reads
// discovery again.
func (m *sharedMapper) Reset() {
	m.cl.Invalidate()
	m.mu.Lock()
	m.delegate = nil
	m.mu.Unlock()
}

// retry is the deferred mapper's rule: a lookup that found nothing is tried
// once more on discovery read again, unless the cache was fresh already.
func retry[T any](m *sharedMapper, f func(meta.RESTMapper) (T, error), none func(T, error) bool) (T, error) {
	d, err := m.get()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := f(d)
	if none(v, err) && !m.cl.Fresh() {
		m.Reset()
		if d, err = m.get(); err != nil {
			var zero T
			return zero, err
		}
		v, err = f(d)
	}
	return v, err
}

func failed[T any](_ T, err error) bool { return err != nil }

func (m *sharedMapper) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return retry(m, func(d meta.RESTMapper) (schema.GroupVersionKind, error) { return d.KindFor(r) }, failed)
}

func (m *sharedMapper) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return retry(m, func(d meta.RESTMapper) ([]schema.GroupVersionKind, error) { return d.KindsFor(r) },
		func(v []schema.GroupVersionKind, _ error) bool { return len(v) == 0 })
}

func (m *sharedMapper) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return retry(m, func(d meta.RESTMapper) (schema.GroupVersionResource, error) { return d.ResourceFor(r) }, failed)
}

func (m *sharedMapper) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return retry(m, func(d meta.RESTMapper) ([]schema.GroupVersionResource, error) { return d.ResourcesFor(r) },
		func(v []schema.GroupVersionResource, _ error) bool { return len(v) == 0 })
}

func (m *sharedMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return retry(m, func(d meta.RESTMapper) (*meta.RESTMapping, error) { return d.RESTMapping(gk, versions...) }, failed)
}

func (m *sharedMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return retry(m, func(d meta.RESTMapper) ([]*meta.RESTMapping, error) { return d.RESTMappings(gk, versions...) },
		func(v []*meta.RESTMapping, _ error) bool { return len(v) == 0 })
}

func (m *sharedMapper) ResourceSingularizer(resource string) (string, error) {
	return retry(m, func(d meta.RESTMapper) (string, error) { return d.ResourceSingularizer(resource) }, failed)
}
