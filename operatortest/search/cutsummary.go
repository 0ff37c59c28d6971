package search

import (
	"fmt"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// countCut records that the plan at place was cut (the first note a place
// gives is kept).
func CountCut(w *world.World, place int, note string) {
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
func CutSummary(w *world.World, out *Result) {
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
func CutLine(r Result) string {
	if r.Cut == 0 {
		return ""
	}
	return fmt.Sprintf("%d plan%s cut at the work bound and not judged (%s)", r.Cut, world.Plural(r.Cut), strings.TrimSpace(r.CutNote))
}
