package cluster_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// stamp writes an annotation computed by value into each Widget, once.
type stamp struct {
	p     *process.Process
	value func() string
}

func (s *stamp) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	w := &apiservertest.Widget{}
	if err := s.p.GetClient().Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if _, ok := w.Annotations["stamp"]; ok {
		return reconcile.Result{}, nil
	}
	w.Annotations = map[string]string{"stamp": s.value()}
	return reconcile.Result{}, s.p.GetClient().Update(ctx, w)
}

func stampWorld(value func() string) func() cluster.Options {
	return func() cluster.Options {
		r := &stamp{value: value}
		opts := statusWorld(nil, 3)
		opts.CRDs = []apiserver.CRD{apiservertest.WidgetCRD}
		opts.Processes = []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			r.p = p
			return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).Complete(r)
		}}}
		return opts
	}
}

func checkDeterminism(value func() string) error {
	return cluster.CheckDeterminism(&plan.Plan{Seed: 1}, stampWorld(value), func(c *cluster.Cluster) { c.RunFor(time.Minute) })
}

var keys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields("a b c d e f g h i j k l m n o p q r s t u v w x y z") {
		m[k] = true
	}
	return m
}()

// The trace hash covers what writes stored: a reconciler that writes the wall
// clock into an object fails the determinism check, at the write. (Once wall-clock
// reads inside reconcilers follow virtual time, this write becomes deterministic
// and the expectation flips: see the drop-in issue.)
func TestAWallClockWrittenIntoAnObjectFailsTheDeterminismCheck(t *testing.T) {
	err := checkDeterminism(func() string { return time.Now().Format(time.RFC3339Nano) }) // lint:wall-clock the leak under test
	if err == nil {
		t.Fatal("a reconciler writing time.Now() into a Widget passed the determinism check")
	}
	if !strings.Contains(err.Error(), "update") {
		t.Errorf("the divergence should be at the write: %v", err)
	}
}

// So does output that depends on map iteration order.
func TestMapOrderWrittenIntoAnObjectFailsTheDeterminismCheck(t *testing.T) {
	inRangeOrder := func() string {
		var out []string
		for k := range keys { // lint:order-independent the nondeterminism under test
			out = append(out, k)
		}
		return strings.Join(out, ",")
	}
	// Two runs may draw the same order by chance; five pairs all agreeing would
	// need odds below one in a million.
	for range 5 {
		if checkDeterminism(inRangeOrder) != nil {
			return
		}
	}
	t.Fatal("a reconciler writing map-order output into a Widget passed the determinism check five times")
}

// The same reconciler writing a deterministic value passes.
func TestADeterministicValueWrittenIntoAnObjectPasses(t *testing.T) {
	sorted := func() string {
		var out []string
		for k := range keys { // lint:order-independent sorted below
			out = append(out, k)
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	if err := checkDeterminism(sorted); err != nil {
		t.Fatal(err)
	}
}

// Every write path stores times as serialization keeps them (metav1.Time: whole
// seconds; metav1.MicroTime: microseconds), so a read returns what a real
// apiserver would, whatever precision the writer had.
func TestStoredTimesHaveTheirSerializedPrecision(t *testing.T) {
	c, err := cluster.New(&plan.Plan{Seed: 1}, statusWorld(&statusWriter{}, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	fine := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "l"},
		Spec: coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: fine}}}
	if err := c.Admin().Create(ctx, lease); err != nil {
		t.Fatal(err)
	}
	got := &coordinationv1.Lease{}
	if err := c.Get(client.ObjectKeyFromObject(lease), got); err != nil {
		t.Fatal(err)
	}
	if want := fine.Truncate(time.Microsecond); !got.Spec.RenewTime.Time.Equal(want) {
		t.Errorf("create: a MicroTime reads back as %v, want %v", got.Spec.RenewTime.Time, want)
	}
	w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}
	if err := c.Admin().Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(w.DeepCopy())
	w.Annotations = map[string]string{"x": "y"}
	w.CreationTimestamp = metav1.NewTime(fine) // ignored: the server owns it
	if err := c.Admin().Patch(ctx, w, patch); err != nil {
		t.Fatal(err)
	}
	if ns := w.CreationTimestamp.Nanosecond(); ns != 0 {
		t.Errorf("patch: creationTimestamp has %d ns", ns)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm", Finalizers: []string{"example.com/x"}}}
	if err := c.Admin().Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	c.RunFor(1234567 * time.Microsecond) // the delete happens at a time with a fraction of a second
	if err := c.Admin().Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	if ns := cm.DeletionTimestamp.Nanosecond(); ns != 0 {
		t.Errorf("delete: deletionTimestamp %v has %d ns, want whole seconds", cm.DeletionTimestamp, ns)
	}
}
