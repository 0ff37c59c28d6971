package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// statusWriter writes each Widget's status from its cached read. Forever, it
// writes a new value every time (its own write re-triggers it without end);
// otherwise it writes only what differs from the desired status, and reads its
// cache again right after the write to see whether its own write is there yet.
type statusWriter struct {
	p         *process.Process
	forever   bool
	requeue   time.Duration // return RequeueAfter this (a poller)
	passes    int
	writes    int
	sawOwn    int // cached reads right after a write that returned the written object
	missedOwn int
}

func (s *statusWriter) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cl := s.p.GetClient()
	w := &apiservertest.Widget{}
	if err := cl.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if s.requeue > 0 {
		return reconcile.Result{RequeueAfter: s.requeue}, nil
	}
	s.passes++
	phase := "Ready"
	if s.forever {
		phase = "pass-" + strconv.Itoa(s.passes)
	} else if w.Status.Phase == phase && w.Status.ObservedGeneration == w.Generation {
		return reconcile.Result{}, nil
	}
	w.Status.Phase, w.Status.ObservedGeneration = phase, w.Generation
	if err := cl.Status().Update(ctx, w); err != nil {
		return reconcile.Result{}, err
	}
	s.writes++
	again := &apiservertest.Widget{}
	if err := cl.Get(ctx, req.NamespacedName, again); err != nil {
		return reconcile.Result{}, err
	}
	if again.ResourceVersion == w.ResourceVersion {
		s.sawOwn++
	} else {
		s.missedOwn++
	}
	return reconcile.Result{}, nil
}

func statusWorld(r *statusWriter, widgets int) cluster.Options {
	return cluster.Options{
		Scheme: apiservertest.Scheme(),
		CRDs:   []apiserver.CRD{apiservertest.WidgetCRD},
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			r.p = p
			return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).Complete(r)
		}}},
		Setup: func(c *cluster.Cluster) error {
			for i := range widgets {
				w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("w%d", i)}}
				if err := c.Admin().Create(context.Background(), w); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func mustParse(t *testing.T, text string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A controller whose every status write re-triggers it, under 0-1 ms of informer
// lag, is a hot loop: API calls take time, so the loop spends virtual time (no
// livelock at one instant), and its rate stays far above the bound.
func TestAStatusWriteThatRetriggersItselfForeverIsAHotLoop(t *testing.T) {
	r := &statusWriter{forever: true}
	c, err := cluster.New(mustParse(t, "seed 1\nlag process=op kind=* min=0s max=1ms\n"), statusWorld(r, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Minute)
	h := c.HotLoop()
	if h == nil {
		t.Fatalf("no hot loop after %d status writes in %v", r.writes, c.Now())
	}
	if c.Livelock() != nil {
		t.Errorf("a loop of API calls spends virtual time; got a livelock: %v", c.Livelock())
	}
	if h.By != "op/widget" || !strings.Contains(h.Object, "default/w0") {
		t.Errorf("the hot loop names %q on %q, want the writer op/widget and the widget default/w0", h.By, h.Object)
	}
	if h.At < cluster.HotLoopSeconds*time.Second-time.Second || h.At > (cluster.HotLoopSeconds+1)*time.Second {
		t.Errorf("judged at %v: want once the rate has stayed above the bound for %ds", h.At, cluster.HotLoopSeconds)
	}
	if c.Now() != h.At {
		t.Errorf("the run went on to %v after the hot loop at %v", c.Now(), h.At)
	}
	if len(h.Recent) == 0 {
		t.Error("the hot loop carries no trace lines")
	}
	t.Logf("%v after %d writes; last lines:\n%s", h, r.writes, strings.Join(h.Recent, "\n"))
}

// The same controller writing only what differs converges: its own write
// re-triggers it once, it sees its write (or conflicts and retries) and stops. No
// verdict, on every seed.
func TestAStatusWriteThatRetriggersItselfOnceConverges(t *testing.T) {
	for seed := range 30 {
		r := &statusWriter{}
		c, err := cluster.New(mustParse(t, fmt.Sprintf("seed %d\nlag process=op kind=* min=0s max=1ms\n", seed)), statusWorld(r, 3))
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
		if h, l := c.HotLoop(), c.Livelock(); h != nil || l != nil {
			t.Fatalf("seed %d: a converging controller was judged a hot loop (%v) or livelock (%v)", seed, h, l)
		}
		for i := range 3 {
			w := &apiservertest.Widget{}
			if err := c.Get(client.ObjectKey{Namespace: "default", Name: fmt.Sprintf("w%d", i)}, w); err != nil {
				t.Fatal(err)
			}
			if w.Status.Phase != "Ready" {
				t.Errorf("seed %d: w%d did not converge: %+v", seed, i, w.Status)
			}
		}
		if r.passes > 3*4 {
			t.Errorf("seed %d: %d passes for 3 widgets: the loop did not end", seed, r.passes)
		}
		c.Close()
	}
}

// A poller is judged by its rate: every 100 ms is below the bound and runs for
// ever without a verdict; every 10 ms (100 per second) is a hot loop.
func TestAPollerIsAHotLoopOnlyAboveTheBound(t *testing.T) {
	for _, tc := range []struct {
		every time.Duration
		hot   bool
	}{{100 * time.Millisecond, false}, {1000 * time.Millisecond / (cluster.HotLoopRate - 2), false}, {10 * time.Millisecond, true}} {
		r := &statusWriter{requeue: tc.every}
		c, err := cluster.New(&plan.Plan{Seed: 3}, statusWorld(r, 1))
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(2 * time.Minute)
		if got := c.HotLoop() != nil; got != tc.hot {
			t.Errorf("requeue every %v: hot loop %v (%v), want %v", tc.every, got, c.HotLoop(), tc.hot)
		}
		c.Close()
	}
}

// A write's response and its watch event race, as in a real cluster: a cached
// read right after a write sometimes returns the write and usually not yet.
func TestAWriterSometimesSeesItsOwnWriteInItsCache(t *testing.T) {
	saw, missed := 0, 0
	for seed := range 20 {
		r := &statusWriter{}
		c, err := cluster.New(&plan.Plan{Seed: uint64(seed)}, statusWorld(r, 20))
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(10 * time.Second)
		saw, missed = saw+r.sawOwn, missed+r.missedOwn
		c.Close()
	}
	t.Logf("own write in the cache right after the response: %d of %d", saw, saw+missed)
	if saw == 0 || missed == 0 {
		t.Errorf("a writer saw its own write %d times and missed it %d times: want both", saw, missed)
	}
}

// A storm the workload drives is the controller keeping up, not a hot loop: a
// user who edits a Widget 25 times a second for 30 s makes its controller write
// status 25 times a second, and that is no verdict.
func TestAStormTheWorkloadDrivesIsNoHotLoop(t *testing.T) {
	r := &statusWriter{}
	opts := statusWorld(r, 1)
	setup := opts.Setup
	opts.Setup = func(c *cluster.Cluster) error {
		if err := setup(c); err != nil {
			return err
		}
		for i := 1; i <= 750; i++ {
			c.Clock.AfterFunc(time.Duration(i)*40*time.Millisecond, func() {
				w := &apiservertest.Widget{}
				if err := c.Get(client.ObjectKey{Namespace: "default", Name: "w0"}, w); err != nil {
					t.Error(err)
					return
				}
				w.Spec.Size = i
				if err := c.Admin().Update(context.Background(), w); err != nil {
					t.Error(err)
				}
			})
		}
		return nil
	}
	c, err := cluster.New(&plan.Plan{Seed: 5}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Minute)
	if h := c.HotLoop(); h != nil {
		t.Fatalf("a storm the workload drives was judged a hot loop: %v", h)
	}
	if r.writes < 25*cluster.HotLoopSeconds {
		t.Fatalf("only %d status writes: the storm did not happen, so the test shows nothing", r.writes)
	}
}
