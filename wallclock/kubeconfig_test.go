package wallclock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// kubeconfigWorld: an operator written as main.go-style operators are: its
// Setup builds a typed clientset from ctrl.GetConfigOrDie() (not from the
// manager), reads a ConfigMap through it at once, and its reconciler of
// ConfigMaps writes a "seen-<name>" ConfigMap through the same clientset.
// outside receives the clientset, for the test to call from outside every
// process.
func kubeconfigWorld(outside *kubernetes.Interface) func() cluster.Options {
	return func() cluster.Options {
		return cluster.Options{
			Scheme: apiservertest.Scheme(),
			Setup: func(c *cluster.Cluster) error {
				return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"}})
			},
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				cs, err := kubernetes.NewForConfig(ctrl.GetConfigOrDie())
				if err != nil {
					return err
				}
				*outside = cs
				if _, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), "app", metav1.GetOptions{}); err != nil {
					return err
				}
				return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(reconcile.Func(
					func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
						if strings.HasPrefix(req.Name, "seen-") {
							return reconcile.Result{}, nil
						}
						_, err := cs.CoreV1().ConfigMaps(req.Namespace).Create(ctx, &corev1.ConfigMap{
							ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: "seen-" + req.Name}}, metav1.CreateOptions{})
						return reconcile.Result{}, client.IgnoreAlreadyExists(err)
					}))
			}}},
		}
	}
}

var _ manager.Manager = (*process.Manager)(nil)

// ctrl.GetConfigOrDie() inside a process gives a config served by the
// simulated cluster: a clientset built on it in Setup, and used from a
// reconcile, makes the process's own traced calls (its get in Setup, its
// create in the reconcile), in a run that is a function of its plan. The same
// clientset called by the test, outside every process, fails with one error
// that says so.
func TestCtrlGetConfigInAProcessReachesTheSimulatedClusterDeterminism(t *testing.T) {
	var cs kubernetes.Interface
	var steps []trace.Step
	err := wallclock.CheckDeterminism(t, mustParse(t, "seed 5\n"), kubeconfigWorld(&cs), func(c *cluster.Cluster) {
		c.RunFor(10 * time.Second)
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		steps = c.Trace.Steps()
		_, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), "app", metav1.GetOptions{})
		if err == nil || !strings.Contains(err.Error(), "outside every process of the simulated cluster") {
			t.Errorf("the clientset called by the test itself: %v; want the error saying it is outside every process", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		if s.Process == "op" && (s.Op == "get" || s.Op == "create") {
			got = append(got, s.Op+" "+s.Object+" -> "+s.Result)
		}
		if s.Op == "setup" {
			t.Errorf("op's setup failed: %s", s.Result)
		}
	}
	want := []string{"get ConfigMap default/app", "create ConfigMap default/seen-app"}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no %q among op's calls through the clientset: %q", w, got)
		}
	}
}
