package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// panicker panics in its first reconcile.
type panicker struct{ n int }

func (p *panicker) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	if p.n++; p.n == 1 {
		panic("first reconcile")
	}
	return reconcile.Result{}, nil
}

// A run is a fault phase, a heal and a heal budget; then the properties are
// judged, and the kernel adds what it saw whatever they say: a hot loop and a
// reconcile panic are violations where they happened.
func TestPhasesHealThenJudgeWithTheKernelsVerdicts(t *testing.T) {
	byProperty := func(vs []check.Verdict) map[string]check.Verdict {
		m := map[string]check.Verdict{}
		for _, v := range vs {
			m[v.Property] = v
		}
		return m
	}
	healedAt := time.Duration(-1)
	atHeal := func(c *cluster.Cluster) { healedAt = c.Now() }
	ph := cluster.Phases{Fault: 20 * time.Second, Heal: 40 * time.Second, AtHeal: atHeal}

	calm := &statusWriter{}
	c, err := cluster.New(&plan.Plan{Seed: 1}, statusWorld(calm, 1))
	if err != nil {
		t.Fatal(err)
	}
	vs := c.RunPhases(ph, check.Quiescent{Window: 10 * time.Second})
	c.Close()
	if len(vs) != 1 || !vs[0].Holds {
		t.Errorf("a converging controller: verdicts %v, want only the property's, holding", vs)
	}
	if healedAt != 20*time.Second || c.Now() != time.Minute || !c.Healed() {
		t.Errorf("healed at %v, ended at %v: want the heal at 20s and the end at 1m", healedAt, c.Now())
	}

	storm := &statusWriter{forever: true}
	c, err = cluster.New(&plan.Plan{Seed: 1}, statusWorld(storm, 1))
	if err != nil {
		t.Fatal(err)
	}
	hot := byProperty(c.RunPhases(ph))[cluster.HotLoopProperty]
	c.Close()
	if hot.Holds || hot.Property == "" || hot.At <= 0 || hot.At > 20*time.Second || !strings.Contains(hot.Detail, "Widget") {
		t.Errorf("a status write that retriggers itself: hot-loop verdict %+v, want violated within the fault phase, naming the Widget", hot)
	}

	opts := statusWorld(nil, 1)
	opts.Processes[0].Setup = setupFor(&panicker{})
	c, err = cluster.New(&plan.Plan{Seed: 1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	panicked := byProperty(c.RunPhases(ph))[cluster.ReconcilePanicProperty]
	c.Close()
	if panicked.Holds || !strings.Contains(panicked.Detail, "first reconcile") {
		t.Errorf("a reconcile that panics: verdict %+v, want reconcile-panic violated with the panic's value", panicked)
	}
}

// setupFor is a process Setup running r for Widgets.
func setupFor(r reconcile.Reconciler) func(p *process.Process) error {
	return func(p *process.Process) error {
		return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).Complete(r)
	}
}

// A reconcile panic's verdict names the code that panicked, the same in
// every run (no goroutine id, no address, no directory): what tells two
// panics apart.
func TestAPanicVerdictNamesTheCodeThatPanicked(t *testing.T) {
	var wheres []string
	for range 2 {
		opts := statusWorld(nil, 1)
		opts.Processes[0].Setup = setupFor(&panicker{})
		c, err := cluster.New(&plan.Plan{Seed: 1}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range c.RunPhases(cluster.Phases{Fault: time.Second, Heal: time.Second}) {
			if v.Property == cluster.ReconcilePanicProperty {
				wheres = append(wheres, v.Where)
			}
		}
		c.Close()
	}
	if len(wheres) != 2 || !strings.HasPrefix(wheres[0], "github.com/ctrlsim/ctrlsim/sim/cluster_test.(*panicker).Reconcile (phases_test.go:") || wheres[0] != wheres[1] {
		t.Errorf("panic locations %q, want the panicker's Reconcile in phases_test.go, the same twice", wheres)
	}
}
