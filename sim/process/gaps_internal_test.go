package process

// The tests of this file show the Known gaps of doc.go that only the
// package's own names reach, each as it is today: a change that closes a gap
// breaks its test, and the item goes with it.

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/rng"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
)

// client-go v0.37's reflectors watch-list by default; the ordered factories'
// clients say they cannot, so their reflectors list and then watch.
func TestTheOrderedFactoriesClientsSayTheyCannotWatchList(t *testing.T) {
	for name, c := range map[string]any{ // lint:order-independent each case on its own
		"typed":    listThenWatch{fake.NewClientset()},
		"dynamic":  listThenWatchDynamic{dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())},
		"metadata": listThenWatchMetadata{metadatafake.NewSimpleMetadataClient(runtime.NewScheme())},
	} {
		if !watchlist.DoesClientNotSupportWatchListSemantics(c) {
			t.Errorf("the %s client of the ordered factories supports watch-list", name)
		}
	}
}

// TestTheHandlersOfOneInformerShareOneListenerInRegistrationOrder shows kcm's
// gap: the handlers registered on an informer of the ordered factories before
// it starts share one client-go listener, each event delivered to them one
// after the other in registration order, so no plan runs one's handler of an
// event before another's ends.
func TestTheHandlersOfOneInformerShareOneListenerInRegistrationOrder(t *testing.T) {
	inf := newOrderedInformer(cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Pod{}, 0, cache.Indexers{}))
	var got []string
	handler := func(name string) cache.ResourceEventHandler {
		return cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { got = append(got, name+" "+obj.(*corev1.Pod).Name) }}
	}
	var regs []*fanHandler
	for _, name := range []string{"replicaset", "deployment"} {
		reg, err := inf.AddEventHandler(handler(name))
		if err != nil {
			t.Fatal(err)
		}
		r, ok := reg.(*fanHandler)
		if !ok {
			t.Fatalf("handler %s registered as a %T, want one of the shared listener", name, reg)
		}
		regs = append(regs, r)
	}
	if regs[0].fan != regs[1].fan {
		t.Fatal("the two handlers have a listener each, want one shared")
	}
	for _, name := range []string{"a", "b"} {
		regs[0].fan.OnAdd(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}, false)
	}
	if want := []string{"replicaset a", "deployment a", "replicaset b", "deployment b"}; !slices.Equal(got, want) {
		t.Errorf("handlers ran %v, want %v", got, want)
	}
}

// client-go's feature gates are the test binary's, not a world's: while
// any world is alive, a reflector made anywhere in the binary (a parallel
// test's against a real cluster) lists and then watches, and once no world
// is alive the gates read as before.
func TestWhileAWorldIsAliveEveryReflectorOfTheBinaryListsThenWatches(t *testing.T) {
	installWorldGates()
	g := clientfeatures.FeatureGates()
	before := g.Enabled(clientfeatures.WatchListClient)
	// A process of a world that runs nothing (a real scheduler, so that a
	// log line of a leftover goroutine meanwhile is asked about as ever).
	p := &Process{env: Env{Scheduler: scheduler.New(clock.New(time.Unix(0, 0)), rng.New(1).Stream("scheduler"))}}
	globalMu.Lock()
	globalProcs = append(globalProcs, p)
	globalMu.Unlock()
	alive := g.Enabled(clientfeatures.WatchListClient)
	unregisterGlobal(p)
	if alive {
		t.Errorf("with a world alive, client-go's WatchListClient reads on outside it")
	}
	if after := g.Enabled(clientfeatures.WatchListClient); after != before || !after {
		t.Errorf("with no world alive, client-go's WatchListClient reads %v (%v before one): want client-go v0.37's default, on", after, before)
	}
}
