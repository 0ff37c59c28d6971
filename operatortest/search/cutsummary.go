package search

import (
	"fmt"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// CountCut records that the plan at place was cut (the first note a place
// gives is kept).
func CountCut(w *world.World, place int, note string) {
	if note == "" {
		return
	}
	if explorationOf(w).cuts == nil {
		explorationOf(w).cuts = map[int]string{}
	}
	if _, ok := explorationOf(w).cuts[place]; !ok {
		explorationOf(w).cuts[place] = note
	}
}

// CutSummary fills in out's count of cut plans and the first one's note.
func CutSummary(w *world.World, out *Result) {
	last := 0 // the last place explored (0: every one)
	if out.Caught && !w.Opts.KeepGoing {
		last = out.FirstFailure
	}
	first := 0
	out.Cut = 0
	for place := range explorationOf(w).cuts { // lint:order-independent a count and the least place
		if last > 0 && place > last {
			continue // judged by a worker past the pass's end
		}
		out.Cut++
		if first == 0 || place < first {
			first = place
		}
	}
	if first > 0 {
		out.CutNote = fmt.Sprintf("plan %d: %s", first, explorationOf(w).cuts[first])
	}
}

// CutLine is the clause of the pass and failure lines about cut plans ("" if
// none was).
func CutLine(r Result) string {
	if r.Cut == 0 {
		return ""
	}
	return fmt.Sprintf("%d plan%s cut at the work bound and not judged (%s)", r.Cut, world.Plural(r.Cut), strings.TrimSpace(r.CutNote))
}

// exploration is what an exploration of a world keeps between its passes
// (in the world's Search slot).
type exploration struct {
	// randomChecks is the random plans' budget once the sweep has taken its
	// places (0: the whole of Checks; sweep.go).
	randomChecks int
	// swept is how many places the sweep's plans take (sweep.go: the
	// budget's places).
	swept int
	// cuts are the places of the exploration whose plans were cut at the
	// work bound, with the first note of each.
	cuts map[int]string
	// nondeterminism says the operator's own nondeterminism the preflight
	// runs showed, once (determinism.go); "" if none.
	nondeterminism string
	// carried says once that the cluster's controllers carried on a
	// difference of the operator's in what the oracles ignore
	// (determinism.go): logged, not failed.
	carried string
	// found are the fields it names: a replay is judged modulo them, as
	// modulo Options.Nondeterministic.
	found canon.Nondeterministic
	// listed are the findings KeepGoing listed under an earlier one
	// (Result.Listed).
	listed []Finding
	// unaimed says which classes of targeted plans found no target inside
	// the fault phase (phase.go: unaimedLine); "" if none.
	unaimed string
}

// explorationOf is w's exploration state.
func explorationOf(w *world.World) *exploration {
	if w.Search == nil {
		w.Search = &exploration{}
	}
	return w.Search.(*exploration)
}
