package wallclock_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// waitWorld: a process "op" whose controller of ConfigMaps (two workers)
// reconciles each ConfigMap once with body, which waits as unmodified
// operators wait (time.Sleep, client-go's retry and wait helpers), then marks
// it done. The world starts with ConfigMaps x and y in default.
func waitWorld(body func(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error) func() cluster.Options {
	return func() cluster.Options {
		return cluster.Options{
			Scheme: apiservertest.Scheme(),
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				c := p.Manager().GetClient()
				return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).
					WithOptions(controller.Options{MaxConcurrentReconciles: 2}).
					Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
						cm := &corev1.ConfigMap{}
						if err := c.Get(ctx, req.NamespacedName, cm); err != nil {
							return reconcile.Result{}, client.IgnoreNotFound(err)
						}
						if cm.Data["done"] != "" || cm.Labels["kind"] == "marker" {
							return reconcile.Result{}, nil
						}
						return reconcile.Result{}, body(ctx, c, cm)
					}))
			}}},
			Setup: func(c *cluster.Cluster) error {
				for _, name := range []string{"x", "y"} {
					if err := c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}); err != nil {
						return err
					}
				}
				return nil
			},
		}
	}
}

// markDone writes done=<time.Now() since the bubble's start> into cm.
func markDone(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error {
	cm.Data = map[string]string{"done": time.Since(bubbleStart).Round(time.Millisecond).String()}
	return c.Update(ctx, cm)
}

// bubbleStart is where every bubble's clock starts (wallclock's doc).
var bubbleStart = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// stepsOf are the trace steps of op with the given op name on ConfigMap name.
func stepsOf(steps []trace.Step, op, name string) []trace.Step {
	var out []trace.Step
	for _, s := range steps {
		if s.Process == "op" && s.Op == op && s.Object == "ConfigMap default/"+name {
			out = append(out, s)
		}
	}
	return out
}

func runWait(t *testing.T, planText string, body func(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error, d time.Duration) []trace.Step {
	t.Helper()
	var steps []trace.Step
	err := wallclock.CheckDeterminism(t, mustParse(t, planText), waitWorld(body), func(c *cluster.Cluster) {
		c.RunFor(d)
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		steps = c.Trace.Steps()
	})
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// A reconcile that calls time.Sleep waits in virtual time: its task yields,
// the other worker reconciles y meanwhile, and it resumes when the virtual
// clock reaches its deadline, 3s later, where time.Now reads 3s later too.
// The run is a function of its plan.
func TestASleepInAReconcileWaitsInVirtualTimeDeterminism(t *testing.T) {
	steps := runWait(t, "seed 1\n", func(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error {
		time.Sleep(3 * time.Second)
		ctrl.Log.WithName("sleeper").Info("woke", "name", cm.Name)
		return markDone(ctx, c, cm)
	}, 10*time.Second)
	for _, name := range []string{"x", "y"} {
		gets, updates := stepsOf(steps, "cached-get", name), stepsOf(steps, "update", name)
		if len(gets) == 0 || len(updates) != 1 {
			t.Fatalf("%s: %d gets, %d updates, want a get and one update", name, len(gets), len(updates))
		}
		if waited := updates[0].At - gets[0].At; waited < 3*time.Second || waited > 3*time.Second+50*time.Millisecond {
			t.Errorf("%s: the update came %v after the get, want 3s (and the request latency)", name, waited)
		}
	}
	// A line logged through the global logger as the task wakes is its
	// reconcile's, at the instant it woke.
	woke := 0
	for _, s := range steps {
		if s.Op == "log" && strings.HasPrefix(s.Result, "sleeper: woke") {
			woke++
			if s.Process != "op" || s.Reconcile == 0 || s.At < 3*time.Second {
				t.Errorf("the line logged after the sleep: %+v, want op's reconcile at 3s", s)
			}
		}
	}
	if woke != 2 {
		t.Errorf("%d lines logged after the sleep, want 2", woke)
	}
	// Both slept at once: two workers, neither waited for the other's sleep.
	x, y := stepsOf(steps, "update", "x")[0], stepsOf(steps, "update", "y")[0]
	if d := x.At - y.At; d > time.Second || d < -time.Second {
		t.Errorf("x was updated at %v and y at %v: one worker's sleep held the other", x.At, y.At)
	}
}

// A crash while a reconcile sleeps kills it: its write after the sleep and its
// deferred write never happen; the restarted process (10s later) reconciles
// again and sleeps again, in virtual time.
func TestACrashDuringASleepKillsTheReconcileDeterminism(t *testing.T) {
	steps := runWait(t, "seed 2\ncrash process=op at=1500ms\n", func(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error {
		defer func() {
			marker := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "deferred-" + cm.Name, Labels: map[string]string{"kind": "marker"}}}
			_ = c.Create(ctx, marker)
		}()
		time.Sleep(3 * time.Second)
		return markDone(ctx, c, cm)
	}, 30*time.Second)
	for _, name := range []string{"x", "y"} {
		updates := stepsOf(steps, "update", name)
		if len(updates) != 1 {
			t.Fatalf("%s: %d updates, want one (by the restarted process)", name, len(updates))
		}
		if updates[0].At < 14*time.Second {
			t.Errorf("%s: updated at %v: the reconcile killed at 1.5s wrote after its sleep", name, updates[0].At)
		}
		creates := stepsOf(steps, "create", "deferred-"+name)
		if len(creates) != 1 || creates[0].At < 14*time.Second {
			t.Errorf("%s: deferred creates %v, want one, by the restarted process", name, creates)
		}
	}
}

// client-go's retry.RetryOnConflict(retry.DefaultRetry, ...) works unchanged:
// the update that meets a conflict sleeps its 10ms back-off in virtual time
// and tries again, until the conflicts stop.
func TestRetryOnConflictRetriesInVirtualTime(t *testing.T) {
	var err error
	var steps []trace.Step
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := waitWorld(func(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				fresh := &corev1.ConfigMap{}
				if err := c.Get(ctx, client.ObjectKeyFromObject(cm), fresh); err != nil {
					return err
				}
				return markDone(ctx, c, fresh)
			})
		})()
		o.Wall = wall
		c, e := cluster.New(mustParse(t, "seed 3\napi process=op verb=update resource=configmaps code=409 from=0s until=30ms\n"), o)
		if e != nil {
			t.Fatal(e)
		}
		defer c.Close()
		c.RunFor(10 * time.Second)
		err = c.Err()
		steps = c.Trace.Steps()
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x", "y"} {
		updates := stepsOf(steps, "update", name)
		var ok, conflicts int
		for _, u := range updates {
			switch {
			case u.Result == "ok":
				ok++
			case strings.Contains(u.Result, "Conflict"):
				conflicts++
			}
		}
		if ok != 1 || conflicts == 0 {
			t.Fatalf("%s: updates %v, want conflicts, then one ok", name, results(updates))
		}
		if last := updates[len(updates)-1]; last.At < 30*time.Millisecond || last.At > time.Second {
			t.Errorf("%s: the update that went through came at %v, want just after the conflicts stopped (30ms)", name, last.At)
		}
	}
}

func results(steps []trace.Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, fmt.Sprintf("%s@%v", s.Result, s.At))
	}
	return out
}

// wait.PollUntilContextTimeout works unchanged: it polls every second in
// virtual time, each poll a read of the ConfigMap, until its condition holds
// (4s in), and gives up at its timeout with the context's error.
func TestPollUntilContextTimeoutPollsInVirtualTimeDeterminism(t *testing.T) {
	steps := runWait(t, "seed 4\n", func(ctx context.Context, c client.Client, cm *corev1.ConfigMap) error {
		timeout := 10 * time.Second
		if cm.Name == "y" {
			timeout = 2500 * time.Millisecond
		}
		err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
			// Each poll reads the ConfigMap: a call into the simulator.
			if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); err != nil {
				return false, err
			}
			return time.Since(bubbleStart) >= 4*time.Second, nil
		})
		if err != nil {
			cm.Data = map[string]string{"done": "gave up at " + time.Since(bubbleStart).Round(time.Millisecond).String() + ": " + err.Error()}
			return c.Update(ctx, cm)
		}
		return markDone(ctx, c, cm)
	}, 20*time.Second)
	x, y := stepsOf(steps, "update", "x"), stepsOf(steps, "update", "y")
	if len(x) != 1 || x[0].At < 4*time.Second || x[0].At > 4*time.Second+50*time.Millisecond {
		t.Errorf("x: updates %v, want one right after the 4th poll (4s)", results(x))
	}
	if len(y) != 1 || y[0].At < 2500*time.Millisecond || y[0].At > 2550*time.Millisecond {
		t.Errorf("y: updates %v, want one at its timeout (2.5s)", results(y))
	}
}
