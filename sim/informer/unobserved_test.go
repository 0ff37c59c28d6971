package informer_test

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/informer"
)

var configMaps = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

// unobservedWorld is an apiserver with one ConfigMap default/x whose value
// the test writes, and the handler calls of the informers it watches.
type unobservedWorld struct {
	t     *testing.T
	clk   *clock.Clock
	srv   *apiserver.Server
	calls []string
}

func newUnobservedWorld(t *testing.T) *unobservedWorld {
	clk := clock.New(clock.Epoch)
	srv := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clk})
	srv.CreateDefaultNamespaces()
	return &unobservedWorld{t: t, clk: clk, srv: srv}
}

// write sets default/x's value (creating it first), and returns the
// resourceVersion of the change.
func (w *unobservedWorld) write(v string) uint64 {
	w.t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}, Data: map[string]string{"v": v}}
	if err := w.srv.Get(apiserver.Admin, client.ObjectKeyFromObject(cm), cm); err != nil {
		cm.Data = map[string]string{"v": v}
		if err := w.srv.Create(apiserver.Admin, cm); err != nil {
			w.t.Fatal(err)
		}
	} else {
		cm.Data["v"] = v
		if err := w.srv.Update(apiserver.Admin, cm, ""); err != nil {
			w.t.Fatal(err)
		}
	}
	w.clk.Step(0) // deliver
	rv, _ := strconv.ParseUint(cm.ResourceVersion, 10, 64)
	return rv
}

func (w *unobservedWorld) delete() {
	w.t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}}
	if err := w.srv.Delete(apiserver.Admin, cm, nil); err != nil {
		w.t.Fatal(err)
	}
	w.clk.Step(0)
}

// informer starts a process's informer of ConfigMaps with the windows us,
// recording its handler calls as "add v", "update v1->v2", "delete v".
func (w *unobservedWorld) informer(us ...*informer.Unobserved) *informer.Informer {
	c := informer.NewCache(w.srv.Watcher(), w.clk, apiservertest.Scheme(), nil, informer.WithUnobserved(us))
	inf := c.Informer(configMaps)
	value := func(o any) string {
		if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
			o = d.Obj
		}
		return o.(*corev1.ConfigMap).Data["v"]
	}
	inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.calls = append(w.calls, "add "+value(o)) },
		UpdateFunc: func(o, n any) { w.calls = append(w.calls, "update "+value(o)+"->"+value(n)) },
		DeleteFunc: func(o any) { w.calls = append(w.calls, "delete "+value(o)) },
	})
	return inf
}

func (w *unobservedWorld) saw(want ...string) {
	w.t.Helper()
	if !slices.Equal(w.calls, want) {
		w.t.Fatalf("the process's handlers were called:\n got %q\nwant %q", w.calls, want)
	}
}

func cached(inf *informer.Informer) string {
	o, ok, _ := inf.Indexer().GetByKey("default/x")
	if !ok {
		return "none"
	}
	return o.(*corev1.ConfigMap).Data["v"]
}

// An object unobserved from its creation: the process's informer never gets
// its creation or first update, its initial list and a relist leave it out,
// and the change the window ends at reaches it as its first sight of the
// object (an add of the newest state); later changes arrive as usual.
func TestAnObjectUnobservedFromItsCreationIsAbsentUntilTheUntilChange(t *testing.T) {
	w := newUnobservedWorld(t)
	u := &informer.Unobserved{GVK: configMaps, Key: "default/x"}
	defer u.Track(w.srv.Watcher())()
	w.write("1")         // its creation: withheld
	inf := w.informer(u) // a process starting now lists without it
	rv2 := w.write("2")  // withheld
	u.Until = rv2 + 1    // the window ends at the next change
	inf.Relist()         // a relist leaves it out too
	if got := cached(inf); got != "none" {
		t.Fatalf("while unobserved the cache shows x=%s", got)
	}
	w.saw()
	w.write("3") // the until change: the process sees the object for the first time
	w.write("4")
	w.saw("add 3", "update 3->4")
	inf.Relist()
	w.saw("add 3", "update 3->4") // nothing new: the relist agrees with the cache
}

// An object unobserved from one of its changes: its view is frozen just
// before that change (a process that starts meanwhile lists the old state
// too), and its deletion while withheld reaches the informer as a watch
// delivers it: a delete with the object's last state.
func TestADeletionWhileUnobservedDeliversADeleteWithTheLastState(t *testing.T) {
	w := newUnobservedWorld(t)
	w.write("1")
	rv := w.write("2")
	// From the next change: "3" and "4" are never seen.
	u := &informer.Unobserved{GVK: configMaps, Key: "default/x", From: rv + 1}
	defer u.Track(w.srv.Watcher())()
	first := w.informer(u)
	w.calls = nil
	w.write("3")            // withheld
	w.write("4")            // withheld
	second := w.informer(u) // a restart inside the window lists the frozen state
	if a, b := cached(first), cached(second); a != "2" || b != "2" {
		t.Fatalf("inside the window the caches show x=%s and x=%s, want the state before it (2)", a, b)
	}
	first.Relist()
	w.saw("add 2") // the second informer's initial list; the relist changes nothing
	w.calls = nil
	w.delete()
	w.saw("delete 4", "delete 4") // each informer: the deletion, with the last state
	if a, b := cached(first), cached(second); a != "none" || b != "none" {
		t.Fatalf("after the deletion the caches show x=%s and x=%s", a, b)
	}
	w.calls = nil
	w.write("5") // a new object of the same name: the window is over
	w.saw("add 5", "add 5")
}

// The heal ends a window that nothing else has: each informer applies the
// newest state it withheld, now.
func TestTheHealEndsAWindowWithTheNewestState(t *testing.T) {
	w := newUnobservedWorld(t)
	u := &informer.Unobserved{GVK: configMaps, Key: "default/x"}
	defer u.Track(w.srv.Watcher())()
	inf := w.informer(u)
	c := informer.NewCache(w.srv.Watcher(), w.clk, apiservertest.Scheme(), nil, informer.WithUnobserved([]*informer.Unobserved{u}))
	w.write("1")
	w.write("2")
	late := c.Informer(configMaps) // lists inside the window: nothing
	w.saw()
	if c.CatchUpUnobserved() {
		t.Fatal("a window still open caught up")
	}
	u.End()
	if !c.CatchUpUnobserved() {
		t.Fatal("the heal delivered nothing to an informer that listed inside the window")
	}
	if got := cached(late); got != "2" {
		t.Fatalf("after the heal the late informer shows x=%s, want 2", got)
	}
	if got := cached(inf); got != "none" {
		t.Fatalf("an informer of another cache caught up: x=%s", got)
	}
	w.write("3")
	w.saw("add 3") // the first informer's first sight of x: the window is over
}
