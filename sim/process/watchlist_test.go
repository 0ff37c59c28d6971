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
// cluster and, once its caches have synced, calls synced with the factory
// and its clientset, on the fault-free
// plan of seed: the names its ConfigMap handler was given, in order, the
// process's requests (operation and kind) and the trace hash.
func ownFactoryRun(t *testing.T, seed int, synced func(informers.SharedInformerFactory, kubernetes.Interface)) (added []string, requests []string, hash string) {
	t.Helper()
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, err := plan.Parse(fmt.Sprintf("seed %d\n", seed))
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
						synced(f, cs)
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
// watch-list feature off, and in every run of one plan its handlers get the
// ConfigMaps present at its start in one order and its reflectors' requests
// come in one order (of what they ask). With client-go's default
// (watch-list) the initial objects reach the handlers in the Go map order
// of the reflector's own store, another order in most runs.
func TestAReflectorOfTheOperatorsOwnFactoryListsThenWatches(t *testing.T) {
	hashes := map[string]int{}
	var firstAdded, firstRequests []string
	for i := range 8 {
		added, requests, hash := ownFactoryRun(t, 1, nil)
		hashes[hash]++
		if len(added) != 8 {
			t.Fatalf("run %d: the handler was given %v, want the 8 ConfigMaps", i, added)
		}
		if i == 0 {
			firstAdded, firstRequests = added, requests
			if !slices.Contains(requests, "list ConfigMap") || slices.Index(requests, "list ConfigMap") > slices.Index(requests, "watch ConfigMap") {
				t.Errorf("the process's requests %q: want a list of ConfigMaps, then a watch", requests)
			}
			continue
		}
		if !slices.Equal(added, firstAdded) {
			t.Errorf("run %d: the handler was given %v, run 0 %v", i, added, firstAdded)
		}
		if !slices.Equal(requests, firstRequests) {
			t.Errorf("run %d asked %q, run 0 %q", i, requests, firstRequests)
		}
	}
	if len(hashes) != 1 {
		t.Errorf("8 runs of one plan gave %d trace hashes: %v", len(hashes), hashes)
	}
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Errorf("with no world alive, client-go's WatchListClient reads off: want it as before (on, client-go v0.37's default)")
	}
}

// The order in which the reflector hands the objects present at its start
// to the handlers is the plan's (a shuffle of namespace/name order), as a
// real client's watch-list hands them in any order: the fault-free plans of
// eight seeds give more than one order, namespace/name order not in every one.
func TestThePlanDrawsTheOrderAReflectorHandsItsStartsObjectsIn(t *testing.T) {
	orders := map[string]bool{}
	for seed := 1; seed <= 8; seed++ {
		added, _, _ := ownFactoryRun(t, seed, nil)
		orders[strings.Join(added, ",")] = true
	}
	if len(orders) < 2 {
		t.Errorf("the fault-free plans of 8 seeds handed the ConfigMaps over in one order: %v", orders)
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

// An operator's own List at resourceVersion 0 (no reflector's) is answered
// from the watch cache in namespace/name order, as kube-apiserver v1.37's
// watch cache lists, in the fault-free plan of every seed; the reflector's
// list, standing for watch-list's initial events, still comes in the plan's
// shuffle (TestThePlanDrawsTheOrderAReflectorHandsItsStartsObjectsIn).
func TestAnOperatorsOwnResourceVersionZeroListComesInKeyOrder(t *testing.T) {
	want := []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6", "cm-7"}
	for seed := 1; seed <= 8; seed++ {
		var listed []string
		ownFactoryRun(t, seed, func(f informers.SharedInformerFactory, cs kubernetes.Interface) {
			l, err := cs.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				t.Errorf("seed %d: the list: %v", seed, err)
				return
			}
			for _, cm := range l.Items {
				listed = append(listed, cm.Name)
			}
		})
		if !slices.Equal(listed, want) {
			t.Errorf("seed %d: the operator's resourceVersion=0 list gave %v, want namespace/name order %v", seed, listed, want)
		}
	}
}
