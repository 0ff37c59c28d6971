package cluster

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/sim/trace"
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
	// Retries names the processes whose retries the run waits for: where a
	// controller of one holds a key in back-off at the end of the heal budget
	// (process.Retries), its retry asked for before the heal (a failure under
	// the faults: a lagging cache's conflicts, a 429, each doubling the
	// key's back-off), the run goes on until the last such retry and a heal
	// budget more, once, before it is judged; the step "retries" at the
	// retry's time says so, and rest is counted from it. On a real cluster that retry
	// comes too, minutes later; a run judged before it judges a controller
	// still at work. A retry asked for after the heal (a failure the healed
	// world still causes) is not waited for.
	Retries []string
	// Scheduled names the processes whose scheduled work the run waits for:
	// where a controller of one has work scheduled past the end of the heal
	// budget (process.Scheduled: the kubelet's kill of a deleted pod's
	// containers at its grace period's end), the run goes on until the last
	// of it and a heal budget more, once, as for a retry (the later of the
	// two is waited for, and the step "scheduled" says so). A real cluster
	// does that work then, and the world reacts to it (the pod goes, its
	// controller makes another); a run judged before it judges a world
	// still at work, not one at rest.
	Scheduled []string
}

// retriesDue is when the last retry the run waits for (Phases.Retries) is
// due, and what it is; false if there is none.
func (c *Cluster) retriesDue(procs []string) (due time.Duration, last process.Retry, ok bool) {
	for _, name := range procs {
		p := c.Process(name)
		if p == nil {
			continue
		}
		for _, r := range p.Retries() {
			if r.Failed < c.healAt && (!ok || r.Due > due) {
				due, last, ok = r.Due, r, true
			}
		}
	}
	return due, last, ok
}

// awaited is when the last retry (Phases.Retries) or scheduled work
// (Phases.Scheduled) the run waits for is due, whichever is later, and the
// step that says so; false if there is none.
func (c *Cluster) awaited(ph Phases) (time.Duration, trace.Step, bool) {
	due, last, retry := c.retriesDue(ph.Retries)
	if at, work, ok := c.scheduledDue(ph.Scheduled); ok && (!retry || at > due) {
		return at, trace.Step{Op: "scheduled", Result: fmt.Sprintf("the run waited until now for the last work scheduled past the heal budget, and heals for %v more (%s)", ph.Heal, work)}, true
	}
	if retry {
		return due, trace.Step{Op: "retries", Result: fmt.Sprintf("the run waited until now for the last retry in back-off since the faults, and heals for %v more (%s)", ph.Heal, last)}, true
	}
	return 0, trace.Step{}, false
}

// scheduledDue is when the last work the run waits for (Phases.Scheduled)
// is due, and what it is; false if there is none.
func (c *Cluster) scheduledDue(procs []string) (due time.Duration, last process.Scheduled, ok bool) {
	for _, name := range procs {
		p := c.Process(name)
		if p == nil {
			continue
		}
		for _, s := range p.Scheduled() {
			if at := s.At.Sub(c.start); !ok || at > due {
				due, last, ok = at, s, true
			}
		}
	}
	return due, last, ok
}

// StallStormExcuse is the name operatortest/verdict's table of excuses
// gives the stall storm's note (a hot-loop verdict that holds with it
// names it in its Excused).
const StallStormExcuse = "stall-storm"

// Verdicts of the kernel itself, whatever the properties say.
const (
	// HotLoopProperty: a controller reconciled or wrote one object at least
	// HotLoopRate times a second for HotLoopSeconds seconds (HotLoop).
	HotLoopProperty = "hot-loop"
	// LivelockProperty: tasks ran without virtual time advancing (Livelock).
	LivelockProperty = "livelock"
	// ReconcilePanicProperty: a reconcile panicked (Findings).
	ReconcilePanicProperty = "reconcile-panic"
	// WorkBoundProperty: the run was cut at its work bound (Options.MaxSteps,
	// Cut). Always a note, never a violation: the world never reached the end
	// of its heal, so nothing is judged, and a storm a stalled watch drives is
	// what a real cluster does with correct code too (hotloop.go). The
	// harness says the run was cut, so that a plan that tested nothing is not
	// taken for one that held.
	WorkBoundProperty = "work-bound"
)

// RunPhases runs the fault phase, heals, runs AtHeal and the heal budget
// (and waits for the retries and the scheduled work Phases names), then
// judges props and adds the kernel's own verdicts, each violated when it
// happened: a hot loop, a livelock, a reconcile panic. A run cut at its work
// bound (Cut) is not judged: its verdicts are the kernel's, the cut's note
// among them.
func (c *Cluster) RunPhases(ph Phases, props ...check.Property) []check.Verdict {
	c.RunFor(ph.Fault)
	if c.Cut() != nil {
		return c.KernelVerdicts()
	}
	c.Heal()
	if ph.AtHeal != nil {
		ph.AtHeal(c)
	}
	c.RunFor(ph.Heal)
	if c.Cut() != nil {
		return c.KernelVerdicts()
	}
	if due, step, ok := c.awaited(ph); ok {
		c.RunUntil(due)
		c.record(step)
		c.RunFor(ph.Heal)
		if c.Cut() != nil {
			return c.KernelVerdicts()
		}
	}
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
		out = append(out, check.Verdict{Property: HotLoopProperty, Holds: true, Detail: strings.Join(d, "; "), Excused: []string{StallStormExcuse}})
	}
	if l := c.Livelock(); l != nil {
		// Tasks spun without time advancing (no API call in the loop): the
		// harness's guard stopped the run.
		out = append(out, check.Verdict{Property: LivelockProperty, At: l.At.Sub(c.Clock.Now().Add(-c.Now())), Detail: l.String()})
	}
	for _, f := range c.Findings() {
		out = append(out, check.Verdict{Property: ReconcilePanicProperty, At: f.At, Detail: f.String(), Where: f.Location})
	}
	if cut := c.Cut(); cut != nil {
		out = append(out, check.Verdict{Property: WorkBoundProperty, Holds: true, At: cut.At.Sub(c.start), Detail: c.cutNote(cut)})
	}
	return out
}

// cutNote says where a cut run's work went: the busiest writer or
// reconciler of one object over the last steps of the trace.
func (c *Cluster) cutNote(cut *scheduler.Cut) string {
	steps := c.Trace.Steps()
	window := steps[max(0, len(steps)-stormWindow):]
	type key struct{ by, kind, object string }
	counts := map[key]int{}
	var top key
	for _, s := range window {
		kind := stormKind(&s)
		if kind == "" || s.Process == "" || s.Process == "admin" {
			continue
		}
		k := key{by(&s), kind, s.Object}
		counts[k]++
		if counts[k] > counts[top] || counts[k] == counts[top] && top.by == "" {
			top = k
		}
	}
	at := cut.At.Sub(c.start)
	bound := fmt.Sprintf("%d task steps", cut.Steps)
	if cut.Why != "" {
		bound = fmt.Sprintf("%s, after %d task steps", cut.Why, cut.Steps)
	}
	note := fmt.Sprintf("the run was cut at its work bound, %s, at %s of virtual time; not judged", bound, at)
	if top.by == "" {
		return note
	}
	stalled := ""
	if c.faults.stalled() {
		stalled = ", while a watch was stalled"
	}
	first := window[0].At
	for _, s := range window {
		if stormKind(&s) != "" {
			first = s.At
			break
		}
	}
	return fmt.Sprintf("%s: a storm: %s made %d %s of %s in its last %s%s", note, top.by, counts[top], top.kind, top.object, (at - first).Round(time.Millisecond), stalled)
}

// stormWindow is how many of a cut run's last trace steps its note reads.
const stormWindow = 2000

// stormKind is "reconciles" or "writes" for the steps a storm is made of,
// "" for the others (as the hot-loop bound counts them).
func stormKind(s *trace.Step) string {
	op, _, _ := strings.Cut(strings.TrimPrefix(s.Op, "cached-"), "/")
	switch op {
	case "reconcile":
		return "reconciles"
	case "create", "update", "patch", "delete", "deletecollection":
		return "writes"
	}
	return ""
}
