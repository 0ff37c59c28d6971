package process_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// clientGoSeen is what the client-go informer of clientGoWorld saw of one
// update the process made through its clientset.
type clientGoSeen struct {
	written string        // the resourceVersion the update answered
	took    time.Duration // from the update's return until the lister showed it
	handled []string      // the values of data.n the event handler saw, in order
	synced  bool
}

// clientGoWorld is a process whose Runnable runs an unmodified client-go
// SharedInformerFactory on a clientset from mgr.GetConfig(): it waits for
// the ConfigMap informer to sync, updates ConfigMap default/cm through the
// clientset, and polls the lister (time.Sleep: virtual time in the bubble)
// until it shows the update.
func clientGoWorld(planText string, seen *clientGoSeen) (*plan.Plan, cluster.Options) {
	p, err := plan.Parse(planText)
	if err != nil {
		panic(err)
	}
	return p, cluster.Options{Scheme: apiservertest.Scheme(),
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}, Data: map[string]string{"n": "0"}})
		},
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			mgr := p.Manager()
			cs, err := kubernetes.NewForConfig(mgr.GetConfig())
			if err != nil {
				return err
			}
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				f := informers.NewSharedInformerFactory(cs, 0)
				cms := f.Core().V1().ConfigMaps()
				if _, err := cms.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
					AddFunc:    func(obj any) { seen.handled = append(seen.handled, obj.(*corev1.ConfigMap).Data["n"]) },
					UpdateFunc: func(_, obj any) { seen.handled = append(seen.handled, obj.(*corev1.ConfigMap).Data["n"]) },
				}); err != nil {
					return err
				}
				lister := cms.Lister()
				f.Start(ctx.Done())
				for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
					if !ok {
						return nil
					}
					_ = typ
				}
				seen.synced = true
				all, err := lister.List(labels.Everything())
				if err != nil || len(all) != 1 {
					return err
				}
				cm := all[0].DeepCopy()
				cm.Data["n"] = "1"
				out, err := cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
				if err != nil {
					return err
				}
				seen.written = out.ResourceVersion
				start := p.Clock().Now()
				for {
					got, err := lister.ConfigMaps("default").Get("cm")
					if err == nil && got.ResourceVersion == out.ResourceVersion {
						break
					}
					time.Sleep(time.Millisecond)
				}
				seen.took = p.Clock().Now().Sub(start)
				<-ctx.Done()
				return nil
			}))
		}}}}
}

// lagPlan makes the process's ConfigMap watch lag 50 to 100 ms.
const lagPlan = "seed 5\nlag process=op kind=/v1/ConfigMap min=50ms max=100ms\n"

func runClientGo(t *testing.T, planText string) (clientGoSeen, string) {
	t.Helper()
	var seen clientGoSeen
	var hash string
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, o := clientGoWorld(planText, &seen)
		o.Wall = wall
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(5 * time.Second)
		c.Close()
		hash = c.Trace.Hash()
		if testing.Verbose() {
			var b strings.Builder
			_ = c.Trace.WriteTimeline(&b)
			t.Log(b.String())
		}
	})
	return seen, hash
}

// A client-go SharedInformerFactory built on the manager's REST config
// syncs, and its lister shows the process's own update only once the
// process's watch has delivered it: after the plan's 50 ms lag at least, not
// at once. Its handler sees the initial object and then the update.
func TestAClientGoInformerFactorySeesTheProcesssLaggingWatch(t *testing.T) {
	seen, _ := runClientGo(t, lagPlan)
	if !seen.synced || seen.written == "" {
		t.Fatalf("the factory did not sync or the update failed: %+v", seen)
	}
	if seen.took < 50*time.Millisecond {
		t.Errorf("the lister showed the update %v after it returned, want at least the plan's 50ms lag", seen.took)
	}
	if len(seen.handled) != 2 || seen.handled[0] != "0" || seen.handled[1] != "1" {
		t.Errorf("handler saw %q, want the initial 0 then the update 1", seen.handled)
	}
}

// Same plan, same trace: the reflector's, the informer's and the handler's
// goroutines run as the plan says.
func TestAClientGoInformerFactoryDeterminism(t *testing.T) {
	_, h1 := runClientGo(t, lagPlan)
	_, h2 := runClientGo(t, lagPlan)
	if h1 != h2 {
		t.Errorf("two runs of one plan: trace hashes %s and %s", h1, h2)
	}
}

// A plan's hold of the process's ConfigMap watch holds the client-go
// informer's too: the update reaches its lister when the hold ends (2 s),
// not before.
func TestAHoldHoldsAClientGoInformer(t *testing.T) {
	seen, _ := runClientGo(t, "seed 5\nhold process=op kind=/v1/ConfigMap from=1ms until=2s\n")
	if seen.written == "" {
		t.Fatalf("the update failed: %+v", seen)
	}
	if seen.took < 1900*time.Millisecond {
		t.Errorf("the lister showed the update %v after it returned, want it held until the hold ends at 2s", seen.took)
	}
	if len(seen.handled) != 2 || seen.handled[1] != "1" {
		t.Errorf("handler saw %q, want the initial 0 then the update 1", seen.handled)
	}
}

// A dynamic informer factory on the same config syncs and sees the
// process's update too (unstructured objects decoded from the same watch
// stream), after the lag.
func TestADynamicInformerFactorySeesTheProcesssWatch(t *testing.T) {
	var got []string
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, err := plan.Parse(lagPlan)
		if err != nil {
			t.Fatal(err)
		}
		o := cluster.Options{Scheme: apiservertest.Scheme(), Wall: wall,
			Setup: func(c *cluster.Cluster) error {
				return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}, Data: map[string]string{"n": "0"}})
			},
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				mgr := p.Manager()
				dyn, err := dynamic.NewForConfig(mgr.GetConfig())
				if err != nil {
					return err
				}
				cs, err := kubernetes.NewForConfig(mgr.GetConfig())
				if err != nil {
					return err
				}
				return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
					f := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
					gi := f.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
					if _, err := gi.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
						AddFunc: func(obj any) {
							n, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "data", "n")
							got = append(got, "add "+n)
						},
						UpdateFunc: func(_, obj any) {
							n, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "data", "n")
							got = append(got, "update "+n)
						},
					}); err != nil {
						return err
					}
					f.Start(ctx.Done())
					f.WaitForCacheSync(ctx.Done())
					cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm", metav1.GetOptions{})
					if err != nil {
						return err
					}
					cm.Data["n"] = "1"
					if _, err := cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
						return err
					}
					<-ctx.Done()
					return nil
				}))
			}}}}
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(5 * time.Second)
		c.Close()
	})
	if len(got) != 2 || got[0] != "add 0" || got[1] != "update 1" {
		t.Errorf("dynamic informer saw %q, want the initial add of 0 then the update to 1", got)
	}
}

// A metadata informer factory on the same config syncs and sees the
// process's update as PartialObjectMetadata (the label it set).
func TestAMetadataInformerFactorySeesTheProcesssWatch(t *testing.T) {
	var got []string
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, err := plan.Parse(lagPlan)
		if err != nil {
			t.Fatal(err)
		}
		o := cluster.Options{Scheme: apiservertest.Scheme(), Wall: wall,
			Setup: func(c *cluster.Cluster) error {
				return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm", Labels: map[string]string{"n": "0"}}})
			},
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				mgr := p.Manager()
				md, err := metadata.NewForConfig(mgr.GetConfig())
				if err != nil {
					return err
				}
				cs, err := kubernetes.NewForConfig(mgr.GetConfig())
				if err != nil {
					return err
				}
				return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
					f := metadatainformer.NewSharedInformerFactory(md, 0)
					gi := f.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
					if _, err := gi.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
						AddFunc:    func(obj any) { got = append(got, "add "+obj.(*metav1.PartialObjectMetadata).Labels["n"]) },
						UpdateFunc: func(_, obj any) { got = append(got, "update "+obj.(*metav1.PartialObjectMetadata).Labels["n"]) },
					}); err != nil {
						return err
					}
					f.Start(ctx.Done())
					f.WaitForCacheSync(ctx.Done())
					cm, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "cm", metav1.GetOptions{})
					if err != nil {
						return err
					}
					cm.Labels["n"] = "1"
					if _, err := cs.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
						return err
					}
					<-ctx.Done()
					return nil
				}))
			}}}}
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(5 * time.Second)
		c.Close()
	})
	if len(got) != 2 || got[0] != "add 0" || got[1] != "update 1" {
		t.Errorf("metadata informer saw %q, want the initial add of 0 then the update to 1", got)
	}
}
