package clientgo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// fleet is a framework of ten controllers, each with its own client-go
// workqueue, on one clientset and one informer factory the framework builds
// from the kubeconfig (its client-side rate limit qps: 0 is client-go's
// default, 5 a second with a burst of 10; -1 none); each controller waits
// for its own caches in a goroutine of its own (cache.WaitForCacheSync,
// polling every 100 ms: ten polls at one virtual instant) and then runs its
// worker, which makes <name>-<i> for each labelled ConfigMap.
func fleet(ctx context.Context, kubeconfig string, qps float32) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS = qps
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	inf := f.Core().V1().ConfigMaps().Informer()
	for i := range 10 {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			if cm := obj.(*corev1.ConfigMap); cm.Labels["fleet"] == "yes" {
				q.Add(cache.MetaObjectToName(cm))
			}
		}}); err != nil {
			return err
		}
		go func() {
			defer q.ShutDown()
			if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
				return
			}
			wait.UntilWithContext(ctx, func(ctx context.Context) {
				for {
					n, shutdown := q.Get()
					if shutdown {
						return
					}
					_, err := cs.CoreV1().ConfigMaps(n.Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: n.Namespace, Name: fmt.Sprintf("%s-%d", n.Name, i)}}, metav1.CreateOptions{})
					if err != nil && !apierrors.IsAlreadyExists(err) {
						q.AddRateLimited(n)
					} else {
						q.Forget(n)
					}
					q.Done(n)
				}
			}, time.Second)
		}()
	}
	f.Start(ctx.Done())
	<-ctx.Done()
	return nil
}

// fleetHashes replays one plan of fleet (error answers to creates, a
// crash) 8 times and returns the trace hashes seen, failing the test if
// the controllers did not make their 20 ConfigMaps.
func fleetHashes(t *testing.T, qps float32) map[string]int {
	t.Helper()
	var objects []client.Object
	for _, n := range []string{"a", "b"} {
		objects = append(objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: n, Labels: map[string]string{"fleet": "yes"}}})
	}
	o := operatortest.Options{Scheme: clientgoscheme.Scheme, NoWorkload: true, Objects: objects,
		Managers: []operatortest.Manager{{Name: "fleet", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			return fleet(ctx, env.Kubeconfig, qps)
		})}},
	}
	p, err := plan.Parse("seed 3\napi process=fleet verb=create resource=configmaps code=500 count=3 from=0s until=10s\ncrash process=fleet at=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]int{}
	for range 8 {
		r, err := operatortest.Replay(t, o, p)
		if err != nil {
			t.Fatal(err)
		}
		hashes[r.Hash]++
		made := 0
		for _, s := range r.Steps {
			if s.Process == "fleet" && s.Op == "create" && s.Result == "ok" && strings.HasPrefix(s.Object, "ConfigMap shop/") {
				made++
			}
		}
		if made != 20 {
			t.Fatalf("the controllers made %d of 20 ConfigMaps", made)
		}
	}
	return hashes
}

// Ten controllers each waiting for their caches in client-go's
// WaitForCacheSync (ten 100 ms poll timers firing at one instant), whose
// clientset does not limit its rate, start their workers in one order in
// every replay of a plan, under -race too (make test's -race run).
func TestTenControllersSyncingTheirOwnCachesDeterminism(t *testing.T) {
	if hashes := fleetHashes(t, -1); len(hashes) != 1 {
		t.Errorf("8 replays of one plan gave %d trace hashes: %v", len(hashes), hashes)
	}
}
