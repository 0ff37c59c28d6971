package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/faults"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The fault phase: where faults are aimed. Left to its default
// (Options.FaultPhase 0), it is a minute, made longer where the operator's
// writes come later: before any plan runs, the fault-free run of the
// test's script on the explorer seed's schedule (the sweep's first
// workload, with the default phases) is read, and where an operator
// process first writes a kind after the minute (Leases and Events aside: a
// write that only elects or records), the fault phase lasts until 30.5 s
// after that write (aimMargin). Off the grid of whole seconds: a fault
// phase that ends on a schedule's step would end the run on it too, where
// a schedule of whole seconds makes its next write, in one schedule before
// the end and in another after. An operator that writes every kind within
// the minute keeps the minute. A backup scheduler whose first Job comes at
// 1m0.002s (a Job a minute, counted from its CR's creation) has its faults
// drawn until 1m30.503s, so that a crash between its Job's create and its
// status write is a targeted plan (examples/backup). The rule is a function of the
// Options (the run is deterministic), so every process of an exploration,
// and every replay of a plan, has the same fault phase. A fault phase the
// test sets is its own: then, where a class of targeted plans finds no
// target inside it while the operator writes after it, the result says so
// in one line naming Options.FaultPhase (unaimedLine). And a saved plan
// whose crash or restart never happens under the phase it is replayed
// under (its k-th write comes after it) does not hold silently: its replay
// fails the test saying so (unmetFaults).

// aimMargin is how long the default fault phase lasts past the first write
// of a kind the operator makes after the minute (the rule above).
const aimMargin = 30*time.Second + 500*time.Millisecond

// AimFaultPhase lengthens w's default fault phase to the span of its
// operator's writes (the rule above); a fault phase the Options set is
// left as it is. It runs the script once with no fault.
func AimFaultPhase(w *world.World, t *testing.T) error {
	if !w.Opts.FaultPhaseDefaulted() || w.Opts.FaultPhase != world.DefaultFaultPhase {
		return nil
	}
	p, err := sweepBase(w)
	if err != nil {
		return err
	}
	// Watched as the preflight is (longrun.go): a world that cannot step
	// ends the test a bound after its cut, with one line naming what waits.
	defer watchWorld(t, w)()
	long := longOf(w)
	long.start("the script's fault-free run (aiming the fault phase)", "finding the span of the operator's writes", p)
	r, err := w.RunPlan(t, p, world.Judging{}, 0)
	long.done()
	if err != nil {
		return err // a manager that cannot start says so itself
	}
	end := w.Opts.FaultPhase
	for _, at := range firstWrites(w, r.Steps) { // lint:order-independent a maximum
		if at > world.DefaultFaultPhase {
			end = max(end, at+aimMargin)
		}
	}
	w.LengthenFaultPhase(end.Truncate(time.Millisecond) + time.Millisecond)
	return nil
}

// firstWrites are, by kind, the instant of the first write of each kind an
// operator process makes among steps (Leases and Events aside).
func firstWrites(w *world.World, steps []trace.Step) map[string]time.Duration {
	procs := w.OperatorProcesses()
	out := map[string]time.Duration{}
	for _, s := range steps {
		if s.Result != "ok" || !faults.ProcessWrite(s) || !slices.Contains(procs, s.Process) {
			continue
		}
		kind, _, _ := strings.Cut(s.Object, " ")
		if kind == "" || kind == "Lease" || kind == "Event" {
			continue
		}
		if _, ok := out[kind]; !ok {
			out[kind] = s.At
		}
	}
	return out
}

// operatorWrites is the span of the operator's writes among steps (the
// first's and the last's instants), ok false when it writes nothing.
func operatorWrites(w *world.World, steps []trace.Step) (from, to time.Duration, ok bool) {
	procs := w.OperatorProcesses()
	for _, s := range steps {
		if s.Result != "ok" || !faults.ProcessWrite(s) || !slices.Contains(procs, s.Process) {
			continue
		}
		if kind, _, _ := strings.Cut(s.Object, " "); kind == "Lease" || kind == "Event" {
			continue
		}
		if !ok {
			from, ok = s.At, true
		}
		to = s.At
	}
	return from, to, ok
}

// unaimedLine is the line that says which classes of targeted plans aimed
// at the operator's writes (crashes after a write, error answers to one)
// found no target inside the fault phase while the fault-free run's
// operator writes after it, naming the option that moves it; "" when
// none. cov are the classes that have targets; the fault-free run of the
// sweep's first workload is run to tell (only when a class has none).
func unaimedLine(w *world.World, t *testing.T, cov []Coverage) (string, error) {
	var none []string
	for _, c := range []plan.SweepClass{plan.SweepCrashes, plan.SweepAPIErrors} {
		if !w.Space.Allows(classKind(c)) || slices.ContainsFunc(cov, func(cv Coverage) bool { return cv.Class == string(c) }) {
			continue
		}
		none = append(none, string(c))
	}
	if len(none) == 0 {
		return "", nil
	}
	p, err := sweepBase(w)
	if err != nil {
		return "", err
	}
	r, err := w.RunPlan(t, p, world.Judging{}, 0)
	if err != nil {
		return "", err
	}
	from, to, ok := operatorWrites(w, r.Steps)
	if !ok || to <= w.Opts.FaultPhase {
		return "", nil
	}
	return fmt.Sprintf("no target inside the fault phase (%s) for the targeted %s: the fault-free run's operator writes from %s to %s; Options.FaultPhase moves it",
		w.Opts.FaultPhase, strings.Join(none, ", "), from, to), nil
}

// classKind is the kind of fault a class of targeted plans adds.
func classKind(c plan.SweepClass) plan.FaultKind {
	switch c {
	case plan.SweepCrashes:
		return plan.Crash
	case plan.SweepStale:
		return plan.Stale
	case plan.SweepHolds:
		return plan.Hold
	case plan.SweepUnobserved:
		return plan.Unobserved
	}
	return plan.API
}

// unmetFaults says which of p's crashes and stale restarts its run (steps)
// never made: a process with fewer crashes in the trace than the plan has
// for it (its k-th write came after the heal, or never). "" when each
// happened.
func unmetFaults(p *plan.Plan, steps []trace.Step) string {
	want := map[string][]plan.Fault{}
	var procs []string
	for _, f := range p.Faults {
		if f.Kind != plan.Crash && f.Kind != plan.Stale {
			continue
		}
		if _, ok := want[f.Process]; !ok {
			procs = append(procs, f.Process)
		}
		want[f.Process] = append(want[f.Process], f)
	}
	got := map[string]int{}
	for _, s := range steps {
		if s.Op == "crash" {
			got[s.Process]++
		}
	}
	var missed []string
	for _, proc := range procs {
		if got[proc] >= len(want[proc]) {
			continue
		}
		for _, f := range want[proc][got[proc]:] {
			missed = append(missed, f.String())
		}
	}
	return strings.Join(missed, "; ")
}
