package informer_test

import (
	"slices"
	"testing"
	"time"

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

// A stale informer (the plan's stale fault: a restart onto an apiserver whose
// watch cache is behind) lists the state as it was Age ago, then gets each
// later event Age after its commit, and everything still missing when the
// lagging apiserver has caught up (Until); after that, events arrive as usual.
func TestAStaleInformerListsThePastAndCatchesUpAtUntil(t *testing.T) {
	clk := clock.New(clock.Epoch)
	srv := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clk})
	srv.CreateDefaultNamespaces()
	write := func(data string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}, Data: map[string]string{"v": data}}
		if data == "1" {
			if err := srv.Create(apiserver.Admin, cm); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := srv.Get(apiserver.Admin, client.ObjectKeyFromObject(cm), cm); err != nil {
			t.Fatal(err)
		}
		cm.Data["v"] = data
		if err := srv.Update(apiserver.Admin, cm, ""); err != nil {
			t.Fatal(err)
		}
	}
	write("1") // at 0s
	clk.Step(10 * time.Second)
	write("2") // at 10s
	clk.Step(10 * time.Second)
	write("3") // at 20s

	// The restart, at 20s, lands on an apiserver 15s behind, until 35s.
	c := informer.NewCache(srv.Watcher(), clk, apiservertest.Scheme(), nil,
		informer.WithStale(informer.Stale{Age: 15 * time.Second, Until: clk.Now().Add(15 * time.Second)}))
	inf := c.Informer(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	value := func() string {
		o, ok, _ := inf.Indexer().GetByKey("default/x")
		if !ok {
			return "none"
		}
		return o.(*corev1.ConfigMap).Data["v"]
	}
	var seen []string
	observe := func(d time.Duration) {
		clk.Step(d)
		seen = append(seen, clk.Now().Sub(clock.Epoch).String()+"="+value())
	}
	seen = append(seen, "20s="+value()) // the state as of 5s
	observe(4 * time.Second)            // 24s: still before 10s+15s
	observe(time.Second)                // 25s: the 10s write, 15s late
	write("4")                          // at 25s: due at 40s, but the apiserver has caught up at 35s
	observe(9 * time.Second)            // 34s: the 20s write is due at 35s
	observe(time.Second)                // 35s: caught up, both
	write("5")                          // at 35s: no longer behind
	observe(0)
	want := []string{"20s=1", "24s=1", "25s=2", "34s=2", "35s=4", "35s=5"}
	if !slices.Equal(seen, want) {
		t.Fatalf("the value the stale cache shows over time:\n got %v\nwant %v", seen, want)
	}
}

// A stale cache aimed at a resourceVersion (rev=) lists the state just after
// the write that made it, even when the next write committed at the same
// instant, and gets every later event when the lagging watch cache has
// caught up (Until). Scoped to one kind (kind=), it leaves the informers of
// the other kinds fresh: one resource's watch cache lags, the others do not.
func TestAStaleCacheAtAResourceVersionOfOneKindLeavesTheOtherKindsFresh(t *testing.T) {
	clk := clock.New(clock.Epoch)
	srv := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clk})
	srv.CreateDefaultNamespaces()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}, Data: map[string]string{"v": "1"}}
	if err := srv.Create(apiserver.Admin, cm); err != nil {
		t.Fatal(err)
	}
	rv := srv.ResourceVersion() // the state just after v=1
	cm.Data["v"] = "2"          // at the same instant
	if err := srv.Update(apiserver.Admin, cm, ""); err != nil {
		t.Fatal(err)
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s"}}
	if err := srv.Create(apiserver.Admin, sec); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Second)

	configMaps := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	c := informer.NewCache(srv.Watcher(), clk, apiservertest.Scheme(), nil,
		informer.WithStale(informer.Stale{Age: 5 * time.Second, Until: clk.Now().Add(5 * time.Second), RV: rv,
			Kinds: func(gvk schema.GroupVersionKind) bool { return gvk == configMaps }, Scope: "/v1/ConfigMap"}))
	cms := c.Informer(configMaps)
	secrets := c.Informer(schema.GroupVersionKind{Version: "v1", Kind: "Secret"})
	value := func() string {
		o, ok, _ := cms.Indexer().GetByKey("default/x")
		if !ok {
			return "none"
		}
		return o.(*corev1.ConfigMap).Data["v"]
	}
	if got := value(); got != "1" {
		t.Errorf("the ConfigMap at resourceVersion %d: v=%s, want 1 (the write just after it shares its instant)", rv, got)
	}
	if _, ok, _ := secrets.Indexer().GetByKey("default/s"); !ok {
		t.Errorf("the Secret, created after resourceVersion %d, is missing: the Secrets' informer should be fresh", rv)
	}
	clk.Step(4*time.Second + 999*time.Millisecond)
	if got := value(); got != "1" {
		t.Errorf("before the watch cache has caught up: v=%s, want 1", got)
	}
	clk.Step(time.Millisecond)
	if got := value(); got != "2" {
		t.Errorf("once the watch cache has caught up: v=%s, want 2", got)
	}
}

// CatchUp ends a cache's staleness at once (the cluster's heal calls it): the
// events a stale informer kept back are in its store right away, in order,
// and an informer the cache starts afterwards lists the present. A cache
// with no stale view in force has nothing to catch up.
func TestCatchUpDeliversWhatAStaleCacheKeptBackAtOnce(t *testing.T) {
	clk := clock.New(clock.Epoch)
	srv := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clk})
	srv.CreateDefaultNamespaces()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}, Data: map[string]string{"v": "1"}}
	if err := srv.Create(apiserver.Admin, cm); err != nil {
		t.Fatal(err)
	}
	rv := srv.ResourceVersion()
	for _, v := range []string{"2", "3"} {
		cm.Data["v"] = v
		if err := srv.Update(apiserver.Admin, cm, ""); err != nil {
			t.Fatal(err)
		}
	}
	clk.Step(time.Second)
	c := informer.NewCache(srv.Watcher(), clk, apiservertest.Scheme(), nil,
		informer.WithStale(informer.Stale{Age: time.Minute, Until: clk.Now().Add(time.Minute), RV: rv}))
	cms := c.Informer(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	var seen []string
	cms.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { seen = append(seen, o.(*corev1.ConfigMap).Data["v"]) },
		UpdateFunc: func(_, o any) { seen = append(seen, o.(*corev1.ConfigMap).Data["v"]) },
	})
	clk.Step(time.Second)
	if len(seen) != 1 || seen[0] != "1" {
		t.Fatalf("before the catch-up the stale informer has shown %v, want [1] (its list at resourceVersion %d)", seen, rv)
	}
	if !c.CatchUp() {
		t.Fatal("CatchUp reports no stale view in force, 2s into a stale view of a minute")
	}
	if want := []string{"1", "2", "3"}; !slices.Equal(seen, want) {
		t.Fatalf("right after the catch-up the stale informer has shown %v, want %v (every event it kept back, in order)", seen, want)
	}
	secrets := c.Informer(schema.GroupVersionKind{Version: "v1", Kind: "Secret"})
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s"}}
	if err := srv.Create(apiserver.Admin, sec); err != nil {
		t.Fatal(err)
	}
	clk.Step(0)
	if _, ok, _ := secrets.Indexer().GetByKey("default/s"); !ok {
		t.Error("an informer started after the catch-up did not get a create at once: it is still behind")
	}
	if c.CatchUp() {
		t.Error("a second CatchUp reports a stale view still in force")
	}
}
