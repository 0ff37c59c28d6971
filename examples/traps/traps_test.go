package traps_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	mirrorop "github.com/ctrlsim/ctrlsim/examples/clientgo"
	"github.com/ctrlsim/ctrlsim/examples/traps"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

// childEnv names the child test a test binary runs (runChild).
const childEnv = "CTRLSIM_TRAPS_CHILD"

// runChild runs the test child in a child test binary and returns its
// output, whether it passed and how long it took.
func runChild(t *testing.T, child string) (string, bool, time.Duration) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.v", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), childEnv+"="+child, "CTRLSIM_ARTIFACTS="+t.TempDir())
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), err == nil, time.Since(start)
}

func childOnly(t *testing.T) {
	if os.Getenv(childEnv) != t.Name() {
		t.Skip("run by its parent test in a child test binary")
	}
}

// failsWithOneLine runs child, which must fail within a minute with one
// line of operatortest's that holds each of want, and nothing else failing.
func failsWithOneLine(t *testing.T, child string, want ...string) {
	t.Helper()
	out, passed, took := runChild(t, child)
	if passed {
		t.Fatalf("%s passed:\n%s", child, out)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		// Progress lines (a plan judged, one cut at its bound) are not failures.
		if strings.Contains(l, "operatortest: ") && !strings.Contains(l, " plans judged in ") && !strings.Contains(l, " ran past the wall-clock bound of ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%s printed %d lines of operatortest's, want one:\n%s", child, len(lines), out)
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Errorf("the line lacks %q:\n%s", w, lines[0])
		}
	}
	if strings.Contains(out, "panic:") || strings.Contains(out, "deadlock") && !strings.Contains(lines[0], "deadlock") {
		t.Errorf("%s panicked:\n%s", child, out)
	}
	if took > time.Minute {
		t.Errorf("%s took %s to fail, want under a minute", child, took.Round(time.Second))
	}
	t.Logf("%s failed in %s: %s", child, took.Round(100*time.Millisecond), lines[0])
}

var seed = []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
	Labels: map[string]string{mirrorop.MirrorLabel: "yes"}}, Data: map[string]string{"a": "b"}}}

// mirror is examples/clientgo's operator, its queue made by queue.
func mirror(queue func(env clientgo.Env) (workqueue.TypedRateLimitingInterface[cache.ObjectName], error)) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme, Checks: 30, Workers: 1, Objects: seed,
		Managers: []operatortest.Manager{{Name: "mirror", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			q, err := queue(env)
			if err != nil {
				return err
			}
			f := env.InformerFactory
			c, err := mirrorop.NewController(ctx, env.Clientset, f.Core().V1().ConfigMaps(), f.Core().V1().Secrets(), q, false)
			if err != nil {
				return err
			}
			f.Start(ctx.Done())
			return c.Run(ctx, 2)
		})}},
	}
}

func ownQueue(clientgo.Env) (workqueue.TypedRateLimitingInterface[cache.ObjectName], error) {
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
		workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "mirrors"}), nil
}

// holds explores o (30 plans) and wants no violation.
func holds(t *testing.T, o operatortest.Options) {
	t.Helper()
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks != 30 {
		t.Errorf("%d plans, violations %v; want 30 plans and none", res.Checks, res.Violations)
	}
}

// A client-go operator that builds its own workqueue, as its main does,
// holds: client-go's queue runs in the world on virtual time (its waiting
// loop's timers and its rate limiter on the bubble's clock, its workers
// rejoining the scheduler at their first request). It failed with one
// line naming the queue before, and ran for minutes a plan before that
// (the close slept a hundred years of its tickers).
func TestAClientGoOperatorWithItsOwnWorkqueueHolds(t *testing.T) {
	holds(t, mirror(ownQueue))
}

// A start that builds a real workqueue and never uses it (nor shuts it
// down) holds too: its goroutines are abandoned with each world.
func TestASetupThatBuildsAnUnusedWorkqueueHolds(t *testing.T) {
	holds(t, mirror(func(env clientgo.Env) (workqueue.TypedRateLimitingInterface[cache.ObjectName], error) {
		_ = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()) // built and never used
		return clientgo.Queue[cache.ObjectName](env, nil)
	}))
}

// copier is the Copier operator, set up by setup.
func copier(setup func(mgr manager.Manager) error) operatortest.Options {
	return operatortest.Options{Scheme: clientgoscheme.Scheme, Checks: 30, Workers: 1, Objects: seed,
		Managers: []operatortest.Manager{{Name: "copier", Setup: setup}}}
}

// A controller-runtime operator that builds its own client-go workqueue
// beside its controllers (drained, and shut down when its process's
// context ends) holds: the queue runs in the world on virtual time.
func TestAControllerRuntimeOperatorWithItsOwnWorkqueueHolds(t *testing.T) {
	holds(t, copier(func(mgr manager.Manager) error {
		q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "handoff"})
		if err := traps.Drain(mgr, q); err != nil {
			return err
		}
		return (&traps.Copier{Client: mgr.GetClient(), Handoff: q}).SetupWithManager(mgr)
	}))
}

func TestChildJanitor(t *testing.T) {
	childOnly(t)
	operatortest.Run(t, copier(func(mgr manager.Manager) error {
		recent := traps.NewTTLCache(time.Minute, 10*time.Second)
		return (&traps.Copier{Client: mgr.GetClient(), Recent: recent}).SetupWithManager(mgr)
	}))
}

// A library's janitor goroutine that never exits is abandoned with each
// world and named once in the test's output, by where it was started and
// where it waits, and what to do; the operator holds (before: the test
// failed for it, and with a task blocked at the close the close never
// returned).
func TestALibrarysJanitorThatNeverExitsIsAbandonedAndNamed(t *testing.T) {
	out, passed, _ := runChild(t, "TestChildJanitor")
	if !passed {
		t.Fatalf("the operator with a janitor failed:\n%s", out)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "outlived the world") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d lines name the janitor, want one:\n%s", len(lines), out)
	}
	for _, w := range []string{"1 goroutine of the code under test outlived the world and was abandoned with it", "started by github.com/ctrlsim/ctrlsim/examples/traps.NewTTLCache",
		"traps.(*TTLCache).janitor", "stop each when its process's context ends"} {
		if !strings.Contains(lines[0], w) {
			t.Errorf("the line lacks %q:\n%s", w, lines[0])
		}
	}
}

// The janitor stopped when its process's context ends, as the failure
// says to: the operator holds, crashes and restarts included.
func TestAJanitorStoppedWithItsProcessHolds(t *testing.T) {
	res, err := operatortest.Explore(t, copier(func(mgr manager.Manager) error {
		recent := traps.NewTTLCache(time.Minute, 10*time.Second)
		if err := traps.StopOnDone(mgr, recent); err != nil {
			return err
		}
		return (&traps.Copier{Client: mgr.GetClient(), Recent: recent}).SetupWithManager(mgr)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks != 30 {
		t.Errorf("the janitor stopped with its process: %d plans, violations %v; want 30 plans and none", res.Checks, res.Violations)
	}
}

// The client-go operator on clientgo.Queue holds (the
// failures above are the queue's, not the operator's).
func TestTheClientGoOperatorOnTheSimulatorsQueueHolds(t *testing.T) {
	res, err := operatortest.Explore(t, mirror(func(env clientgo.Env) (workqueue.TypedRateLimitingInterface[cache.ObjectName], error) {
		return clientgo.Queue[cache.ObjectName](env, nil)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks != 30 {
		t.Errorf("%d plans, violations %v; want 30 plans and none", res.Checks, res.Violations)
	}
}

// A plan whose judging runs past Options.PlanTimeout (wall time) is cut:
// named with its plan when it passes the bound, not judged, counted among
// the cut plans, and the exploration goes on to its budget, never left to
// go test's -timeout.
func TestAPlanPastItsWallClockBoundIsCutNamedAndCounted(t *testing.T) {
	var said []string
	log := search.LogProgress
	search.LogProgress = func(t *testing.T, format string, args ...any) {
		if l := fmt.Sprintf(format, args...); strings.Contains(l, "ran past the wall-clock bound") {
			said = append(said, l)
		}
		log(t, format, args...)
	}
	defer func() { search.LogProgress = log }()
	o := copier(func(mgr manager.Manager) error {
		return (&traps.Slow{Client: mgr.GetClient(), Work: 200}).SetupWithManager(mgr)
	})
	o.Checks, o.FaultPhase, o.HealBudget, o.PlanTimeout = 3, 10*time.Second, 20*time.Second, 300*time.Millisecond
	start := time.Now()
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d plans, %d cut, in %s: %s", res.Checks, res.Cut, time.Since(start).Round(100*time.Millisecond), res.CutNote)
	if res.Checks != 3 || res.Cut == 0 || !strings.Contains(res.CutNote, "the wall-clock bound of 300ms (Options.PlanTimeout)") {
		t.Errorf("%d plans, %d cut (%s); want 3 plans, some cut at the wall-clock bound", res.Checks, res.Cut, res.CutNote)
	}
	if len(said) == 0 || !strings.Contains(said[0], "cut, not judged (a plan: counted among the cut plans): seed ") {
		t.Errorf("the plans cut were not named with their plan: %q", said)
	}
}

// outside is a channel made outside every world's run: a goroutine of the
// bubble that waits on it is not durably blocked, so the bubble never
// settles.
var outside = make(chan struct{})

func TestChildBlockedOutside(t *testing.T) {
	childOnly(t)
	o := copier(func(mgr manager.Manager) error {
		if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
			<-outside
			return nil
		})); err != nil {
			return err
		}
		return (&traps.Copier{Client: mgr.GetClient()}).SetupWithManager(mgr)
	})
	o.PlanTimeout = time.Second
	operatortest.Run(t, o)
}

// A world that cannot step (a Runnable waits on a channel made outside the
// run: its bubble never settles) ends the test binary a bound after its
// cut, with one line naming the goroutine, rather than at go test's
// -timeout. The first run of a test with the default fault phase is the
// script's fault-free run that aims it (search's phase.go), watched as the
// preflight is.
func TestAWorldThatCannotStepEndsTheTestNamingWhatItWaitsFor(t *testing.T) {
	failsWithOneLine(t, "TestChildBlockedOutside", "the script's fault-free run (aiming the fault phase) did not end 1s after it was cut",
		"traps_test.TestChildBlockedOutside", "not on a mutex held for ever or a channel made outside the run")
}
