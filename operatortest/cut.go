package operatortest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// A run is cut at its work bound (sim/cluster's DefaultMaxSteps task steps,
// DefaultMaxWrites writes, DefaultMaxObjects objects): no plan or shrink
// candidate may cost minutes. A storm of reconciles or writes
// that a stalled watch drives (a controller that re-creates, at the rate of
// API latency, what its cache does not show) can go on for the whole fault
// phase; with correct code too (sim/cluster's hotloop.go), so a cut is never
// a violation. A cut run never reached the end of its heal, so it is not
// judged: its plan tested nothing, and the exploration says so (Result.Cut,
// and a clause of the pass and failure lines) rather than counting it as a
// plan that held. A plan is cut too when a fault-free reference it is judged
// against was cut: there is nothing to compare it with. The kernel's own
// violations up to the cut (a reconcile panic) still count.

// cutVerdicts are the verdicts of a plan that cannot be judged because a run
// was cut: the kernel's violations of the plan's own run, and the cut's note.
func cutVerdicts(own []check.Verdict, note string) []check.Verdict {
	var out []check.Verdict
	for _, v := range own {
		if !v.Holds && slices.Contains(world.KernelVerdicts, v.Property) {
			out = append(out, v)
		}
	}
	return append(out, check.Verdict{Property: cluster.WorkBoundProperty, Holds: true, Detail: note})
}

// countCut records that the plan at place was cut (the first note a place
// gives is kept).
func countCut(w *world.World, place int, note string) {
	if note == "" {
		return
	}
	if w.Cuts == nil {
		w.Cuts = map[int]string{}
	}
	if _, ok := w.Cuts[place]; !ok {
		w.Cuts[place] = note
	}
}

// cutSummary fills in out's count of cut plans and the first one's note.
func cutSummary(w *world.World, out *Result) {
	last := 0 // the last place explored (0: every one)
	if out.Caught && !w.Opts.KeepGoing {
		last = out.FirstFailure
	}
	first := 0
	out.Cut = 0
	for place := range w.Cuts { // lint:order-independent a count and the least place
		if last > 0 && place > last {
			continue // judged by a worker past the pass's end
		}
		out.Cut++
		if first == 0 || place < first {
			first = place
		}
	}
	if first > 0 {
		out.CutNote = fmt.Sprintf("plan %d: %s", first, w.Cuts[first])
	}
}

// cutLine is the clause of the pass and failure lines about cut plans ("" if
// none was).
func cutLine(r Result) string {
	if r.Cut == 0 {
		return ""
	}
	return fmt.Sprintf("%d plan%s cut at the work bound and not judged (%s)", r.Cut, world.Plural(r.Cut), strings.TrimSpace(r.CutNote))
}
