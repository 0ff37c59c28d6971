package process_test

// The tests of this file show the Known gaps of doc.go (and of sim/clock's
// and sim/trace's that only a process shows), each as it is today: a change
// that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kclock "k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

func TestEveryProcessReadsTheSameNow(t *testing.T) {
	clocks := map[string]kclock.WithTicker{}
	spec := func(name string) process.Spec {
		return process.Spec{Name: name, Setup: func(p *process.Process) error {
			clocks[name] = p.Clock()
			return nil
		}}
	}
	c, err := cluster.New(&plan.Plan{}, cluster.Options{Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{spec("a"), spec("b")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Minute)
	a, b := clocks["a"], clocks["b"]
	if a == nil || b == nil || a != b || !a.Now().Equal(b.Now()) {
		t.Fatalf("processes a and b read clocks %p and %p, want one clock", a, b)
	}
}

func TestTheKubeconfigTransportServesNoCallerOutsideAProcess(t *testing.T) {
	_, err := process.KubeconfigTransport()
	if err == nil || !strings.Contains(err.Error(), "was called outside every process of the simulated cluster") {
		t.Fatalf("KubeconfigTransport from the test: %v, want it refused", err)
	}
}

// A write that stores carries the digest of what it stored (sim/trace's
// Known gaps); a delete carries none, and neither does a read.
func TestADeleteAndAReadCarryNoDigest(t *testing.T) {
	steps := runConfigMaps(t, "seed 1\n",
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x", Finalizers: []string{"example.com/f"}}},
		func(c client.Client) reconcile.Func {
			return func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				var cm corev1.ConfigMap
				if err := c.Get(ctx, req.NamespacedName, &cm); err != nil {
					return reconcile.Result{}, client.IgnoreNotFound(err)
				}
				switch {
				case cm.DeletionTimestamp != nil:
					cm.Finalizers = nil
					return reconcile.Result{}, c.Update(ctx, &cm)
				case cm.Labels["seen"] == "":
					cm.Labels = map[string]string{"seen": "yes"}
					return reconcile.Result{}, c.Update(ctx, &cm)
				}
				return reconcile.Result{}, c.Delete(ctx, &cm)
			}
		})
	ops := map[string]int{}
	for _, s := range steps {
		if s.Process != "op" || s.Result != "ok" {
			continue
		}
		switch {
		case s.Op == "delete" || trace.IsRead(s.Op):
			ops[s.Op]++
			if s.Digest != "" {
				t.Errorf("%s carries the digest %q, want none", s, s.Digest)
			}
		case s.Op == "update":
			ops[s.Op]++
			if s.Digest == "" {
				t.Errorf("%s carries no digest", s)
			}
		}
	}
	if ops["delete"] != 1 || ops["update"] != 2 || ops["cached-get"] == 0 {
		t.Fatalf("ops %v, want a delete, two updates and cached gets; the trace:\n%s", ops, timeline(steps))
	}
}
