package informer_test

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/informer"
)

// fakeSource is a tiny apiserver: one resourceVersion counter, objects by kind and key,
// and watchers called synchronously on every commit.
type fakeSource struct {
	scheme   *runtime.Scheme
	rv       uint64
	objs     map[schema.GroupVersionKind]map[string]client.Object
	watchers map[schema.GroupVersionKind][]*fakeWatch
	lists    int
}

type fakeWatch struct {
	fn      func(apiserver.Event)
	stopped bool
}

func newFakeSource(s *runtime.Scheme) *fakeSource {
	return &fakeSource{
		scheme:   s,
		objs:     map[schema.GroupVersionKind]map[string]client.Object{},
		watchers: map[schema.GroupVersionKind][]*fakeWatch{},
	}
}

func (s *fakeSource) List(gvk schema.GroupVersionKind) ([]client.Object, uint64) {
	s.lists++
	var out []client.Object
	for _, o := range s.objs[gvk] {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b client.Object) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	return out, s.rv
}

func (s *fakeSource) Watch(gvk schema.GroupVersionKind, fn func(apiserver.Event)) func() {
	w := &fakeWatch{fn: fn}
	s.watchers[gvk] = append(s.watchers[gvk], w)
	return func() { w.stopped = true }
}

// commit stores obj (or removes it for watch.Deleted) with a new resourceVersion and
// tells the watchers. It returns the stored snapshot.
func (s *fakeSource) commit(t watch.EventType, obj client.Object) client.Object {
	gvk, err := apiutil.GVKForObject(obj, s.scheme)
	if err != nil {
		panic(err)
	}
	key := obj.GetNamespace() + "/" + obj.GetName()
	if t == watch.Deleted {
		obj = s.objs[gvk][key]
	}
	s.rv++
	snap := obj.DeepCopyObject().(client.Object)
	snap.SetResourceVersion(strconv.FormatUint(s.rv, 10))
	if s.objs[gvk] == nil {
		s.objs[gvk] = map[string]client.Object{}
	}
	if t == watch.Deleted {
		delete(s.objs[gvk], key)
	} else {
		s.objs[gvk][key] = snap
	}
	for _, w := range s.watchers[gvk] {
		if !w.stopped {
			w.fn(apiserver.Event{Type: t, GVK: gvk, Object: snap, ResourceVersion: s.rv})
		}
	}
	return snap
}

func (s *fakeSource) create(obj client.Object) client.Object { return s.commit(watch.Added, obj) }
func (s *fakeSource) update(obj client.Object) client.Object { return s.commit(watch.Modified, obj) }
func (s *fakeSource) delete(obj client.Object) client.Object { return s.commit(watch.Deleted, obj) }

// activeWatches counts the subscriptions not stopped.
func (s *fakeSource) activeWatches() int {
	n := 0
	for _, ws := range s.watchers {
		for _, w := range ws {
			if !w.stopped {
				n++
			}
		}
	}
	return n
}

// fataler is what test helpers need of *testing.T and *rapid.T.
type fataler interface{ Fatal(args ...any) }

func newScheme(t fataler) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

var configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

func configMap(ns, name string, labels map[string]string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Data:       data,
	}
}

// lags returns a Lag that yields ds in turn, then the last one forever.
func lags(ds ...time.Duration) informer.Lag {
	return func() time.Duration {
		d := ds[0]
		if len(ds) > 1 {
			ds = ds[1:]
		}
		return d
	}
}

// world is a fake apiserver, a virtual clock and one process's cache.
type world struct {
	src   *fakeSource
	clk   *clock.Clock
	cache *informer.Cache
}

func newWorld(t fataler, lag informer.Lag, opts ...informer.Option) *world {
	s := newScheme(t)
	w := &world{src: newFakeSource(s), clk: clock.New(clock.Epoch)}
	w.cache = informer.NewCache(w.src, w.clk, s, func(schema.GroupVersionKind) informer.Lag { return lag }, opts...)
	return w
}

// recorder is a ResourceEventHandler that writes each call as one line.
type recorder struct {
	clk   *clock.Clock
	calls []string
}

func (r *recorder) at() string { return r.clk.Now().Sub(clock.Epoch).String() }

func (r *recorder) OnAdd(obj any, isInInitialList bool) {
	r.calls = append(r.calls, fmt.Sprintf("%s add %s initial=%t", r.at(), describe(obj), isInInitialList))
}

func (r *recorder) OnUpdate(old, new any) {
	r.calls = append(r.calls, fmt.Sprintf("%s update %s -> %s", r.at(), describe(old), describe(new)))
}

func (r *recorder) OnDelete(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		r.calls = append(r.calls, fmt.Sprintf("%s delete unknown key=%s last=%s", r.at(), d.Key, describe(d.Obj)))
		return
	}
	r.calls = append(r.calls, fmt.Sprintf("%s delete %s", r.at(), describe(obj)))
}

func (r *recorder) take() string {
	s := strings.Join(r.calls, "\n")
	r.calls = nil
	return s
}

// describe names an object as namespace/name@resourceVersion.
func describe(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%s/%s@%s", m.GetNamespace(), m.GetName(), m.GetResourceVersion())
}

// storeContent is the indexer's content as sorted namespace/name@rv lines.
func storeContent(idx cache.Indexer) []string {
	var out []string
	for _, o := range idx.List() {
		out = append(out, describe(o))
	}
	slices.Sort(out)
	return out
}

// sourceContent is the source's content of one kind, in the same form.
func sourceContent(s *fakeSource, gvk schema.GroupVersionKind) []string {
	objs, _ := s.List(gvk)
	var out []string
	for _, o := range objs {
		out = append(out, describe(o))
	}
	slices.Sort(out)
	return out
}
