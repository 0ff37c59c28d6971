package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// A long exploration is never silent: every progressEvery it says how many
// plans it has judged, and once a plan fails, how far shrinking has got (the
// candidates tried, the runs they cost, the smallest failing plan so far).
func TestAnExplorationSaysHowFarItHasGotSearchingAndShrinking(t *testing.T) {
	defer optest.RandomPassOnly()()
	var lines []string
	every, log := search.ProgressEvery, search.LogProgress
	search.ProgressEvery, search.LogProgress = 0, func(_ *testing.T, format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	defer func() { search.ProgressEvery, search.LogProgress = every, log }()

	o := optest.BugOptions(&optest.KnownBugs{TwoWrites: true}, false)
	o.Checks = 40
	res := optest.ExploreWith(t, o, 1)
	if !res.Caught {
		t.Fatal("the two-writes bug was not caught: nothing to shrink")
	}
	var searching, shrinking []string
	for _, l := range lines {
		switch {
		case strings.Contains(l, "plans judged"):
			searching = append(searching, l)
		case strings.HasPrefix(l, fmt.Sprintf("operatortest: shrinking the violation of plan %d: ", res.FirstFailure)):
			shrinking = append(shrinking, l)
		default:
			t.Errorf("an unexpected progress line: %s", l)
		}
	}
	if len(searching) != res.FirstFailure || !strings.HasPrefix(searching[0], "operatortest: 0 of 40 random plans judged") {
		t.Errorf("%d search lines before the failure at plan %d, want one a plan from \"0 of 40\": %q", len(searching), res.FirstFailure, searching)
	}
	if len(shrinking) != res.ShrinkCandidates {
		t.Errorf("%d shrink lines, want one a candidate (%d)", len(shrinking), res.ShrinkCandidates)
	}
	last := fmt.Sprintf("the smallest failing plan so far has %d step%s and %d fault%s", len(res.Minimal.Steps), world.Plural(len(res.Minimal.Steps)),
		len(res.Minimal.Faults), world.Plural(len(res.Minimal.Faults)))
	if n := len(shrinking); n == 0 || !strings.HasSuffix(shrinking[n-1], last) {
		t.Errorf("the last shrink line does not name the minimal plan's size (%q): %q", last, shrinking)
	}
}
