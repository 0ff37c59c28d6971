package cluster_test

import (
	"context"
	"slices"
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
	"github.com/ctrlsim/ctrlsim/sim/trace"
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

// A run has a bound on its work (Options.MaxSteps): a storm that a stalled
// watch excuses from the hot-loop bound (a note, not a violation) is cut
// there, and a cut run is not judged: its verdicts are the kernel's, with a
// note naming the storm.
func TestARunCutAtItsWorkBoundIsNotJudgedAndNamesTheStorm(t *testing.T) {
	storm := &statusWriter{forever: true}
	opts := statusWorld(storm, 1)
	opts.MaxSteps = 3000
	c, err := cluster.New(mustParse(t, "seed 1\nhold process=op kind=/v1/Secret from=0s until=20s\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	vs := c.RunPhases(cluster.Phases{Fault: 20 * time.Second, Heal: 40 * time.Second}, check.Quiescent{Window: 10 * time.Second})
	end := c.Now()
	c.Close()
	if c.Cut() == nil || c.Sched.Steps() != 3000 || end >= 20*time.Second {
		t.Fatalf("cut %+v after %d steps at %v: want the run cut at 3000 steps within the fault phase", c.Cut(), c.Sched.Steps(), end)
	}
	if len(vs) != 1 || vs[0].Property != cluster.WorkBoundProperty || !vs[0].Holds {
		t.Fatalf("verdicts %+v: want only the work bound's note (the property is not judged)", vs)
	}
	for _, want := range []string{"cut at its work bound, 3000 task steps", "a storm: op/", "of Widget default/w0", "while a watch was stalled", "not judged"} {
		if !strings.Contains(vs[0].Detail, want) {
			t.Errorf("the note %q does not say %q", vs[0].Detail, want)
		}
	}

	// The objects a world may hold are bounded too: a run whose apiserver
	// holds more is cut at once, its note naming the bound.
	opts = statusWorld(&statusWriter{}, 10)
	opts.MaxObjects = 5
	c, err = cluster.New(&plan.Plan{Seed: 1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	vs = c.RunPhases(cluster.Phases{Fault: 20 * time.Second, Heal: 40 * time.Second}, check.Quiescent{Window: 10 * time.Second})
	c.Close()
	if len(vs) != 1 || vs[0].Property != cluster.WorkBoundProperty || !strings.Contains(vs[0].Detail, "cut at its work bound, more than 5 objects, after 1 task steps") {
		t.Errorf("ten Widgets in a world of at most five objects: %+v", vs)
	}

	// And the writes it may commit: the storm's status writes are cut past
	// them.
	opts = statusWorld(&statusWriter{forever: true}, 1)
	opts.MaxWrites = 500
	c, err = cluster.New(mustParse(t, "seed 1\nhold process=op kind=/v1/Secret from=0s until=20s\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	vs = c.RunPhases(cluster.Phases{Fault: 20 * time.Second, Heal: 40 * time.Second})
	c.Close()
	if len(vs) != 1 || vs[0].Property != cluster.WorkBoundProperty || !strings.Contains(vs[0].Detail, "cut at its work bound, more than 500 writes") || len(c.Server.Log()) != 501 {
		t.Errorf("a storm of status writes in a world of at most 500 writes: %+v after %d writes", vs, len(c.Server.Log()))
	}

	// Without the bound the same storm runs to the end of the fault
	// phase: a note of the hot-loop bound, not a violation.
	opts = statusWorld(&statusWriter{forever: true}, 1)
	opts.MaxSteps = -1
	c, err = cluster.New(mustParse(t, "seed 1\nhold process=op kind=/v1/Secret from=0s until=20s\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	c.RunFor(20 * time.Second)
	if c.Cut() != nil || c.Sched.Steps() <= 3000 || len(c.StallStorms()) == 0 {
		t.Errorf("unbounded: cut %+v, %d steps, stall storms %v: want a stall storm of more than 3000 steps", c.Cut(), c.Sched.Steps(), c.StallStorms())
	}
	// The kernel's hot-loop verdict holds by the stall storm's excuse, and
	// names it.
	if kv := c.KernelVerdicts(); len(kv) != 1 || kv[0].Property != cluster.HotLoopProperty || !kv[0].Holds || !slices.Equal(kv[0].Excused, []string{cluster.StallStormExcuse}) {
		t.Errorf("the kernel's verdicts on a stall storm: %+v, want hot-loop holding by %s", kv, cluster.StallStormExcuse)
	}
	c.Close()
}

// Work a controller has scheduled past the heal budget (a kubelet's kill at
// a grace period's end) is waited for where Phases.Scheduled names its
// process: the run goes on until it and a heal budget more, once, and the
// step "scheduled" says so; work due within the heal budget, or of a process
// not named, moves nothing.
func TestARunWaitsForTheWorkItsProcessesScheduled(t *testing.T) {
	end := func(due time.Duration, named []string) (time.Duration, []trace.Step) {
		opts := statusWorld(&statusWriter{}, 1)
		setup := opts.Processes[0].Setup
		opts.Processes[0].Setup = func(p *process.Process) error {
			at := p.Clock().Now().Add(due) // the process boots at the run's start
			p.Manager().AddScheduled(func() []process.Scheduled {
				return []process.Scheduled{{Controller: "kubelet", Kind: "Pod", Key: "default/cache", What: "its containers are killed", At: at}}
			})
			return setup(p)
		}
		c, err := cluster.New(&plan.Plan{Seed: 1}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.RunPhases(cluster.Phases{Fault: 20 * time.Second, Heal: 40 * time.Second, Scheduled: named})
		var waits []trace.Step
		for _, s := range c.Trace.Steps() {
			if s.Op == "scheduled" {
				waits = append(waits, s)
			}
		}
		return c.Now(), waits
	}
	if got, waits := end(time.Minute+5*time.Second, []string{"op"}); got != time.Minute+45*time.Second || len(waits) != 1 ||
		waits[0].At != time.Minute+5*time.Second || !strings.Contains(waits[0].Result, "Pod default/cache: its containers are killed") {
		t.Errorf("work due at 1m5s, past the heal budget: the run ended at %v with the steps %+v, want the end at 1m45s after one step \"scheduled\" at 1m5s naming it", got, waits)
	}
	if got, waits := end(50*time.Second, []string{"op"}); got != time.Minute || len(waits) != 0 {
		t.Errorf("work due at 50s, within the heal budget: the run ended at %v with the steps %+v, want the end at 1m", got, waits)
	}
	if got, waits := end(time.Minute+5*time.Second, nil); got != time.Minute || len(waits) != 0 {
		t.Errorf("work of a process not named: the run ended at %v with the steps %+v, want the end at 1m", got, waits)
	}
}
