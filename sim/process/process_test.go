package process_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

var ctx = context.Background()

// scripted returns the next of its results at each reconcile and records when.
type scripted struct {
	c       *cluster.Cluster
	results []func() (reconcile.Result, error)
	at      []time.Duration
}

func (s *scripted) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	s.at = append(s.at, s.c.Now())
	if len(s.results) == 0 {
		return reconcile.Result{}, nil
	}
	f := s.results[0]
	s.results = s.results[1:]
	return f()
}

func ok() (reconcile.Result, error)   { return reconcile.Result{}, nil }
func fail() (reconcile.Result, error) { return reconcile.Result{}, errors.New("boom") }
func terminal() (reconcile.Result, error) {
	return reconcile.Result{}, reconcile.TerminalError(errors.New("no"))
}
func after(d time.Duration) func() (reconcile.Result, error) {
	return func() (reconcile.Result, error) { return reconcile.Result{RequeueAfter: d}, nil }
}
func requeue() (reconcile.Result, error) {
	return reconcile.Result{Requeue: true}, nil //nolint:staticcheck // the deprecated field is what this pins
}
func panics() (reconcile.Result, error) { panic("reconciler bug") }

// oneConfigMap is a world with ConfigMap default/cm and one process whose
// controller reconciles ConfigMaps with r.
func oneConfigMap(t *testing.T, p *plan.Plan, opts controller.Options, r func(c *cluster.Cluster) reconcile.Reconciler) *cluster.Cluster {
	t.Helper()
	var c *cluster.Cluster
	c, err := cluster.New(p, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).WithOptions(opts).Complete(r(c))
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func ms(n ...int) []time.Duration {
	out := make([]time.Duration, len(n))
	for i, x := range n {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// The dispatch of reconcile results, as controller-runtime's reconcileHandler does
// it (pkg/internal/controller/controller.go, v0.25.2), on both queues.
func TestReconcileResultDispatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		results []func() (reconcile.Result, error)
		want    []time.Duration // when the reconciles start
	}{
		{"success: Forget, nothing more", []func() (reconcile.Result, error){ok}, ms(0)},
		{"error: AddRateLimited, backoff 5ms*2^n", []func() (reconcile.Result, error){fail, fail, fail, fail, ok}, ms(0, 5, 15, 35, 75)},
		{"TerminalError: dropped, no requeue", []func() (reconcile.Result, error){terminal}, ms(0)},
		{"RequeueAfter: Forget then AddAfter", []func() (reconcile.Result, error){fail, fail, after(30 * time.Second), fail, ok}, ms(0, 5, 15, 30015, 30020)},
		{"Requeue: AddRateLimited", []func() (reconcile.Result, error){requeue, requeue, ok}, ms(0, 5, 15)},
		{"panic: recovered into an error, requeued with backoff", []func() (reconcile.Result, error){panics, ok}, ms(0, 5)},
	} {
		for _, usePriority := range []bool{true, false} {
			name := fmt.Sprintf("%s/priority=%v", tc.name, usePriority)
			t.Run(name, func(t *testing.T) {
				s := &scripted{results: append([]func() (reconcile.Result, error){}, tc.results...)}
				c := oneConfigMap(t, &plan.Plan{}, controller.Options{UsePriorityQueue: ptr.To(usePriority)}, func(c *cluster.Cluster) reconcile.Reconciler {
					s.c = c
					return s
				})
				c.RunFor(time.Hour)
				if fmt.Sprint(s.at) != fmt.Sprint(tc.want) {
					t.Errorf("reconciles at %v, want %v", s.at, tc.want)
				}
				if strings.HasPrefix(tc.name, "panic") && len(c.Findings()) != 1 {
					t.Errorf("a reconcile panic is a finding, got %v", c.Findings())
				}
			})
		}
	}
}

// An event for a key that is being reconciled marks it dirty: it runs again right
// after Done, with no backoff (client-go workqueue).
func TestEventDuringReconcileRerunsWithoutBackoff(t *testing.T) {
	s := &sleepy{}
	c := oneConfigMap(t, &plan.Plan{}, controller.Options{}, func(c *cluster.Cluster) reconcile.Reconciler {
		s.c = c
		return s
	})
	c.Clock.AfterFunc(time.Second, func() {
		cm := &corev1.ConfigMap{}
		if err := c.Get(types.NamespacedName{Namespace: "default", Name: "cm"}, cm); err != nil {
			t.Error(err)
		}
		cm.Data = map[string]string{"k": "v"}
		if err := c.Admin().Update(ctx, cm); err != nil {
			t.Error(err)
		}
	})
	c.RunFor(time.Minute)
	if want := []time.Duration{0, 10 * time.Second}; fmt.Sprint(s.at) != fmt.Sprint(want) {
		t.Errorf("reconciles at %v, want %v", s.at, want)
	}
}

type sleepy struct {
	c  *cluster.Cluster
	at []time.Duration
}

func (s *sleepy) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	s.at = append(s.at, s.c.Now())
	s.c.Clock.Sleep(10 * time.Second) // a clock wait inside a reconcile yields to the kernel
	return reconcile.Result{}, nil
}

// writer creates "a", then "b", and "deferred" in a deferred call.
type writer struct{ cl func() client.Client }

func (w *writer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cl := w.cl()
	create := func(name string) error {
		err := cl.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}})
		if err != nil && !strings.Contains(err.Error(), "already exists") {
			return err
		}
		return nil
	}
	if req.Name != "cm" {
		return reconcile.Result{}, nil
	}
	defer func() { _ = create("deferred") }()
	if err := create("a"); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, create("b")
}

// A crash at the Nth client call: the call never happens, nor does any later or
// deferred call of the killed reconcile; the process restarts after 10s with an
// empty cache, relists and reconciles again.
func TestCrashAtClientCall(t *testing.T) {
	var proc *process.Process
	p, err := plan.Parse("seed 1\ncrash process=op call=2\n")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(p, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			proc = p
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(&writer{cl: p.GetClient})
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exists := func(name string) bool {
		return c.Get(types.NamespacedName{Namespace: "default", Name: name}, &corev1.Secret{}) == nil
	}
	c.RunFor(5 * time.Second)
	// Call 1 creates a; the crash is call 2 (create b); the deferred create never runs.
	if !exists("a") || exists("b") || exists("deferred") || proc.Running() {
		t.Fatalf("after the crash: a=%v b=%v deferred=%v running=%v", exists("a"), exists("b"), exists("deferred"), proc.Running())
	}
	c.RunFor(10 * time.Second)
	if !proc.Running() || proc.Restarts() != 1 || !exists("b") || !exists("deferred") {
		t.Errorf("after CrashLoopBackOff (10s) the process restarts and reconciles again: running=%v restarts=%d b=%v", proc.Running(), proc.Restarts(), exists("b"))
	}
}

// A process that exits over and over restarts after 10s, 20s, 40s, ... capped at
// 300s (kubelet CrashLoopBackOff).
func TestExitRestartsWithCrashLoopBackOff(t *testing.T) {
	var proc *process.Process
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			proc = p
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				proc.Exit(1)
				return reconcile.Result{}, errors.New("unreachable")
			}))
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(30 * time.Minute)
	var starts []time.Duration
	for _, s := range c.Trace.Steps() {
		if s.Op == "restart" {
			starts = append(starts, s.At)
		}
	}
	want := []time.Duration{10, 30, 70, 150, 310, 610, 910, 1210, 1510}
	for i := range want {
		want[i] *= time.Second
	}
	if fmt.Sprint(starts) != fmt.Sprint(want) {
		t.Errorf("restarts at %v, want %v", starts, want)
	}
}

// A process bound to a Deployment runs while the Deployment exists and stops for
// good when it is deleted.
func TestProcessBoundToDeployment(t *testing.T) {
	var reconciles []time.Duration
	var c *cluster.Cluster
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{
			Name: "ns-reconciler", BoundTo: &types.NamespacedName{Namespace: "default", Name: "ns-reconciler"}, StartDelay: 2 * time.Second,
			Setup: func(p *process.Process) error {
				return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
					reconciles = append(reconciles, c.Now())
					return reconcile.Result{RequeueAfter: time.Minute}, nil
				}))
			},
		}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	proc := c.Process("ns-reconciler")
	c.RunFor(time.Minute)
	if proc.Running() || len(reconciles) != 0 {
		t.Fatal("no Deployment, no process")
	}
	labels := map[string]string{"app": "ns-reconciler"}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ns-reconciler"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "reconciler", Image: "reconciler:1"}}}}}}
	if err := c.Admin().Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	c.RunFor(150 * time.Second) // until 3m30s
	if !proc.Running() || len(reconciles) != 3 || reconciles[0] != 62*time.Second {
		t.Fatalf("running=%v reconciles=%v", proc.Running(), reconciles)
	}
	if err := c.Admin().Delete(ctx, dep); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Hour)
	if proc.Running() || len(reconciles) != 3 {
		t.Errorf("after the Deployment is deleted the process stops for good: running=%v reconciles=%d", proc.Running(), len(reconciles))
	}
}

// A crash planned at a call made outside a reconcile (Setup's, or an event
// handler's) kills the process as well: the call fails instead of happening, and
// the process restarts after CrashLoopBackOff.
func TestCrashAtACallOutsideAReconcile(t *testing.T) {
	var proc *process.Process
	p, err := plan.Parse("seed 1\ncrash process=op call=1\n")
	if err != nil {
		t.Fatal(err)
	}
	setupErrs := 0
	c, err := cluster.New(p, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			proc = p
			// A direct read in Setup: client call 1 of the run.
			if err := p.GetAPIReader().Get(ctx, types.NamespacedName{Name: "default"}, &corev1.Namespace{}); err != nil {
				setupErrs++
			}
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				return reconcile.Result{}, nil
			}))
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(5 * time.Second)
	if proc.Running() || setupErrs != 1 {
		t.Fatalf("the crash at Setup's call stops the process: running=%v setup errors=%d", proc.Running(), setupErrs)
	}
	c.RunFor(10 * time.Second)
	if !proc.Running() || proc.Restarts() != 1 {
		t.Errorf("it restarts after 10s: running=%v restarts=%d", proc.Running(), proc.Restarts())
	}
}
