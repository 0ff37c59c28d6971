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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// runnableWorld: a process whose setup adds a controller of ConfigMaps and a
// Runnable that, at every start, writes a ConfigMap "started-<n>" (n counts the
// incarnations it has seen) and then waits for its context, as a typical
// mgr.Add(manager.RunnableFunc(...)) does.
func runnableWorld() cluster.Options {
	var starts int
	return cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			mgr := p.Manager()
			if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(reconcile.Func(
				func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })); err != nil {
				return err
			}
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				starts++
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("started-%d", starts)}}
				if err := mgr.GetClient().Create(ctx, cm); err != nil {
					return err
				}
				<-ctx.Done()
				return nil
			}))
		}}},
	}
}

// A manager Runnable runs as a task of its process: its client calls are
// traced like a controller's, it runs again after a restart, and the run is a
// function of its plan (the same trace hash twice).
func TestARunnableRunsAsATaskOfItsProcessDeterminism(t *testing.T) {
	p := mustParse(t, "seed 3\ncrash process=op at=5s\n")
	var steps []trace.Step
	err := wallclock.CheckDeterminism(t, p, runnableWorld, func(c *cluster.Cluster) {
		c.RunFor(30 * time.Second)
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		steps = c.Trace.Steps()
	})
	if err != nil {
		t.Fatal(err)
	}
	var creates []string
	for _, s := range steps {
		if s.Op == "create" && s.Process == "op" {
			creates = append(creates, fmt.Sprintf("%s@%s", s.Object, s.At.Truncate(time.Second)))
		}
	}
	if got, want := strings.Join(creates, " "), "ConfigMap default/started-1@0s ConfigMap default/started-2@15s"; got != want {
		t.Fatalf("the Runnable's creates: %s, want %s (one per incarnation: start at 0s, restart at 15s)", got, want)
	}
}

// Outside a testing/synctest bubble (the command's built-in catalogue) a
// process cannot tell a Runnable that waits from one that works: mgr.Add says
// so, and the process's setup fails with it.
func TestARunnableOutsideABubbleIsRefusedClearly(t *testing.T) {
	c, err := cluster.New(mustParse(t, "seed 1\n"), runnableWorld())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(time.Second)
	for _, s := range c.Trace.Steps() {
		if s.Op == "setup" && strings.Contains(s.Result, "manager.Add(manager.RunnableFunc)") && strings.Contains(s.Result, "testing/synctest bubble") {
			return
		}
	}
	t.Fatalf("no setup error naming the Runnable and the bubble in the trace")
}

func mustParse(t *testing.T, text string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// periodicWorld: a process whose Runnable works on a timer of its own, as
// controller-runtime Runnables and operators' background loops do: every
// period it writes a ConfigMap tick-<incarnation>-<n>. loop is the timer's
// shape: wait.Until (sliding: the period starts when the work ends) or a
// time.Ticker (fixed: ticks every period from the start).
func periodicWorld(loop string) func() cluster.Options {
	return func() cluster.Options {
		var starts int
		return cluster.Options{
			Scheme: apiservertest.Scheme(),
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				mgr := p.Manager()
				starts++
				inc, n := starts, 0
				tick := func(ctx context.Context) {
					n++
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("tick-%d-%d", inc, n)}}
					_ = mgr.GetClient().Create(ctx, cm)
				}
				return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
					switch loop {
					case "wait.Until":
						wait.UntilWithContext(ctx, tick, 5*time.Second)
					case "ticker":
						tk := time.NewTicker(5 * time.Second)
						defer tk.Stop()
						for {
							select {
							case <-ctx.Done():
								return nil
							case <-tk.C:
								tick(ctx)
							}
						}
					}
					return nil
				}))
			}}},
		}
	}
}

// ticks are the Runnable's creates, each as name@time.
func ticks(steps []trace.Step) string {
	var out []string
	for _, s := range steps {
		if s.Op == "create" && s.Process == "op" && strings.HasPrefix(s.Object, "ConfigMap default/tick-") {
			out = append(out, fmt.Sprintf("%s@%v", strings.TrimPrefix(s.Object, "ConfigMap default/"), s.At.Round(100*time.Millisecond)))
		}
	}
	return strings.Join(out, " ")
}

// A Runnable that loops on a timer runs as a task every time its timer fires:
// the virtual clock stops at the timer's instant and the Runnable's calls run
// there, traced, in a run that is a function of its plan. A crash kills the
// loop (its next wake unwinds it); the restarted process starts a new one.
func TestAPeriodicRunnableRunsAtItsTimesDeterminism(t *testing.T) {
	cases := map[string]string{
		// wait.Until: at once, then 5s after each create returns (its
		// latency, ~1ms, adds up).
		"wait.Until": "tick-1-1@0s tick-1-2@5s tick-1-3@10s tick-2-1@22s tick-2-2@27s",
		// A ticker: every 5s from the start, the first after 5s.
		"ticker": "tick-1-1@5s tick-1-2@10s tick-2-1@27s",
	}
	for loop, want := range cases {
		t.Run(loop, func(t *testing.T) {
			p := mustParse(t, "seed 3\ncrash process=op at=12s\n")
			var steps []trace.Step
			err := wallclock.CheckDeterminism(t, p, periodicWorld(loop), func(c *cluster.Cluster) {
				c.RunFor(30 * time.Second)
				if err := c.Err(); err != nil {
					t.Fatal(err)
				}
				steps = c.Trace.Steps()
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(ticks(steps))
			if got := ticks(steps); got != want {
				t.Fatalf("ticks: %s\nwant:  %s", got, want)
			}
		})
	}
}
