package cluster

import (
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/check"
)

// Phases are the two phases of a run: safety under faults, then heal and
// require convergence within a budget (TigerBeetle's VOPR liveness mode,
// docs/design.md's check package).
type Phases struct {
	// Fault is the length of the fault phase: the plan's workload and faults.
	Fault time.Duration
	// Heal is the heal budget: after Heal (faults stop, caches catch up), the
	// time the world has to converge before it is judged.
	Heal time.Duration
	// AtHeal, if set, runs right after Heal: the end of a workload that would
	// otherwise go on (a test's own timers, say).
	AtHeal func(c *Cluster)
}

// Verdicts of the kernel itself, whatever the properties say.
const (
	// HotLoopProperty: a controller reconciled or wrote one object at least
	// HotLoopRate times a second for HotLoopSeconds seconds (HotLoop).
	HotLoopProperty = "hot-loop"
	// LivelockProperty: tasks ran without virtual time advancing (Livelock).
	LivelockProperty = "livelock"
	// ReconcilePanicProperty: a reconcile panicked (Findings).
	ReconcilePanicProperty = "reconcile-panic"
)

// RunPhases runs the fault phase, heals, runs AtHeal and the heal budget, then
// judges props and adds the kernel's own verdicts, each violated when it
// happened: a hot loop, a livelock, a reconcile panic.
func (c *Cluster) RunPhases(ph Phases, props ...check.Property) []check.Verdict {
	c.RunFor(ph.Fault)
	c.Heal()
	if ph.AtHeal != nil {
		ph.AtHeal(c)
	}
	c.RunFor(ph.Heal)
	return append(c.Judge(props...), c.KernelVerdicts()...)
}

// KernelVerdicts are the violations the kernel saw, in the order above: a hot
// loop that stopped the run, a livelock, and each reconcile panic.
func (c *Cluster) KernelVerdicts() []check.Verdict {
	var out []check.Verdict
	if h := c.HotLoop(); h != nil {
		// A storm of reconciles or writes stopped the run: a bug of its own.
		out = append(out, check.Verdict{Property: HotLoopProperty, At: h.At, Detail: h.String()})
	} else if notes := c.StallStorms(); len(notes) > 0 {
		// Storms a stalled watch drove, over when it ended: said, not blamed.
		var d []string
		for _, n := range notes {
			d = append(d, n.StallString())
		}
		out = append(out, check.Verdict{Property: HotLoopProperty, Holds: true, Detail: strings.Join(d, "; ")})
	}
	if l := c.Livelock(); l != nil {
		// Tasks spun without time advancing (no API call in the loop): the
		// harness's guard stopped the run.
		out = append(out, check.Verdict{Property: LivelockProperty, At: l.At.Sub(c.Clock.Now().Add(-c.Now())), Detail: l.String()})
	}
	for _, f := range c.Findings() {
		out = append(out, check.Verdict{Property: ReconcilePanicProperty, At: f.At, Detail: f.String(), Where: f.Location})
	}
	return out
}
