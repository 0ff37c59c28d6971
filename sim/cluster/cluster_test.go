package cluster_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

var ctx = context.Background()

// stamper is a busy test controller: for each Widget it keeps a ConfigMap of the
// same name, writes status, sleeps, errors on red widgets and requeues odd sizes.
// Two replicas of it run in two processes and fight over the same objects.
type stamper struct {
	p *process.Process
}

func (s *stamper) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cl := s.p.GetClient()
	w := &apiservertest.Widget{}
	if err := cl.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, cl, cm, func() error {
		cm.Data = map[string]string{"size": strconv.Itoa(w.Spec.Size), "color": w.Spec.Color}
		return controllerutil.SetControllerReference(w, cm, cl.Scheme())
	}); err != nil {
		return reconcile.Result{}, err
	}
	s.p.Clock().Sleep(time.Duration(w.Spec.Size) * 100 * time.Millisecond)
	w.Status.Phase = "Stamped"
	w.Status.ObservedGeneration = w.Generation
	if err := cl.Status().Update(ctx, w); err != nil {
		return reconcile.Result{}, err
	}
	if w.Spec.Color == "red" {
		return reconcile.Result{}, fmt.Errorf("red widgets are not allowed")
	}
	if w.Spec.Size%2 == 1 {
		return reconcile.Result{RequeueAfter: time.Duration(w.Spec.Size) * time.Second}, nil
	}
	return reconcile.Result{}, nil
}

func widgetAction(f func(c *cluster.Cluster, w *apiservertest.Widget) error) cluster.Action {
	return cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
		size, _ := strconv.Atoi(args.Get("size"))
		w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: args.Get("name")},
			Spec: apiservertest.WidgetSpec{Size: size, Color: args.Get("color")}}
		return f(c, w)
	}, "name", "size", "color")
}

func world() cluster.Options {
	setup := func(p *process.Process) error {
		return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).Owns(&corev1.ConfigMap{}).Complete(&stamper{p: p})
	}
	return cluster.Options{
		Scheme:    apiservertest.Scheme(),
		CRDs:      []apiserver.CRD{apiservertest.WidgetCRD},
		Processes: []process.Spec{{Name: "a", Setup: setup}, {Name: "b", Setup: setup}},
		Actions: map[string]cluster.Action{
			"create": widgetAction(func(c *cluster.Cluster, w *apiservertest.Widget) error { return c.Admin().Create(ctx, w) }),
			"update": widgetAction(func(c *cluster.Cluster, w *apiservertest.Widget) error {
				cur := &apiservertest.Widget{}
				if err := c.Get(client.ObjectKeyFromObject(w), cur); err != nil {
					return err
				}
				cur.Spec = w.Spec
				return c.Admin().Update(ctx, cur)
			}),
			"delete": widgetAction(func(c *cluster.Cluster, w *apiservertest.Widget) error { return c.Admin().Delete(ctx, w) }),
		},
	}
}

var space = plan.Space{
	Processes:   []string{"a", "b"},
	Kinds:       []string{"test.ctrlsim.dev/v1/Widget", "/v1/ConfigMap"},
	Controllers: []string{"a/widget", "b/widget"},
	Horizon:     2 * time.Minute,
	APIFaults: []apiserver.Fault{
		{Verb: "update", Resource: "widgets", Subresource: "status", Code: 409},
		{Verb: "create", Resource: "configmaps", Code: 500, Count: 2},
		{Verb: "create", Resource: "configmaps", Ambiguous: true, Count: 1},
	},
	Workload: rapid.SliceOfN(rapid.Custom(func(t *rapid.T) plan.Step {
		return plan.Step{
			At:     time.Duration(rapid.IntRange(0, 90).Draw(t, "at")) * time.Second,
			Action: rapid.SampledFrom([]string{"create", "update", "delete"}).Draw(t, "action"),
			Args: plan.Args{
				{Key: "name", Value: rapid.SampledFrom([]string{"w1", "w2", "w3"}).Draw(t, "name")},
				{Key: "size", Value: strconv.Itoa(rapid.IntRange(0, 5).Draw(t, "size"))},
				{Key: "color", Value: rapid.SampledFrom([]string{"blue", "red"}).Draw(t, "color")},
			},
		}
	}), 1, 8),
}

func runPlan(p *plan.Plan) (*cluster.Cluster, error) {
	c, err := cluster.New(p, world())
	if err != nil {
		return nil, err
	}
	c.RunFor(space.Horizon)
	c.Heal()
	c.RunFor(10 * time.Minute)
	return c, nil
}

// Every plan replays to the same trace: across runs and across GOMAXPROCS values
// (and, in `make race`, under -race).
func TestDeterminismOverGeneratedPlans(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	gen := plan.Generator(space)
	for i := 0; i < 30; i++ {
		p := gen.Example(i)
		var hashes []string
		for _, procs := range []int{1, 2, 1} {
			runtime.GOMAXPROCS(procs)
			c, err := runPlan(p)
			if err != nil {
				t.Fatalf("plan %d: %v\n%s", i, err, p)
			}
			hashes = append(hashes, c.Trace.Hash())
			c.Close()
		}
		if hashes[0] != hashes[1] || hashes[0] != hashes[2] {
			err := cluster.CheckDeterminism(p, world, func(c *cluster.Cluster) {
				c.RunFor(space.Horizon)
				c.Heal()
				c.RunFor(10 * time.Minute)
			})
			t.Fatalf("plan %d gives different traces: %v\n%v\n%s", i, hashes, err, p)
		}
	}
}

func TestCheckDeterminismReportsTheFirstDivergentStep(t *testing.T) {
	calls := 0
	nondeterministic := func() cluster.Options {
		o := world()
		calls++
		n := calls
		o.Setup = func(c *cluster.Cluster) error { // a world that differs between runs
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprint("x", n)}})
		}
		o.Actions["touch"] = cluster.Act(func(c *cluster.Cluster, _ plan.Args) error {
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprint("touch", n)}})
		})
		return o
	}
	p := &plan.Plan{Steps: []plan.Step{{At: time.Second, Action: "touch"}}}
	err := cluster.CheckDeterminism(p, nondeterministic, func(c *cluster.Cluster) { c.RunFor(time.Minute) })
	if err == nil {
		t.Fatal("CheckDeterminism must notice a run that differs")
	}
	t.Log(err)
	if p := (&plan.Plan{Seed: 3}); cluster.CheckDeterminism(p, world, func(c *cluster.Cluster) { c.RunFor(time.Minute) }) != nil {
		t.Error("a deterministic world passes")
	}
}

func TestWorkloadFaultsAndHealing(t *testing.T) {
	p, err := plan.Parse(`seed 9
at 1s create name=w1 size=2 color=blue
at 2s create name=w2 size=1 color=red
at 30s update name=w2 size=2 color=blue
hold process=b kind=test.ctrlsim.dev/v1/Widget from=0s until=1m0s
api verb=create resource=configmaps code=500 count=1
crash process=a call=5
workers process=a controller=widget n=3
`)
	if err != nil {
		t.Fatal(err)
	}
	c, err := runPlan(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := c.Process("a")
	if a.Restarts() != 1 || !a.Running() {
		t.Errorf("process a crashed once at call 5 and came back: restarts=%d running=%v", a.Restarts(), a.Running())
	}
	for _, name := range []string{"w1", "w2"} {
		w := &apiservertest.Widget{}
		if err := c.Get(types.NamespacedName{Namespace: "default", Name: name}, w); err != nil {
			t.Fatal(err)
		}
		if w.Status.Phase != "Stamped" || w.Status.ObservedGeneration != w.Generation {
			t.Errorf("after healing, %s converges: %+v gen %d", name, w.Status, w.Generation)
		}
		cm := &corev1.ConfigMap{}
		if err := c.Get(types.NamespacedName{Namespace: "default", Name: name}, cm); err != nil || cm.Data["color"] != "blue" {
			t.Errorf("configmap %s: %v %v", name, cm.Data, err)
		}
	}
	if n := len(a.Controllers()); n != 1 {
		t.Errorf("one controller per incarnation, got %d", n)
	}
}

func TestUnknownActionsAndProcessesAreErrors(t *testing.T) {
	_, err := cluster.New(&plan.Plan{Steps: []plan.Step{{Action: "explode"}}}, world())
	if err == nil || !strings.Contains(err.Error(), `unknown action "explode" (this world has [create delete update])`) {
		t.Fatalf("unknown action must fail naming the known ones, got %v", err)
	}
	if _, err := cluster.New(&plan.Plan{Faults: []plan.Fault{{Kind: plan.Crash, Process: "zz", Call: 1}}}, world()); err == nil {
		t.Fatal("unknown process must fail")
	}
}

// An action that has not landed yet and goes on by itself (a *Pending) is a
// "pending:" line of the timeline, not an error; the world records how it
// ends with RecordAction, at that time.
func TestAPendingActionIsRecordedAsPendingNotAsAnError(t *testing.T) {
	o := world()
	o.Actions["retry"] = cluster.Act(func(c *cluster.Cluster, _ plan.Args) error {
		c.Clock.AfterFunc(2*time.Second, func() { c.RecordAction("retry", nil) })
		return fmt.Errorf("wrapped: %w", &cluster.Pending{Reason: "the old object is still being deleted; tried again in 2s"})
	})
	c, err := cluster.New(&plan.Plan{Seed: 1, Steps: []plan.Step{{At: time.Second, Action: "retry"}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(5 * time.Second)
	var got []string
	for _, s := range c.Trace.Steps() {
		if s.Op == "action" {
			got = append(got, fmt.Sprintf("%v %s %s", s.At, s.Object, s.Result))
		}
	}
	want := []string{"1s retry pending: the old object is still being deleted; tried again in 2s", "3s retry ok"}
	if !slices.Equal(got, want) {
		t.Fatalf("action lines %q, want %q", got, want)
	}
}
