package cluster_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

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
			return p.NewControllerManagedBy().For(&apiservertest.Widget{}).Complete(r)
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
