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

// A cache made WithOwnWrites (the fault-free run of a faulted run's blind
// time) is behind the world's writes as its lag, hold or stale start makes
// it, but shows the process each of its own writes at once: OwnWrite applies
// the object's queued events through the write, ahead of the other
// objects', even while held; a stale start applies at once the events of
// the objects an earlier incarnation wrote after the instant its list shows.
func TestAnOwnWriteIsShownAheadOfTheWorldsWrites(t *testing.T) {
	clk := clock.New(clock.Epoch)
	srv := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clk})
	srv.CreateDefaultNamespaces()
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
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
	var own []informer.Write
	write("mine", "1") // at 0s, by the process (its earlier incarnation)
	own = append(own, informer.Write{GVK: gvk, Key: "default/mine", At: clk.Now()})
	write("theirs", "1") // at 0s, by the user
	clk.Step(10 * time.Second)

	// The restart at 10s lands on an apiserver 20s behind (it shows nothing
	// yet), until 30s.
	c := informer.NewCache(srv.Watcher(), clk, apiservertest.Scheme(), nil,
		informer.WithStale(informer.Stale{Age: 20 * time.Second, Until: clk.Now().Add(20 * time.Second)}),
		informer.WithOwnWrites(&own))
	inf := c.Informer(gvk)
	value := func(key string) string {
		o, ok, _ := inf.Indexer().GetByKey(key)
		if !ok {
			return "none"
		}
		return o.(*corev1.ConfigMap).Data["v"]
	}
	var seen []string
	observe := func(d time.Duration) {
		clk.Step(d)
		seen = append(seen, clk.Now().Sub(clock.Epoch).String()+" mine="+value("default/mine")+" theirs="+value("default/theirs"))
	}
	observe(0) // 10s: its own earlier write shows, the user's does not
	inf.Hold()
	write("theirs", "2")
	write("mine", "2")
	c.OwnWrite(informer.Write{GVK: gvk, Key: "default/mine", At: clk.Now()})
	observe(0)                // held: its own write shows all the same
	observe(15 * time.Second) // 25s: held
	inf.Release()
	observe(0) // 25s: the user's writes of 0s and 10s (behind until 30s, applied by the release)
	want := []string{"10s mine=1 theirs=none", "10s mine=2 theirs=none", "25s mine=2 theirs=none", "25s mine=2 theirs=2"}
	if !slices.Equal(seen, want) {
		t.Fatalf("what the cache shows over time:\n got %v\nwant %v", seen, want)
	}
	if len(own) != 2 {
		t.Errorf("OwnWrite did not record the write: %v", own)
	}
}
