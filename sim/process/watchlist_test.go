package process_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// ownFactoryRun runs a process whose Runnable builds client-go's own
// informer factory on mgr.GetConfig() (not the simulator's ordered one),
// with informers of four types, starts it with eight ConfigMaps in the
// cluster and, once its caches have synced, calls synced: the names its
// ConfigMap handler was given, in order, the process's requests (operation
// and kind) and the trace hash.
func ownFactoryRun(t *testing.T, synced func(informers.SharedInformerFactory)) (added []string, requests []string, hash string) {
	t.Helper()
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, err := plan.Parse("seed 1\n")
		if err != nil {
			t.Fatal(err)
		}
		o := cluster.Options{Scheme: apiservertest.Scheme(), Wall: wall,
			Setup: func(c *cluster.Cluster) error {
				for i := range 8 {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i)}}
					if err := c.Admin().Create(context.Background(), cm); err != nil {
						return err
					}
				}
				return nil
			},
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				mgr := p.Manager()
				cs, err := kubernetes.NewForConfig(mgr.GetConfig())
				if err != nil {
					return err
				}
				return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
					f := informers.NewSharedInformerFactory(cs, 0)
					if _, err := f.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
						AddFunc: func(obj any) { added = append(added, obj.(*corev1.ConfigMap).Name) },
					}); err != nil {
						return err
					}
					f.Core().V1().Secrets().Informer()
					f.Core().V1().Services().Informer()
					f.Core().V1().Pods().Informer()
					f.Start(ctx.Done())
					f.WaitForCacheSync(ctx.Done())
					if synced != nil {
						synced(f)
					}
					<-ctx.Done()
					return nil
				}))
			}}}}
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Second)
		c.Close()
		for _, s := range c.Trace.Steps() {
			if s.Process == "op" && (s.Op == "list" || s.Op == "watch") {
				requests = append(requests, s.Op+" "+s.Object)
			}
		}
		hash = c.Trace.Hash()
	})
	return added, requests, hash
}

// An informer factory the operator builds itself (client-go's, which starts
// its informers by ranging over a Go map, on a clientset the simulator never
// sees) lists each kind and then watches it, as client-go does with its
// watch-list feature off: its handlers get the ConfigMaps present at its
// start in namespace/name order, and its reflectors' requests come in the
// order of what they ask, in every run of one plan. With client-go's
// default (watch-list) the initial objects reach the handlers in the Go
// map order of the reflector's own store, another order in most runs.
func TestAReflectorOfTheOperatorsOwnFactoryListsThenWatches(t *testing.T) {
	want := []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6", "cm-7"}
	hashes := map[string]int{}
	var first []string
	for i := range 8 {
		added, requests, hash := ownFactoryRun(t, nil)
		hashes[hash]++
		if !slices.Equal(added, want) {
			t.Errorf("run %d: the handler was given %v, want namespace/name order", i, added)
		}
		if i == 0 {
			first = requests
			if !slices.Contains(requests, "list ConfigMap") || slices.Index(requests, "list ConfigMap") > slices.Index(requests, "watch ConfigMap") {
				t.Errorf("the process's requests %q: want a list of ConfigMaps, then a watch", requests)
			}
		} else if !slices.Equal(requests, first) {
			t.Errorf("run %d asked %q, run 0 %q", i, requests, first)
		}
	}
	if len(hashes) != 1 {
		t.Errorf("8 runs of one plan gave %d trace hashes: %v", len(hashes), hashes)
	}
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Errorf("with no world alive, client-go's WatchListClient reads off: want it as before (on, client-go v0.37's default)")
	}
}

// The cause the world takes away, outside any world: client-go's factory
// starts its informers by ranging over a Go map, so that the order in which
// its reflectors list differs between starts of one program (20 starts of a
// factory of six informer types see more than one order). In a world they
// become tasks in the order of what they ask
// (TestAReflectorOfTheOperatorsOwnFactoryListsThenWatches).
func TestClientGosFactoryStartsItsInformersInMapOrder(t *testing.T) {
	orders := map[string]bool{}
	for range 20 {
		cs := fake.NewClientset()
		var mu sync.Mutex
		var listed []string
		cs.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			listed = append(listed, a.GetResource().Resource)
			return false, nil, nil
		})
		f := informers.NewSharedInformerFactory(cs, 0)
		f.Core().V1().ConfigMaps().Informer()
		f.Core().V1().Secrets().Informer()
		f.Core().V1().Services().Informer()
		f.Core().V1().Pods().Informer()
		f.Apps().V1().Deployments().Informer()
		f.Apps().V1().StatefulSets().Informer()
		stop := make(chan struct{})
		f.Start(stop)
		f.WaitForCacheSync(stop)
		close(stop)
		f.Shutdown()
		mu.Lock()
		orders[strings.Join(listed, ",")] = true
		mu.Unlock()
	}
	if len(orders) < 2 {
		t.Errorf("20 starts listed in one order %v: client-go's factory starts its informers in a fixed order", orders)
	}
}
