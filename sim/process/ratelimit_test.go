package process_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// creator makes Secrets s0..s(n-1) at each reconcile of ConfigMap cm.
type creator struct {
	cl func() client.Client
	n  int
}

func (r *creator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	for i := range r.n {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("s%d", i)}}
		if err := r.cl().Create(ctx, s); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}

// createTimes runs a process that makes six Secrets in one reconcile, with
// rate as its client-side limit, and returns when each create was served.
func createTimes(t *testing.T, rate *process.ClientRate) []time.Duration {
	t.Helper()
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", ClientRate: rate, Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(&creator{cl: p.GetClient, n: 6})
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(5 * time.Second)
	var at []time.Duration
	for _, s := range c.Trace.Steps() {
		if s.Process == "op" && s.Op == "create" && s.Result == "ok" {
			at = append(at, s.At)
		}
	}
	if len(at) != 6 {
		t.Fatalf("%d creates served, want 6", len(at))
	}
	return at
}

// A process with a client-side rate limit (client-go's token bucket, as
// kube-controller-manager's --kube-api-qps and --kube-api-burst make) sends
// its first Burst calls at once and each later one 1/QPS after the one
// before; a process with none sends them all at once.
func TestAClientRateLimitSpacesCallsPastTheBurst(t *testing.T) {
	free := createTimes(t, nil)
	if spread := free[5] - free[0]; spread >= 100*time.Millisecond {
		t.Fatalf("with no limit the six creates took %v, want them within 100ms: %v", spread, free)
	}
	limited := createTimes(t, &process.ClientRate{QPS: 10, Burst: 3})
	for i := 1; i < 3; i++ {
		if gap := limited[i] - limited[i-1]; gap >= 50*time.Millisecond {
			t.Errorf("create %d came %v after the one before, within the burst of 3: %v", i+1, gap, limited)
		}
	}
	for i := 3; i < 6; i++ {
		if gap := limited[i] - limited[i-1]; gap < 90*time.Millisecond || gap > 110*time.Millisecond {
			t.Errorf("create %d came %v after the one before, want about 100ms (10 QPS) past the burst: %v", i+1, gap, limited)
		}
	}
}
