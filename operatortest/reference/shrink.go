package reference

import (
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// Shrinking: rapid's shrinker proposes candidates one at a time and keeps a
// candidate that violates any property (without KeepGoing). What a
// candidate costs is its runs: the plan's own, its references (the
// fault-free runs of its seed and workload and of another schedule) and
// the runs that judge a failed converges again before blaming the faults
// (the late operator, other random draws, the same downtime). Three things
// keep it near the cost of finding, none changing which candidate is kept:
//   - a plan drawn again is recalled by its text (runRecalled): rapid draws
//     the same plan from many byte strings;
//   - references are kept by seed and workload, the oldest forgotten first
//     (reference.go: keep), so a shrink that returns to a seed does not run
//     its references again;
//   - a candidate's judging stops once it is decided (decided): a violation
//     that no later step of judging revises keeps the candidate whatever
//     the revisable verdicts say, so the runs that would revise them are
//     not made. The minimal plan is judged to the end once (pass), so its
//     report names every violation, as before.

// ColdShrink, set by tests only, turns the three off: every candidate and
// every reference runs, and every run is judged to the end (the shrink
// before them, to compare with).
var ColdShrink bool

// revisable are the properties whose verdict judgeRun may change after the
// plan's run (converges against the late, other-draws and downtime runs;
// no-error-at-rest against the run with no generated workload;
// interleavings-agree is judged after it).
var revisable = map[string]bool{world.Converges: true, world.UpdateSummaries: true, world.NoErrorAtRest: true, world.InterleavingsAgree: true}

// decided reports whether vs, a run's verdicts before the judging that
// revises some, already violate a property that is enabled and not
// revisable: the run violates, whatever the rest of its judging says.
func decided(w *world.World, vs []check.Verdict) bool {
	for _, v := range w.Opts.Enabled(vs) {
		if !v.Holds && !revisable[v.Property] {
			return true
		}
	}
	return false
}
