package informer_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/informer"
)

// Every handler of an informer is called as the event is applied, at that
// instant, with the store already updated: no handler lags behind another
// or behind the store.
func TestHandlersRunAsTheStoreIsUpdated(t *testing.T) {
	w := newWorld(t, lags(3*time.Second))
	inf := w.cache.Informer(configMapGVK)
	var calls []string
	for _, name := range []string{"slow", "fast"} {
		inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			_, inStore, _ := inf.Indexer().GetByKey("ns/x")
			calls = append(calls, fmt.Sprintf("%s at %s, in the store: %t", name, w.clk.Now().Sub(clock.Epoch), inStore))
		}})
	}
	w.src.create(configMap("ns", "x", nil, nil))
	w.clk.Step(time.Hour)
	if want := []string{"slow at 3s, in the store: true", "fast at 3s, in the store: true"}; !slices.Equal(calls, want) {
		t.Fatalf("handler calls %q, want %q", calls, want)
	}
}

// An informer never resyncs: a relist that finds an object unchanged calls no
// handler, and hours of virtual time (past controller-runtime's 10h
// SyncPeriod) bring no call and leave no timer.
func TestAnInformerNeverResyncs(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(configMap("ns", "x", nil, nil))
	inf := w.cache.Informer(configMapGVK)
	rec := &recorder{clk: w.clk}
	inf.AddEventHandler(rec)
	rec.take() // the initial list
	inf.Relist()
	w.clk.Step(11 * time.Hour)
	if got := rec.take(); got != "" || w.clk.Pending() != 0 {
		t.Fatalf("handler calls %q and %d timers after a relist and 11h, want none", got, w.clk.Pending())
	}
}

// A list (the initial one, a relist) is one call of the source, applied at
// once; LastSyncResourceVersion is that of the newest event applied, not of
// one received and still lagging.
func TestAListIsOneSnapshotAndLastSyncIsTheNewestApplied(t *testing.T) {
	w := newWorld(t, lags(5*time.Second))
	w.src.create(configMap("ns", "a", nil, nil))
	inf := w.cache.Informer(configMapGVK)
	if w.src.lists != 1 || inf.LastSyncResourceVersion() != 1 {
		t.Fatalf("after the initial list: %d lists, LastSyncResourceVersion %d; want 1 and 1", w.src.lists, inf.LastSyncResourceVersion())
	}
	w.src.create(configMap("ns", "b", nil, nil)) // received, lagging 5s
	if inf.Pending() != 1 || inf.LastSyncResourceVersion() != 1 {
		t.Fatalf("an event received: pending %d, LastSyncResourceVersion %d; want 1 and 1", inf.Pending(), inf.LastSyncResourceVersion())
	}
	inf.Relist()
	if got := storeContent(inf.Indexer()); w.src.lists != 2 || !slices.Equal(got, []string{"ns/a@1", "ns/b@2"}) || inf.LastSyncResourceVersion() != 2 {
		t.Fatalf("after a relist: %d lists, store %v, LastSyncResourceVersion %d; want 2, both, 2", w.src.lists, got, inf.LastSyncResourceVersion())
	}
}

// An unobserved window is the informer's, so every handler of it misses the
// object, whichever controller registered it, and so does its store.
func TestAnUnobservedWindowHidesTheObjectFromEveryHandler(t *testing.T) {
	w := newUnobservedWorld(t)
	u := &informer.Unobserved{GVK: configMaps, Key: "default/x"}
	defer u.Track(w.srv.Watcher())()
	inf := w.informer(u) // one controller's handler
	other := 0
	inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{ // another's
		AddFunc:    func(any) { other++ },
		UpdateFunc: func(any, any) { other++ },
	})
	w.write("1")
	w.write("2")
	w.saw()
	if other != 0 || cached(inf) != "none" {
		t.Fatalf("the other handler was called %d times and the store shows x=%s; want neither to see x", other, cached(inf))
	}
}

// An object unobserved from its creation and deleted inside the window
// reaches the informer as a delete, with its last state, though the
// informer never had it.
func TestADeletionOfAnObjectNeverSeenDeliversADelete(t *testing.T) {
	w := newUnobservedWorld(t)
	u := &informer.Unobserved{GVK: configMaps, Key: "default/x"}
	defer u.Track(w.srv.Watcher())()
	inf := w.informer(u)
	w.write("1")
	w.write("2")
	w.delete()
	w.saw("delete 2")
	if got := cached(inf); got != "none" {
		t.Fatalf("after the deletion the cache shows x=%s", got)
	}
}

// A filter of several namespaces makes one informer of the kind, not one per
// namespace.
func TestAFilterOfSeveralNamespacesIsOneInformer(t *testing.T) {
	w := newWorld(t, nil, informer.WithFilter(func(schema.GroupVersionKind, bool) *informer.Filter {
		return &informer.Filter{Namespaces: map[string]informer.Selectors{"a": {}, "b": {}}}
	}))
	w.src.create(configMap("a", "x", nil, nil))
	w.src.create(configMap("b", "y", nil, nil))
	var list corev1.ConfigMapList
	if err := w.cache.List(ctx, &list); err != nil {
		t.Fatal(err)
	}
	if n := len(w.cache.Informers()); n != 1 || len(list.Items) != 2 || w.src.lists != 1 {
		t.Fatalf("%d informers, %d lists, %d objects; want one informer listing both namespaces once", n, w.src.lists, len(list.Items))
	}
}

// An object whose transform fails is not cached, and nothing says so: reads
// succeed without it.
func TestAnObjectWhoseTransformFailsIsDroppedSilently(t *testing.T) {
	w := newWorld(t, nil, informer.WithFilter(func(schema.GroupVersionKind, bool) *informer.Filter {
		return &informer.Filter{All: informer.Selectors{Transform: func(o any) (any, error) {
			if o.(*corev1.ConfigMap).Name == "bad" {
				return nil, errors.New("cannot transform")
			}
			return o, nil
		}}}
	}))
	w.src.create(configMap("ns", "bad", nil, nil))
	w.src.create(configMap("ns", "good", nil, nil))
	var list corev1.ConfigMapList
	if err := w.cache.List(ctx, &list); err != nil || len(list.Items) != 1 || list.Items[0].Name != "good" {
		t.Fatalf("List = %d items, %v; want good alone and no error", len(list.Items), err)
	}
}

// The informers of one kind that share one lag stream draw from it in
// delivery order: adding an informer of another form shifts the draws the
// first one gets.
func TestAnotherFormsInformerShiftsTheLagsTheOthersDraw(t *testing.T) {
	lagsSeen := func(withMetadata bool) []time.Duration {
		s := newScheme(t)
		src := newFakeSource(s)
		clk := clock.New(clock.Epoch)
		next := time.Duration(0)
		stream := func() time.Duration { next += time.Second; return next } // the kind's one stream
		c := informer.NewCache(src, clk, s, func(schema.GroupVersionKind) informer.Lag { return stream })
		typed := c.FormInformer(configMapGVK, forms.Typed)
		if withMetadata {
			c.FormInformer(configMapGVK, forms.Metadata)
		}
		var at []time.Duration
		typed.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(any) { at = append(at, clk.Now().Sub(clock.Epoch)) }})
		src.create(configMap("ns", "x", nil, nil))
		src.create(configMap("ns", "y", nil, nil))
		clk.Step(time.Hour)
		return at
	}
	alone, shared := lagsSeen(false), lagsSeen(true)
	if !slices.Equal(alone, []time.Duration{time.Second, 2 * time.Second}) || !slices.Equal(shared, []time.Duration{time.Second, 3 * time.Second}) {
		t.Fatalf("the typed informer applied x and y at %v alone and at %v beside a metadata informer; want [1s 2s] and [1s 3s]", alone, shared)
	}
}

// An unstructured informer of a kind with a Go type holds what the
// unstructured converter makes of the typed object.
func TestAnUnstructuredInformerHoldsTheConvertersRendering(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}})
	gvk := corev1.SchemeGroupVersion.WithKind("Service")
	typed, _, _ := w.cache.FormInformer(gvk, forms.Typed).Indexer().GetByKey("ns/s")
	u, _, _ := w.cache.FormInformer(gvk, forms.Unstructured).Indexer().GetByKey("ns/s")
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	got := u.(*unstructured.Unstructured).Object
	delete(got, "apiVersion")
	delete(got, "kind")
	delete(want, "apiVersion")
	delete(want, "kind")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the unstructured informer holds\n%v\nwant the converter's\n%v", got, want)
	}
}

// Without a RESTMapper every kind is namespaced (a cluster-scoped object is
// found only under the empty namespace) and a kind nobody serves is read as
// any other: NotFound, not a no-match error.
func TestWithoutARESTMapperEveryKindIsNamespaced(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod"}})
	var ns corev1.Namespace
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ignored", Name: "prod"}, &ns); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a cluster-scoped object with a namespace: %v, want NotFound", err)
	}
	if err := w.cache.Get(ctx, client.ObjectKey{Name: "prod"}, &ns); err != nil {
		t.Fatalf("Get of a cluster-scoped object with no namespace: %v", err)
	}
	var s corev1.Secret
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "s"}, &s); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a kind nothing serves: %v, want NotFound", err)
	}
}
