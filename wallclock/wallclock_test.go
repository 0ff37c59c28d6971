package wallclock_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// stamper is unmodified controller code as operators write it: it reads the
// wall clock (meta.SetStatusCondition stamps metav1.Now(); time.Since; a
// context deadline) and writes what it read into the ConfigMap it reconciles.
// The first pass reads the clock and asks to come back in 7 s; the second stamps.
type stamper struct {
	p     *process.Process
	sleep time.Duration // virtual time spent (on the injected clock) under a 3 s deadline
	first string        // what time.Now() read in the first pass
}

func (s *stamper) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cm := &corev1.ConfigMap{}
	if err := s.p.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if _, done := cm.Data["condition"]; done {
		return reconcile.Result{}, nil
	}
	if s.first == "" {
		s.first = time.Now().Format(time.RFC3339Nano)
		return reconcile.Result{RequeueAfter: 7 * time.Second}, nil
	}
	cm.Data = map[string]string{"first": s.first}
	var conds []metav1.Condition
	meta.SetStatusCondition(&conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Stamped"})
	deadline, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	s.p.Clock().Sleep(s.sleep)
	cm.Data["condition"] = conds[0].LastTransitionTime.UTC().Format(time.RFC3339)
	cm.Data["age"] = time.Since(cm.CreationTimestamp.Time).Round(time.Second).String()
	cm.Data["deadline"] = "not reached"
	if errors.Is(deadline.Err(), context.DeadlineExceeded) {
		cm.Data["deadline"] = "exceeded"
	}
	return reconcile.Result{}, s.p.GetClient().Update(ctx, cm)
}

func world(sleep time.Duration) func() cluster.Options {
	return func() cluster.Options {
		r := &stamper{sleep: sleep}
		return cluster.Options{
			Scheme: clientgoscheme.Scheme,
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
				r.p = p
				return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(r)
			}}},
			Setup: func(c *cluster.Cluster) error {
				return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}})
			},
		}
	}
}

func run(c *cluster.Cluster) { c.RunFor(time.Minute) }

// A reconciler that writes metav1.Now() and time.Now() into an object gives the
// same trace hash twice inside bubbles: the wall clock it reads is virtual.
func TestWallClockReadsAreVirtualInsideABubble(t *testing.T) {
	if err := wallclock.CheckDeterminism(t, &plan.Plan{Seed: 1}, world(0), run); err != nil {
		t.Fatal(err)
	}
	// Outside a bubble the same code stores the machine's clock, and the
	// determinism check catches it (the trace hash covers object contents).
	if err := cluster.CheckDeterminism(&plan.Plan{Seed: 1}, world(0), run); err == nil {
		t.Fatal("outside a bubble, a reconciler storing time.Now() passed the determinism check")
	}
}

// What the reconciler read is the virtual time of the read: the run starts at
// the bubble's start, the condition is stamped 7 s in (the requeue), time.Since
// measures virtual durations, and a context deadline fires after virtual time.
func TestTheWallClockFollowsVirtualTime(t *testing.T) {
	for _, tc := range []struct {
		sleep    time.Duration
		deadline string
	}{{time.Second, "not reached"}, {5 * time.Second, "exceeded"}} {
		wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
			o := world(tc.sleep)()
			o.Wall = wall
			c, err := cluster.New(&plan.Plan{Seed: 1}, o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := c.Clock.Now()
			if want := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); !start.Equal(want) {
				t.Errorf("the run starts at %v, want the bubble's start %v", start, want)
			}
			run(c)
			cm := &corev1.ConfigMap{}
			if err := c.Get(client.ObjectKey{Namespace: "default", Name: "x"}, cm); err != nil {
				t.Fatal(err)
			}
			first, err := time.Parse(time.RFC3339Nano, cm.Data["first"])
			if err != nil || first.Sub(start) < 0 || first.Sub(start) > 100*time.Millisecond {
				t.Errorf("time.Now() in the first reconcile read %v (%v): want within the first calls' latency of the start", cm.Data["first"], err)
			}
			if want := start.Add(7 * time.Second).Format(time.RFC3339); cm.Data["condition"] != want {
				t.Errorf("meta.SetStatusCondition stamped %s, want %s (7 s of virtual time in)", cm.Data["condition"], want)
			}
			if want := (7 * time.Second).String(); cm.Data["age"] != (7*time.Second + tc.sleep).String() {
				t.Errorf("time.Since(creation) read %s, want %s plus the %v slept", cm.Data["age"], want, tc.sleep)
			}
			if cm.Data["deadline"] != tc.deadline {
				t.Errorf("a 3 s deadline after %v of virtual time: %s, want %s", tc.sleep, cm.Data["deadline"], tc.deadline)
			}
		})
	}
}

// TestLeakHelper is run by TestAWaitOnTheWallClockIsReported in a process of
// its own: it must fail.
func TestLeakHelper(t *testing.T) {
	if os.Getenv("CTRLSIM_WALLCLOCK_LEAK") != "1" {
		t.Skip("run by TestAWaitOnTheWallClockIsReported")
	}
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := world(0)()
		setup := o.Processes[0].Setup
		o.Processes[0].Setup = func(p *process.Process) error {
			time.Sleep(50 * time.Millisecond) // the leak under test: Setup runs in the kernel
			return setup(p)
		}
		o.Wall = wall
		c, err := cluster.New(&plan.Plan{Seed: 1}, o)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.RunFor(time.Second)
	})
}

// A process's Setup runs in the kernel, not as a task: one that waits on the
// wall clock (time.Sleep) moves the bubble's clock ahead of virtual time, and
// the test that runs it fails, naming the leak. (A reconcile's or a
// Runnable's sleep waits in virtual time: sleep_test.go.)
func TestAWaitOnTheWallClockIsReported(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeakHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CTRLSIM_WALLCLOCK_LEAK=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a Setup calling time.Sleep passed:\n%s", out)
	}
	if !strings.Contains(string(out), "waited on the wall clock") {
		t.Errorf("the failure does not name the leak:\n%s", out)
	}
}

// A world run from a goroutine that a test framework started (Ginkgo runs
// each spec so) ends clean: the runtime lists synctest.Test's caller in the
// bubble, waiting for it, and the census must not take it for code under
// test that outlives the world.
func TestARunFromAFrameworksGoroutineFindsNothingOutliving(t *testing.T) {
	ran := false
	done := make(chan struct{})
	go func() { // as ginkgo's runNode starts a spec
		defer close(done)
		wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
			c, err := cluster.New(mustParse(t, "seed 1\n"), cluster.Options{
				Scheme: apiservertest.Scheme(),
				Wall:   wall,
				Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
					return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).
						Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
				}}},
			})
			if err != nil {
				t.Error(err)
				return
			}
			c.RunFor(time.Second)
			c.Close()
			ran = true
		})
	}()
	<-done
	if !ran {
		t.Fatal("the world did not run")
	}
}
