package wallclock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// janitor is an expiring cache's janitor as libraries write it: a ticker
// loop that nothing stops.
func janitor(every time.Duration) {
	tk := time.NewTicker(every)
	for range tk.C {
	}
}

// janitorWorld: a process that starts a janitor ticking every 10ms forever
// in its Setup, and whose reconcile waits on a channel nothing closes (a
// loop waiting on a context nobody cancels), so that the world's close
// waits for a task that never wakes while the janitor ticks.
func janitorWorld(wall *cluster.Wall) cluster.Options {
	return cluster.Options{
		Scheme: apiservertest.Scheme(),
		Wall:   wall,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			go janitor(10 * time.Millisecond)
			never := make(chan struct{})
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).
				Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
					<-never
					return reconcile.Result{}, nil
				}))
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
		},
	}
}

// A world with a goroutine that ticks forever (an expiring cache's janitor)
// and a reconcile blocked for ever closes within its wall bound: the
// goroutines still running are abandoned with the world and named in one
// line, by the frame that started each, and the test does not fail for
// them (before: the close slept a hundred years of the bubble's clock, the
// janitor ticking through it, and never returned).
func TestAWorldWithAJanitorTickingForeverClosesNamingIt(t *testing.T) {
	var lines []string
	report := wallclock.Report
	wallclock.Report = func(t *testing.T, line string) { lines = append(lines, line) }
	defer func() { wallclock.Report = report }()
	done := make(chan bool)
	var inner *testing.T
	go func() {
		ok := t.Run("world", func(t *testing.T) {
			inner = t
			wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
				c, err := cluster.New(mustParse(t, "seed 1\n"), janitorWorld(wall))
				if err != nil {
					t.Fatal(err)
				}
				c.RunFor(5 * time.Second)
				c.Close()
			})
		})
		done <- ok
	}()
	const bound = 2 * time.Minute // a hang's detector, not a measurement
	select {
	case ok := <-done:
		if !ok {
			t.Fatalf("the world with a janitor failed the test (%v)", inner.Failed())
		}
	case <-time.After(bound):
		t.Fatalf("the world's close has not returned after %s: %s", bound, wallclock.Stuck())
	}
	if len(lines) != 1 {
		t.Fatalf("%d lines name the goroutines left, want one: %q", len(lines), lines)
	}
	for _, want := range []string{"abandoned with it", "not a failure", "started by github.com/ctrlsim/ctrlsim/wallclock_test.janitorWorld.func1 (", "in github.com/ctrlsim/ctrlsim/wallclock_test.janitor ("} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("the line lacks %q:\n%s", want, lines[0])
		}
	}
}

// A goroutine that would write after the run's end (a real process would
// make the write) is abandoned with the world, its write never made and
// never judged: a Known gap.
func TestAnAbandonedGoroutinesCallAfterTheCloseIsNotJudged(t *testing.T) {
	var lines []string
	report := wallclock.Report
	wallclock.Report = func(t *testing.T, line string) { lines = append(lines, line) }
	defer func() { wallclock.Report = report }()
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		c, err := cluster.New(mustParse(t, "seed 1\n"), cluster.Options{
			Scheme: apiservertest.Scheme(),
			Wall:   wall,
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				cl := p.Manager().GetClient()
				go func() {
					time.Sleep(10 * time.Second) // past the run's end
					_ = cl.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "late"}})
				}()
				return nil
			}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(5 * time.Second)
		c.Close()
		err = c.Get(types.NamespacedName{Namespace: "default", Name: "late"}, &corev1.ConfigMap{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("the write after the run's end: %v, want NotFound", err)
		}
	})
	if len(lines) != 1 || !strings.Contains(lines[0], "1 goroutine of the code under test outlived the world") {
		t.Errorf("lines: %q", lines)
	}
}

// queueWorld: a process whose reconciler of ConfigMaps hands each name to
// a client-go rate-limited workqueue of its own (built in Setup, as an
// operator's constructor builds one), with AddAfter 3s; workers of a
// Runnable take the names and write <name>-done, retrying each failure with
// AddRateLimited.
func queueWorld(workers int) cluster.Options {
	return cluster.Options{
		Scheme: apiservertest.Scheme(),
		Setup: func(c *cluster.Cluster) error {
			for _, n := range []string{"a", "b", "c", "d"} {
				if err := c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: n}}); err != nil {
					return err
				}
			}
			return nil
		},
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			mgr := p.Manager()
			cl := mgr.GetClient()
			q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
				workqueue.TypedRateLimitingQueueConfig[string]{Name: "done"})
			if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				defer q.ShutDown()
				for range workers {
					go func() {
						for {
							n, shutdown := q.Get()
							if shutdown {
								return
							}
							err := cl.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: n + "-done"}})
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
			})); err != nil {
				return err
			}
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
				Complete(reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
					if !strings.HasSuffix(req.Name, "-done") {
						q.AddAfter(req.Name, 3*time.Second)
					}
					return reconcile.Result{}, nil
				}))
		}}},
	}
}

// A client-go workqueue the operator builds itself runs in the world on
// virtual time, deterministically: its delays (AddAfter 3s) are virtual
// seconds, its worker's writes land, and two runs of a plan with a crash
// and API errors give one trace hash (under -race too, in make test).
func TestAnOperatorsOwnClientGoWorkqueueDeterminism(t *testing.T) {
	checkQueueWorld(t, 1)
}

// With several workers, which of the workers an Add wakes takes which item
// is Go's scheduler's choice, made outside the simulator (under -race, at
// random); the workers that take items at one instant are then ordered by
// what they ask (sim/scheduler's JoinAsking), so two runs agree under -race
// too (make test's -race run; before, 5 runs in 5 parted at 3 s, where
// three workers take the first items at one instant).
func TestSeveralWorkersOfAnOperatorsOwnQueueDeterminism(t *testing.T) {
	checkQueueWorld(t, 3)
}

func checkQueueWorld(t *testing.T, workers int) {
	p := mustParse(t, "seed 3\napi process=op verb=create resource=configmaps code=500 count=2 from=0s until=10s\ncrash process=op at=3500ms\n")
	var steps []trace.Step
	err := wallclock.CheckDeterminism(t, p, func() cluster.Options { return queueWorld(workers) }, func(c *cluster.Cluster) {
		c.RunFor(30 * time.Second)
		steps = c.Trace.Steps()
	})
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]time.Duration{}
	failed, crashed := 0, false
	for _, s := range steps {
		switch {
		case s.Op == "crash" && s.Process == "op":
			crashed = true
		case s.Op == "create" && s.Process == "op" && strings.HasSuffix(s.Object, "-done") && s.Result == "ok":
			done[s.Object] = s.At
		case s.Op == "create" && s.Process == "op" && strings.HasSuffix(s.Object, "-done"):
			failed++
		}
	}
	if failed == 0 || !crashed {
		t.Errorf("the plan's faults did not land: %d failed writes, crashed %v", failed, crashed)
	}
	if len(done) != 4 {
		t.Fatalf("the workers wrote %d of 4 -done ConfigMaps: %v", len(done), done)
	}
	for n, at := range done {
		if at < 3*time.Second {
			t.Errorf("%s written at %s, before the queue's 3s delay", n, at)
		}
	}
}
