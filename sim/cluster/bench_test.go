package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// configMaps is a world of n ConfigMaps reconciled by r on the given queue.
func configMaps(b *testing.B, n int, usePriority bool, r reconcile.Func) *cluster.Cluster {
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).
				WithOptions(controller.Options{UsePriorityQueue: ptr.To(usePriority)}).Complete(r)
		}}},
		Setup: func(c *cluster.Cluster) error {
			for i := range n {
				if err := c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%03d", i)}}); err != nil {
					return err
				}
			}
			return nil
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// BenchmarkReconciles: a trivial reconciler (requeue after 1s, no API calls) over
// 100 objects; reports reconciles per wall second.
func BenchmarkReconciles(b *testing.B) {
	for _, usePriority := range []bool{true, false} {
		b.Run(map[bool]string{true: "priority", false: "classic"}[usePriority], func(b *testing.B) {
			count := 0
			c := configMaps(b, 100, usePriority, func(context.Context, reconcile.Request) (reconcile.Result, error) {
				count++
				return reconcile.Result{RequeueAfter: time.Second}, nil
			})
			c.Trace.Keep = false
			c.RunFor(time.Second) // warm up: informers listed, first round done
			count = 0
			b.ResetTimer()
			start := time.Now()
			c.RunFor(time.Duration(b.N) * time.Second)
			elapsed := time.Since(start)
			b.ReportMetric(float64(count)/elapsed.Seconds(), "reconciles/s")
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(max(count, 1)), "ns/reconcile")
		})
	}
}

// BenchmarkBackoffVirtualTime: ten objects whose reconciles always fail, so the
// run is dominated by exponential backoff (up to 1000s); reports virtual seconds
// simulated per wall second.
func BenchmarkBackoffVirtualTime(b *testing.B) {
	c := configMaps(b, 10, false, func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, errors.New("persistent failure")
	})
	c.Trace.Keep = false
	b.ResetTimer()
	start := time.Now()
	virtual := time.Duration(b.N) * 24 * time.Hour
	c.RunFor(virtual)
	b.ReportMetric(virtual.Seconds()/time.Since(start).Seconds(), "virtual-s/wall-s")
}
