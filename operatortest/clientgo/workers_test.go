package clientgo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// crew is an operator that builds everything from the kubeconfig file it is
// given: a clientset, its own informer factory and its own client-go
// workqueue, with three workers. Each ConfigMap labelled crew=yes is queued 3 s after
// the informer hands it over (AddAfter), so that the four seed ConfigMaps'
// keys are ready at one instant and three workers take them at once; a
// worker makes <name>-done.
func crew(ctx context.Context, kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
	defer q.ShutDown()
	if _, err := f.Core().V1().ConfigMaps().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if cm := obj.(*corev1.ConfigMap); cm.Labels["crew"] == "yes" {
			q.AddAfter(cache.MetaObjectToName(cm), 3*time.Second)
		}
	}}); err != nil {
		return err
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	for range 3 {
		go func() {
			for {
				n, shutdown := q.Get()
				if shutdown {
					return
				}
				_, err := cs.CoreV1().ConfigMaps(n.Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: n.Namespace, Name: n.Name + "-done"}}, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					q.AddRateLimited(n)
				} else {
					q.Forget(n)
				}
				q.Done(n)
			}
		}()
	}
	<-ctx.Done()
	return nil
}

// Several workers of an operator's own workqueue whose clients it builds
// from the kubeconfig file: which worker an Add wakes takes which item is
// Go's scheduler's choice (under -race, at random); the workers that take
// items at one instant are ordered by what their requests ask (sim/scheduler's
// JoinAsking: a request's method, URI and body), whether they call in for
// the first time or rejoin, so that every replay of a plan with error
// answers and a crash gives one trace hash.
func TestSeveralWorkersOnTheKubeconfigDeterminism(t *testing.T) {
	var objects []client.Object
	for _, n := range []string{"a", "b", "c", "d"} {
		objects = append(objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: n, Labels: map[string]string{"crew": "yes"}}})
	}
	o := operatortest.Options{Scheme: clientgoscheme.Scheme, NoWorkload: true, Objects: objects,
		Managers: []operatortest.Manager{{Name: "crew", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			return crew(ctx, env.Kubeconfig)
		})}},
	}
	p, err := plan.Parse("seed 3\napi process=crew verb=create resource=configmaps code=500 count=2 from=0s until=10s\ncrash process=crew at=3500ms\n")
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]int{}
	done := 0
	for range 8 {
		r, err := operatortest.Replay(t, o, p)
		if err != nil {
			t.Fatal(err)
		}
		hashes[r.Hash]++
		done = 0
		for _, s := range r.Steps {
			if s.Process == "crew" && s.Op == "create" && s.Result == "ok" && strings.HasSuffix(s.Object, "-done") {
				done++
			}
		}
	}
	if done != 4 {
		t.Errorf("the workers made %d of 4 -done ConfigMaps", done)
	}
	if len(hashes) != 1 {
		t.Errorf("8 replays of one plan gave %d trace hashes: %v", len(hashes), hashes)
	}
}
