package wallclock_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// goroutineWorld: a process whose Runnable starts three pollers with plain go
// statements. Each poller, every 700ms of the bubble's clock, lists
// ConfigMaps through the manager's client, writes one of its own
// (poll-<incarnation>-<poller>-<n>) and sends a GenericEvent into a
// source.Channel; a controller fed by that channel (and by ConfigMaps, and by a
// source.Func whose goroutine adds func-<incarnation> once) writes a
// ConfigMap seen-<name> for each event it reconciles. Setup starts a fourth
// goroutine itself, which writes once.
func goroutineWorld() cluster.Options {
	var starts int
	return cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			mgr := p.Manager()
			starts++
			inc := starts
			events := make(chan event.GenericEvent)
			c := mgr.GetClient()
			err := ctrl.NewControllerManagedBy(mgr).Named("seen").For(&corev1.ConfigMap{}).
				WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{})).
				WatchesRawSource(source.Func(func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
					go func() { // a source.Func's goroutine, which adds to the queue once
						q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: fmt.Sprintf("func-%d", inc)}})
					}()
					return nil
				})).
				Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					if !strings.HasPrefix(req.Name, "event-") && !strings.HasPrefix(req.Name, "func-") {
						return reconcile.Result{}, nil
					}
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "seen-" + req.Name}}
					return reconcile.Result{}, client0(c.Create(ctx, cm))
				}))
			if err != nil {
				return err
			}
			go func() { // a goroutine of Setup itself
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("setup-%d", inc)}}
				_ = c.Create(context.Background(), cm)
			}()
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				for i := range 3 {
					go func() {
						n := 0
						_ = wait.PollUntilContextCancel(ctx, 700*time.Millisecond, true, func(ctx context.Context) (bool, error) {
							n++
							var list corev1.ConfigMapList
							if err := c.List(ctx, &list); err != nil {
								return false, nil
							}
							name := fmt.Sprintf("poll-%d-%d-%d", inc, i, n)
							_ = c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}})
							select {
							case events <- event.GenericEvent{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "event-" + name}}}:
							case <-ctx.Done():
							}
							return false, nil
						})
					}()
				}
				<-ctx.Done()
				return nil
			}))
		}}},
	}
}

func client0(err error) error { return err }

// runGoroutines runs the plan (a crash of op at 2.5s, restart 10s later) for
// 15s and returns its trace.
func runGoroutines(t *testing.T) []trace.Step {
	var steps []trace.Step
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := goroutineWorld()
		o.Wall = wall
		c, err := cluster.New(mustParse(t, "seed 5\ncrash process=op at=2500ms\n"), o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(15 * time.Second)
		c.Close()
		steps = c.Trace.Steps()
	})
	return steps
}

func hashOf(steps []trace.Step) string {
	h := sha256.New()
	for _, s := range steps {
		fmt.Fprintln(h, s.Canonical())
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// Goroutines that a Runnable, a Setup and a source.Func start with plain go
// statements are tasks of their process: their calls are the process's, traced, each at a
// deterministic point of the run; a source.Channel fed from them delivers
// every event to the controller's queue; a crash ends them (none of
// incarnation 1 writes after it) and the restart starts them again. Twenty
// runs of the plan give one trace hash (run it under -race, with GOMAXPROCS=1
// and 4: TestGoroutinesAreDeterministicAcrossGOMAXPROCS does).
func TestGoroutinesOfAProcessAreItsTasksDeterminism(t *testing.T) {
	first := runGoroutines(t)
	var polls1, polls2, seen, setups, funcs int
	crashAt := time.Duration(-1)
	for _, s := range first {
		if s.Process != "op" {
			continue
		}
		switch {
		case s.Op == "crash":
			crashAt = s.At
		case s.Op == "create" && strings.Contains(s.Object, "seen-event-"):
			seen++
		case s.Op == "create" && strings.Contains(s.Object, "seen-func-"):
			funcs++
		case s.Op == "create" && strings.Contains(s.Object, "poll-1-"):
			polls1++
			if crashAt >= 0 {
				t.Errorf("a poller of incarnation 1 wrote after the crash at %s: %s", crashAt, s.Canonical())
			}
		case s.Op == "create" && strings.Contains(s.Object, "poll-2-"):
			polls2++
		case s.Op == "create" && strings.Contains(s.Object, "setup-"):
			setups++
		}
	}
	if polls1 < 9 || polls2 < 9 || setups != 2 || funcs != 2 {
		t.Fatalf("polls %d and %d in the two incarnations, %d writes of Setup's goroutine, %d requests of the source.Func's; want at least 9, 9, and 2 and 2", polls1, polls2, setups, funcs)
	}
	if seen < polls1+polls2-6 { // the last event of each poller may be in flight at the crash or the end
		t.Fatalf("the controller saw %d of the %d events sent into its source.Channel", seen, polls1+polls2)
	}
	want := hashOf(first)
	for i := range 19 {
		if got := hashOf(runGoroutines(t)); got != want {
			t.Fatalf("run %d: trace hash %s, the first run's %s", i+2, got, want)
		}
	}
	if out := os.Getenv("CTRLSIM_GOROUTINE_HASH"); out != "" {
		if err := os.WriteFile(out, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The same plan gives the same trace hash with GOMAXPROCS=1 and 4 (each in a
// child test process, under -race when this one is).
func TestGoroutinesAreDeterministicAcrossGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary twice")
	}
	if os.Getenv("CTRLSIM_GOROUTINE_HASH") != "" {
		t.Skip("in a child")
	}
	var hashes []string
	for _, procs := range []string{"1", "4"} {
		out := t.TempDir() + "/hash"
		cmd := exec.Command(os.Args[0], "-test.run=^TestGoroutinesOfAProcessAreItsTasksDeterminism$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs, "CTRLSIM_GOROUTINE_HASH="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("GOMAXPROCS=%s: %v\n%s", procs, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, string(b))
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("trace hash %s with GOMAXPROCS=1, %s with 4 (this process: %d)", hashes[0], hashes[1], runtime.GOMAXPROCS(0))
	}
}

// ownSource is a Source of the operator's own type.
type ownSource struct{}

func (ownSource) Start(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	return nil
}

// A source of the operator's own type (it could start anything) is still
// refused, with an error that names it and what the simulator runs.
func TestASourceOfTheOperatorsOwnTypeIsRefusedClearly(t *testing.T) {
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		c, err := cluster.New(mustParse(t, "seed 1\n"), cluster.Options{
			Scheme: apiservertest.Scheme(),
			Wall:   wall,
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				return ctrl.NewControllerManagedBy(p.Manager()).Named("own").WatchesRawSource(ownSource{}).
					Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
			}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Second)
		c.Close()
		for _, s := range c.Trace.Steps() {
			if s.Op == "setup" && strings.Contains(s.Result, "source wallclock_test.ownSource is not modelled") && strings.Contains(s.Result, "source.Channel and source.Func") {
				return
			}
		}
		t.Fatalf("no setup error naming the source in the trace")
	})
}
