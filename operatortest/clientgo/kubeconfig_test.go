package clientgo_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// seer is an operator whose constructor builds everything from a REST
// config, as a certificate operator's context does from its kubeconfig:
// its clientset, its own informer factory (one informer type) and its own
// client-go workqueue; for each ConfigMap it makes <name>-seen.
func seer(ctx context.Context, cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	cms := f.Core().V1().ConfigMaps()
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
	defer q.ShutDown()
	if _, err := cms.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if cm := obj.(*corev1.ConfigMap); len(cm.Name) < 5 || cm.Name[len(cm.Name)-5:] != "-seen" {
			q.Add(cache.MetaObjectToName(cm))
		}
	}}); err != nil {
		return err
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		for {
			n, shutdown := q.Get()
			if shutdown {
				return
			}
			_, err := cs.CoreV1().ConfigMaps(n.Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: n.Namespace, Name: n.Name + "-seen"}}, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				q.AddRateLimited(n)
			} else {
				q.Forget(n)
			}
			q.Done(n)
		}
	}, time.Second)
	<-ctx.Done()
	return nil
}

// seerOptions run seer on the REST config config gives.
func seerOptions(config func(env clientgo.Env) (*rest.Config, error)) operatortest.Options {
	return operatortest.Options{Scheme: clientgoscheme.Scheme, NoWorkload: true,
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}},
		Managers: []operatortest.Manager{{Name: "seer", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			cfg, err := config(env)
			if err != nil {
				return err
			}
			return seer(ctx, cfg)
		})}},
		Properties: []operatortest.Property{{Name: "seen", Check: func(h *operatortest.History) error {
			if err := h.Get(client.ObjectKey{Namespace: "shop", Name: "web-seen"}, &corev1.ConfigMap{}); err != nil {
				return fmt.Errorf("web-seen: %w", err)
			}
			return nil
		}}},
	}
}

// replaySeer replays a plan with a crash and returns what was violated and
// how many times the operator created web's ConfigMap.
func replaySeer(t *testing.T, o operatortest.Options) ([]string, int) {
	t.Helper()
	p, err := plan.Parse("seed 1\ncrash process=seer at=20ms\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := operatortest.Replay(t, o, p)
	if err != nil {
		t.Fatal(err)
	}
	var violated []string
	for _, v := range r.Violated() {
		violated = append(violated, v.Property)
	}
	writes := 0
	for _, s := range r.Steps {
		// web's: it sees each namespace's kube-root-ca.crt too, as on a
		// real cluster, and makes its -seen.
		if s.Process == "seer" && s.Op == "create" && s.Result == "ok" && s.Object == "ConfigMap shop/web-seen" {
			writes++
		}
	}
	return violated, writes
}

// An operator that builds its clients, its own informer factory and its
// own workqueue from the world's REST config (env.Config, what its main
// builds from a kubeconfig) runs against the world unchanged: its write
// lands, through a crash.
func TestAnOperatorBuiltFromTheWorldsRestConfigRuns(t *testing.T) {
	violated, writes := replaySeer(t, seerOptions(func(env clientgo.Env) (*rest.Config, error) { return env.Config, nil }))
	if len(violated) > 0 || writes != 1 {
		t.Errorf("violated %v, %d creates; want nothing violated and 1 create", violated, writes)
	}
}

// The same operator built from the kubeconfig file KUBECONFIG names (the
// world's), or from the path Env gives, runs against the world unchanged
// too: its informer's reflector, started by the informer's own goroutine
// (which never calls in), makes the calls of the process its start runs
// in, and its write lands, through a crash.
func TestAnOperatorsOwnFactoryFromTheKubeconfigFileRuns(t *testing.T) {
	for name, path := range map[string]func(clientgo.Env) string{
		"KUBECONFIG":     func(clientgo.Env) string { return os.Getenv("KUBECONFIG") },
		"env.Kubeconfig": func(env clientgo.Env) string { return env.Kubeconfig },
	} {
		t.Run(name, func(t *testing.T) {
			violated, writes := replaySeer(t, seerOptions(func(env clientgo.Env) (*rest.Config, error) {
				return clientcmd.BuildConfigFromFlags("", path(env))
			}))
			if len(violated) > 0 || writes != 1 {
				t.Errorf("violated %v, %d creates; want nothing violated and 1 create", violated, writes)
			}
		})
	}
}
