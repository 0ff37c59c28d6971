package informer_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/informer"
)

var ctx = context.Background()

// A change reaches the cache only once its lag has elapsed on the virtual clock: until
// then a read through the cache does not see it.
func TestChangeBecomesVisibleOnlyAfterItsLag(t *testing.T) {
	w := newWorld(t, lags(5*time.Second))
	inf := w.cache.Informer(configMapGVK)
	w.src.create(configMap("ns", "x", nil, nil))

	var cm corev1.ConfigMap
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &cm); !apierrors.IsNotFound(err) {
		t.Fatalf("Get right after the commit: err = %v, want NotFound", err)
	}
	if inf.Pending() != 1 {
		t.Fatalf("Pending = %d, want 1", inf.Pending())
	}
	w.clk.Step(5*time.Second - time.Nanosecond)
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &cm); !apierrors.IsNotFound(err) {
		t.Fatalf("Get 1ns before the lag elapses: err = %v, want NotFound", err)
	}
	w.clk.Step(time.Nanosecond)
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &cm); err != nil {
		t.Fatalf("Get once the lag elapsed: %v", err)
	}
	if inf.Pending() != 0 || inf.LastSyncResourceVersion() != 1 {
		t.Fatalf("Pending = %d, LastSyncResourceVersion = %d; want 0, 1", inf.Pending(), inf.LastSyncResourceVersion())
	}
}

// With no lag an event is still not applied inside the commit: it is applied when the
// kernel next fires the timers due now, as a watch event arrives after the write returns.
func TestZeroLagAppliesWhenTheKernelFiresTimers(t *testing.T) {
	w := newWorld(t, nil)
	inf := w.cache.Informer(configMapGVK)
	w.src.create(configMap("ns", "x", nil, nil))
	if got := len(inf.Indexer().List()); got != 0 {
		t.Fatalf("store has %d objects inside the commit, want 0", got)
	}
	w.clk.Step(0)
	if got := storeContent(inf.Indexer()); !slices.Equal(got, []string{"ns/x@1"}) {
		t.Fatalf("store = %v, want [ns/x@1]", got)
	}
}

// A watch delivers events in resourceVersion order: a later event that draws a shorter
// lag waits for the earlier one, and both are applied when the earlier one is due.
func TestLaterEventWithShorterLagWaitsForEarlierOne(t *testing.T) {
	w := newWorld(t, lags(10*time.Second, time.Second))
	inf := w.cache.Informer(configMapGVK)
	rec := &recorder{clk: w.clk}
	inf.AddEventHandler(rec)

	cm := w.src.create(configMap("ns", "x", nil, nil)).(*corev1.ConfigMap)
	cm.Data = map[string]string{"k": "v"}
	w.src.update(cm)

	w.clk.Step(time.Second)
	if got := rec.take(); got != "" {
		t.Fatalf("after 1s the update overtook the create: %s", got)
	}
	w.clk.Step(9 * time.Second)
	want := "10s add ns/x@1 initial=false\n10s update ns/x@1 -> ns/x@2"
	if got := rec.take(); got != want {
		t.Fatalf("handler calls:\n%s\nwant:\n%s", got, want)
	}
}

// An event that must wait for an earlier one is applied in the earlier one's batch,
// by the one timer: no worker woken by the first event can read the store between
// the two, as client-go's processLoop pops an event already in its FIFO right after
// its predecessor. An event that arrives after its own lag is drawn later has a
// timer of its own.
func TestAnEventThatWaitsForAnEarlierOneIsAppliedInItsBatch(t *testing.T) {
	w := newWorld(t, lags(10*time.Second, time.Second, 20*time.Second))
	inf := w.cache.Informer(configMapGVK)
	cm := w.src.create(configMap("ns", "x", nil, nil)).(*corev1.ConfigMap)
	cm.Data = map[string]string{"k": "v"}
	cm = w.src.update(cm).(*corev1.ConfigMap)
	cm.Data = map[string]string{"k": "w"}
	w.src.update(cm)
	if n := w.clk.Pending(); n != 2 {
		t.Fatalf("%d timers pending, want 2: one for the batch of rv 1 and 2, one for rv 3", n)
	}
	w.clk.Step(10*time.Second - time.Nanosecond)
	w.clk.FireNext()
	if got := storeContent(inf.Indexer()); !slices.Equal(got, []string{"ns/x@2"}) {
		t.Fatalf("after the first timer the store is %v, want [ns/x@2]: both events of the batch", got)
	}
	w.clk.Step(10 * time.Second)
	if got := storeContent(inf.Indexer()); !slices.Equal(got, []string{"ns/x@3"}) {
		t.Fatalf("store = %v, want [ns/x@3]", got)
	}
}

// Property: whatever lags are drawn and whenever changes are committed, each event is
// applied at max(commit time + lag, time the previous event was applied), in
// resourceVersion order, and once all timers fired the store equals the source.
func TestEventsApplyAtMaxOfOwnLagAndPreviousEvent(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var drawn []time.Duration
		lag := func() time.Duration {
			d := time.Duration(rapid.IntRange(0, 20).Draw(rt, "lagSeconds")) * time.Second
			drawn = append(drawn, d)
			return d
		}
		w := newWorld(rt, lag)
		inf := w.cache.Informer(configMapGVK)
		type applied struct {
			rv uint64
			at time.Time
		}
		var got []applied
		record := func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			rv, _ := strconv.ParseUint(obj.(client.Object).GetResourceVersion(), 10, 64)
			got = append(got, applied{rv, w.clk.Now()})
		}
		inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc:    func(obj any, _ bool) { record(obj) },
			UpdateFunc: func(_, obj any) { record(obj) },
			DeleteFunc: record,
		})

		var commits []time.Time
		names := []string{"a", "b", "c"}
		for range rapid.IntRange(1, 30).Draw(rt, "ops") {
			w.clk.Step(time.Duration(rapid.IntRange(0, 5).Draw(rt, "gapSeconds")) * time.Second)
			name := rapid.SampledFrom(names).Draw(rt, "name")
			objs, _ := w.src.List(configMapGVK)
			i := slices.IndexFunc(objs, func(o client.Object) bool { return o.GetName() == name })
			switch {
			case i < 0:
				w.src.create(configMap("ns", name, nil, nil))
			case rapid.Bool().Draw(rt, "delete"):
				w.src.delete(objs[i])
			default:
				cm := objs[i].DeepCopyObject().(*corev1.ConfigMap)
				cm.Data = map[string]string{"n": strconv.Itoa(len(commits))}
				w.src.update(cm)
			}
			commits = append(commits, w.clk.Now())
		}
		w.clk.Step(time.Hour)

		if len(got) != len(commits) {
			rt.Fatalf("%d events applied, %d committed", len(got), len(commits))
		}
		var prev time.Time
		for n, a := range got {
			want := commits[n].Add(drawn[n])
			if want.Before(prev) {
				want = prev
			}
			if a.rv != uint64(n+1) || !a.at.Equal(want) {
				rt.Fatalf("event %d applied as rv %d at %v, want rv %d at %v", n, a.rv, a.at, n+1, want)
			}
			prev = a.at
		}
		if s, c := storeContent(inf.Indexer()), sourceContent(w.src, configMapGVK); !slices.Equal(s, c) {
			rt.Fatalf("store %v != source %v", s, c)
		}
	})
}

// A held informer queues events; Release applies all of them, in order, at the current
// virtual time, even those whose lag has not elapsed.
func TestHoldQueuesEventsAndReleaseAppliesThemNow(t *testing.T) {
	w := newWorld(t, lags(time.Second))
	inf := w.cache.Informer(configMapGVK)
	rec := &recorder{clk: w.clk}
	inf.AddEventHandler(rec)

	inf.Hold()
	a := w.src.create(configMap("ns", "a", nil, nil))
	w.src.create(configMap("ns", "b", nil, nil))
	w.src.delete(a)
	w.clk.Step(time.Minute)
	if got := rec.take(); got != "" || inf.Pending() != 3 {
		t.Fatalf("held informer applied events (pending %d): %s", inf.Pending(), got)
	}
	inf.Release()
	want := "1m0s add ns/a@1 initial=false\n1m0s add ns/b@2 initial=false\n1m0s delete ns/a@3"
	if got := rec.take(); got != want || inf.Pending() != 0 {
		t.Fatalf("after Release (pending %d):\n%s\nwant:\n%s", inf.Pending(), got, want)
	}
	if got := storeContent(inf.Indexer()); !slices.Equal(got, []string{"ns/b@2"}) {
		t.Fatalf("store = %v", got)
	}

	// Events scheduled before a hold also wait for the release.
	w.src.create(configMap("ns", "c", nil, nil)) // due at 1m1s
	inf.Hold()
	w.clk.Step(time.Minute)
	if got := rec.take(); got != "" {
		t.Fatalf("event applied while held: %s", got)
	}
	inf.Release()
	if got := rec.take(); got != "2m0s add ns/c@4 initial=false" {
		t.Fatalf("after second Release: %s", got)
	}
}

// A relist after missed events (a watch restart) makes the store equal to the source, as
// client-go's RealFIFO Replace does (tools/cache controller.go processReplacedAllInfo):
// objects gone get OnDelete(DeletedFinalStateUnknown) carrying the last cached state,
// then new objects OnAdd(obj, false) and changed ones OnUpdate in list order; an
// unchanged object gets no call (sharedIndexInformer.OnUpdate treats an equal
// resourceVersion as a resync). Queued events the list covers are dropped.
func TestRelistAfterMissedEventsReplacesTheStore(t *testing.T) {
	w := newWorld(t, lags(time.Second))
	for _, n := range []string{"a", "b", "c", "d"} {
		w.src.create(configMap("ns", n, nil, nil))
	}
	inf := w.cache.Informer(configMapGVK)
	rec := &recorder{clk: w.clk}
	inf.AddEventHandler(rec)
	rec.take()

	inf.Hold()
	objs, _ := w.src.List(configMapGVK)
	a := objs[0].DeepCopyObject().(*corev1.ConfigMap)
	a.Data = map[string]string{"k": "v"}
	w.src.update(a)                                   // rv 5
	w.src.delete(objs[1])                             // rv 6: b
	w.src.delete(objs[3])                             // rv 7: d
	w.src.create(configMap("ns", "e", nil, nil))      // rv 8
	w.src.create(configMap("another", "f", nil, nil)) // rv 9
	if inf.Pending() != 5 {
		t.Fatalf("Pending = %d, want 5", inf.Pending())
	}

	inf.Relist()
	want := `0s delete unknown key=ns/b last=ns/b@2
0s delete unknown key=ns/d last=ns/d@4
0s add another/f@9 initial=false
0s update ns/a@1 -> ns/a@5
0s add ns/e@8 initial=false`
	if got := rec.take(); got != want {
		t.Fatalf("handler calls on relist:\n%s\nwant:\n%s", got, want)
	}
	if s, c := storeContent(inf.Indexer()), sourceContent(w.src, configMapGVK); !slices.Equal(s, c) {
		t.Fatalf("store %v != source %v", s, c)
	}
	if inf.Pending() != 0 || inf.LastSyncResourceVersion() != 9 {
		t.Fatalf("Pending = %d, LastSyncResourceVersion = %d; want 0, 9", inf.Pending(), inf.LastSyncResourceVersion())
	}
	inf.Release()
	w.clk.Step(time.Minute)
	if got := rec.take(); got != "" {
		t.Fatalf("dropped events were applied after the relist: %s", got)
	}

	// The watch goes on after the relist.
	w.src.create(configMap("ns", "g", nil, nil))
	w.clk.Step(time.Second)
	if got := rec.take(); got != "1m1s add ns/g@10 initial=false" {
		t.Fatalf("after relist, new event: %q", got)
	}
	// A relist that finds nothing new calls no handler.
	inf.Relist()
	if got := rec.take(); got != "" {
		t.Fatalf("relist of an up-to-date store: %s", got)
	}
}

// Relisting drops queued events that were not missed but only delayed: each object gets
// one call reflecting the list, not the event sequence.
func TestRelistDropsLaggingEventsItCovers(t *testing.T) {
	w := newWorld(t, lags(time.Minute))
	inf := w.cache.Informer(configMapGVK)
	rec := &recorder{clk: w.clk}
	inf.AddEventHandler(rec)
	a := w.src.create(configMap("ns", "a", nil, nil))
	w.src.delete(a)
	w.src.create(configMap("ns", "b", nil, nil))
	inf.Relist()
	w.clk.Step(time.Hour)
	if got := rec.take(); got != "0s add ns/b@3 initial=false" {
		t.Fatalf("handler calls: %q", got)
	}
	if w.clk.Pending() != 0 {
		t.Fatalf("%d timers left on the clock; dropped deliveries must stop theirs", w.clk.Pending())
	}
}

// A handler that joins a synced informer first receives OnAdd(obj, isInInitialList=true)
// for each cached object, as client-go's sharedIndexInformer.AddEventHandlerWithOptions;
// later changes come with isInInitialList=false.
func TestHandlerAddedAfterSyncSeesInitialList(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(configMap("b", "x", nil, nil))
	w.src.create(configMap("a", "y", nil, nil))
	w.src.create(configMap("a", "x", nil, nil))
	inf := w.cache.Informer(configMapGVK)
	if !inf.HasSynced() {
		t.Fatal("informer not synced after its first use")
	}
	rec := &recorder{clk: w.clk}
	inf.AddEventHandler(rec)
	want := "0s add a/x@3 initial=true\n0s add a/y@2 initial=true\n0s add b/x@1 initial=true"
	if got := rec.take(); got != want {
		t.Fatalf("late handler:\n%s\nwant:\n%s", got, want)
	}
	w.src.create(configMap("c", "z", nil, nil))
	w.clk.Step(0)
	if got := rec.take(); got != "0s add c/z@4 initial=false" {
		t.Fatalf("event after join: %q", got)
	}
}

// A crashed process's cache stops: deliveries already scheduled never fire into it and
// later commits are not received; the store keeps its last content.
func TestStopPreventsPendingDeliveries(t *testing.T) {
	w := newWorld(t, lags(5*time.Second))
	w.src.create(configMap("ns", "old", nil, nil))
	inf := w.cache.Informer(configMapGVK)
	rec := &recorder{clk: w.clk}
	inf.AddEventHandler(rec)
	rec.take()
	w.src.create(configMap("ns", "x", nil, nil))

	w.cache.Stop()
	w.clk.Step(time.Minute)
	w.src.create(configMap("ns", "y", nil, nil))
	w.clk.Step(time.Minute)
	if got := rec.take(); got != "" {
		t.Fatalf("stopped cache received: %s", got)
	}
	if inf.Pending() != 0 || w.clk.Pending() != 0 || w.src.activeWatches() != 0 {
		t.Fatalf("after Stop: informer pending %d, clock timers %d, watches %d; want 0, 0, 0",
			inf.Pending(), w.clk.Pending(), w.src.activeWatches())
	}
	if got := storeContent(inf.Indexer()); !slices.Equal(got, []string{"ns/old@1"}) {
		t.Fatalf("store after Stop = %v", got)
	}
	var cm corev1.ConfigMap
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "old"}, &cm); err != nil {
		t.Fatalf("a stopped cache's store stays readable: %v", err)
	}
	// A kind first asked for after the stop never syncs; the real read times out.
	err := w.cache.List(ctx, &corev1.SecretList{})
	if !apierrors.IsTimeout(err) || err.Error() != "Timeout: failed waiting for *v1.Secret Informer to sync" {
		t.Fatalf("List of a new kind after Stop: %v", err)
	}
}

// controller-runtime starts one informer per kind, lazily: the first read of a kind lists
// it once, later reads use the same informer.
func TestInformersAreCreatedOncePerKindInDeterministicOrder(t *testing.T) {
	w := newWorld(t, nil)
	var cms corev1.ConfigMapList
	for range 3 {
		if err := w.cache.List(ctx, &cms); err != nil {
			t.Fatal(err)
		}
	}
	var secret corev1.Secret
	_ = w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "s"}, &secret)
	w.cache.Informer(corev1.SchemeGroupVersion.WithKind("Pod"))
	if w.src.lists != 3 {
		t.Fatalf("%d lists for 3 kinds", w.src.lists)
	}
	var kinds []string
	for _, i := range w.cache.Informers() {
		kinds = append(kinds, i.GVK().Kind)
	}
	if want := []string{"ConfigMap", "Pod", "Secret"}; !cmp.Equal(kinds, want) {
		t.Fatalf("Informers() = %v, want %v", kinds, want)
	}
}

// The lag function is asked once per informer, with the informer's kind.
func TestLagIsChosenPerKind(t *testing.T) {
	s := newScheme(t)
	src := newFakeSource(s)
	clk := clock.New(clock.Epoch)
	c := informer.NewCache(src, clk, s, func(gvk schema.GroupVersionKind) informer.Lag {
		if gvk.Kind == "Secret" {
			return lags(time.Minute)
		}
		return nil
	})
	cms, secrets := c.Informer(configMapGVK), c.Informer(corev1.SchemeGroupVersion.WithKind("Secret"))
	src.create(configMap("ns", "x", nil, nil))
	src.create(&corev1.Secret{ObjectMeta: configMap("ns", "x", nil, nil).ObjectMeta})
	clk.Step(time.Second)
	if got := fmt.Sprint(len(cms.Indexer().List()), len(secrets.Indexer().List())); got != "1 0" {
		t.Fatalf("objects cached (configmaps secrets) after 1s = %s, want 1 0", got)
	}
}
