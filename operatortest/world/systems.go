package world

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	kclock "k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// System is a model of something outside the cluster that the operator
// talks to (Options.Systems): a Helm release store, a catalog that
// publishes versions, a promotion target that opens pull requests. Each run
// makes its own instance (New), before time starts, on the run's virtual
// clock and admin client; every start of every manager shares it (it is
// outside the operator: a crash does not reset it), as do the domain steps
// and the properties of the run. Its Faults are domain steps drawn in the
// fault phase whose Do acts on the instance (env.System): a target that
// fails the next attempt, a catalog that withdraws a version.
//
//	Systems: []operatortest.System{{
//		Name: "promotion",
//		New: func(env operatortest.SystemEnv) (any, error) {
//			return promotion.New(env.Clock, env.Client), nil
//		},
//		Faults: []operatortest.DomainStep{{Name: "promotion-fails", Max: 1,
//			Do: func(ctx context.Context, env operatortest.StepEnv, _ operatortest.Args) error {
//				env.System("promotion").(*promotion.System).FailNext(1)
//				return nil
//			}}},
//	}},
//	Managers: []operatortest.Manager{{Name: "pipeline", SetupWithSystems: func(mgr manager.Manager, s operatortest.Systems) error {
//		return (&controller.PipelineReconciler{Client: mgr.GetClient(), Promoter: s["promotion"].(*promotion.System)}).SetupWithManager(mgr)
//	}}},
type System struct {
	// Name names the system in Systems, StepEnv.System and History.System.
	Name string
	// New makes the run's instance.
	New func(env SystemEnv) (any, error)
	// Faults are the system's own faults, drawn as domain steps within the
	// fault phase (a Within beyond it is cut to it).
	Faults []DomainStep
}

// SystemEnv is what a System's New makes its instance with.
type SystemEnv struct {
	// Client is the cluster admin's client (a system that writes into the
	// cluster: Flux applying a promotion).
	Client client.Client
	// Clock is the run's virtual clock.
	Clock kclock.WithTicker
	// Rand draws from the plan's seed (a stream of the system's own): the
	// same plan draws the same values.
	Rand *rand.Rand

	c    *cluster.Cluster // the run's: Healed, RefuseNext (serverfaults.go)
	name string           // the system's Name
}

// Trace records what the system did in the run's trace, as a step of the
// process named after the system (a promotion the target took, a release
// the store wrote): timelines, failure reports and pictures show it, and a
// violation whose text names object points at the steps on it ("1st
// promote ...", "2nd promote ..."). Result is "ok" or what went wrong.
func (env SystemEnv) Trace(op, object, result string) {
	env.c.Trace.Add(trace.Step{At: env.c.Now(), Process: env.name, Op: op, Object: object, Result: result})
}

// Systems are a run's instances of Options.Systems, by name.
type Systems map[string]any

// runSystems are the instances of the runs in progress, by their virtual
// clock (what a process, a step and a property of one run share).
type runSystems struct {
	mu   sync.Mutex
	Runs map[kclock.PassiveClock]Systems
}

func (r *runSystems) of(clk kclock.PassiveClock) Systems {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Runs[clk]
}

func (r *runSystems) set(clk kclock.PassiveClock, s Systems) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s == nil {
		delete(r.Runs, clk)
		return
	}
	if r.Runs == nil {
		r.Runs = map[kclock.PassiveClock]Systems{}
	}
	r.Runs[clk] = s
}

// ValidateSystems checks the systems and their faults (with the domain
// steps: one namespace of step names).
func ValidateSystems(systems []System, domain []DomainStep) error {
	seen := map[string]bool{}
	steps := DomainSteps(domain, systems, 0)
	for i, s := range systems {
		switch {
		case s.Name == "":
			return fmt.Errorf("Systems[%d]: Name is empty", i)
		case seen[s.Name]:
			return fmt.Errorf("Systems[%d]: Name %q is taken by an earlier system", i, s.Name)
		case s.New == nil:
			return fmt.Errorf("Systems[%d] (%s): New is nil: there would be no system", i, s.Name)
		}
		seen[s.Name] = true
	}
	return validateDomain(steps)
}

// DomainSteps are the workload's domain steps and the systems' faults,
// each fault within the fault phase (when faultPhase is set).
func DomainSteps(domain []DomainStep, systems []System, faultPhase int64) []DomainStep {
	out := append([]DomainStep(nil), domain...)
	for _, s := range systems {
		for _, f := range s.Faults {
			if faultPhase > 0 && (f.Within == 0 || int64(f.Within) > faultPhase) {
				f.Within = durationOf(faultPhase)
			}
			out = append(out, f)
		}
	}
	return out
}

// systems are the instances of every run in progress, by its virtual clock
// (what a process, a step and a property of one run share).
var ActiveSystems runSystems

// withSystems makes the run's systems in the world's Setup, before time
// starts (forgetSystems drops them when the run ends).
func (w *World) withSystems(o cluster.Options) cluster.Options {
	if len(w.Opts.Systems) == 0 {
		return o
	}
	setup := o.Setup
	o.Setup = func(c *cluster.Cluster) error {
		s := Systems{}
		for _, sys := range w.Opts.Systems {
			st := c.Stream("operatortest/system/" + sys.Name)
			inst, err := sys.New(SystemEnv{c: c, name: sys.Name, Client: c.Admin(), Clock: c.Clock, Rand: rand.New(rand.NewPCG(st.Uint64(), st.Uint64()))})
			if err != nil {
				return fmt.Errorf("Systems: %s: New: %w", sys.Name, err)
			}
			s[sys.Name] = inst
		}
		ActiveSystems.set(c.Clock, s)
		if setup == nil {
			return nil
		}
		return setup(c)
	}
	return o
}

// forgetSystems drops the run's systems (its cluster is closing).
func forgetSystems(c *cluster.Cluster) { ActiveSystems.set(c.Clock, nil) }

// System is the run's instance of the system named name (nil when there is
// none of that name).
func (env StepEnv) System(name string) any { return ActiveSystems.of(env.Clock)[name] }

// System is the run's instance of the system named name (nil when there is
// none of that name): a property reads the system's own record (a
// promotion ledger, a release history).
func (h *History) System(name string) any { return ActiveSystems.of(h.c.Clock)[name] }

// setupWithSystems is the process setup of a manager with SetupWithSystems.
func setupWithSystems(f func(manager.Manager, Systems) error) func(p *process.Process) error {
	return func(p *process.Process) error { return f(p.Manager(), ActiveSystems.of(p.Clock())) }
}

func durationOf(ns int64) time.Duration { return time.Duration(ns) }

// SystemNames are the systems' names (their processes in the trace).
func SystemNames(systems []System) []string {
	var out []string
	for _, s := range systems {
		out = append(out, s.Name)
	}
	return out
}
