package informer_test

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/informer"
)

// A hidden object (WithHidden: the fault-free run of a faulted run's blind
// time) is neither listed nor updated by its events while hidden; the relist
// at the end of its window shows it as it is then, fresh, never an older
// version; the relist at the start of a window takes it out of the cache.
// Other objects are current throughout.
func TestAHiddenObjectIsNotCachedUntilItsWindowEndsAndThenShowsAsItIs(t *testing.T) {
	clk := clock.New(clock.Epoch)
	srv := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clk})
	srv.CreateDefaultNamespaces()
	write := func(name, data string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"v": data}}
		if err := srv.Get(apiserver.Admin, client.ObjectKeyFromObject(cm), cm); err != nil {
			if err := srv.Create(apiserver.Admin, cm); err != nil {
				t.Fatal(err)
			}
			return
		}
		cm.Data["v"] = data
		if err := srv.Update(apiserver.Admin, cm, ""); err != nil {
			t.Fatal(err)
		}
	}
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	hidden := func(from, until time.Duration) bool {
		now := clk.Now().Sub(clock.Epoch)
		return now >= from && now < until
	}
	// x is hidden in [0, 20s) and [30s, 40s); y never.
	c := informer.NewCache(srv.Watcher(), clk, apiservertest.Scheme(), nil,
		informer.WithHidden(func(g schema.GroupVersionKind, key string) bool {
			return g == gvk && key == "default/x" && (hidden(0, 20*time.Second) || hidden(30*time.Second, 40*time.Second))
		}))
	write("x", "1")
	write("y", "1")
	inf := c.Informer(gvk)
	value := func(key string) string {
		o, ok, _ := inf.Indexer().GetByKey(key)
		if !ok {
			return "none"
		}
		return o.(*corev1.ConfigMap).Data["v"]
	}
	var seen []string
	observe := func(d time.Duration, relist bool) {
		clk.Step(d)
		if relist {
			c.Relist(gvk)
		}
		seen = append(seen, clk.Now().Sub(clock.Epoch).String()+" x="+value("default/x")+" y="+value("default/y"))
	}
	observe(0, false)
	write("x", "2")
	write("y", "2")
	observe(10*time.Second, false) // 10s: x still hidden, y current
	observe(10*time.Second, true)  // 20s: x shows as it is (2), not as it was listed (1)
	write("x", "3")
	observe(0, false)
	observe(10*time.Second, true) // 30s: hidden again
	write("x", "4")
	observe(0, false)
	observe(10*time.Second, true) // 40s: back, as it is
	want := []string{"0s x=none y=1", "10s x=none y=2", "20s x=2 y=2", "20s x=3 y=2", "30s x=none y=2", "30s x=none y=2", "40s x=4 y=2"}
	if !slices.Equal(seen, want) {
		t.Fatalf("what the cache shows over time:\n got %v\nwant %v", seen, want)
	}
}
