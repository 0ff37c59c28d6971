package search_test

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// shrinkBothWays explores o with the shrink's savings (shrink.go) and again
// cold (every candidate and reference run, every run judged to the end).
func shrinkBothWays(t *testing.T, o world.Options) (warm, cold search.Result) {
	t.Helper()
	warm = optest.ExploreWith(t, o, 1)
	reference.ColdShrink = true
	defer func() { reference.ColdShrink = false }()
	cold = optest.ExploreWith(t, o, 1)
	return warm, cold
}

// Recalling plans and references, and stopping a candidate's judging once it
// is decided, keep the shrink's outcome: the same minimal plan, trace hash
// and violations (every one, as the minimal plan judged to the end names
// them) as a shrink that runs and judges everything.
func TestShrinkingWithRecallAndDecidedJudgingGivesTheColdShrinksMinimalPlan(t *testing.T) {
	defer optest.RandomPassOnly()()
	for _, c := range []struct {
		name string
		o    func() world.Options
	}{
		{"restart between two writes", func() world.Options { o := optest.AppOptions(optest.TrustsItsMark); o.Checks, o.Seed = 30, 3; return o }},
		{"a panic and a copy bug", func() world.Options {
			o := optest.BugOptions(&optest.KnownBugs{TwoWrites: true}, true)
			o.Checks = 40
			return o
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			warm, cold := shrinkBothWays(t, c.o())
			switch {
			case !warm.Caught || !cold.Caught:
				t.Fatalf("caught %v (with savings), %v (cold): want both", warm.Caught, cold.Caught)
			case warm.Minimal.String() != cold.Minimal.String():
				t.Errorf("minimal plan with savings:\n%s\ncold:\n%s", warm.Minimal, cold.Minimal)
			case warm.Hash != cold.Hash:
				t.Errorf("trace hash with savings %s, cold %s", warm.Hash, cold.Hash)
			case !slices.Equal(optest.PropertiesOf(warm), optest.PropertiesOf(cold)):
				t.Errorf("violated with savings %q, cold %q", optest.PropertiesOf(warm), optest.PropertiesOf(cold))
			case warm.ShrinkCandidates != cold.ShrinkCandidates:
				t.Errorf("the shrinker tried %d candidates with savings, %d cold: the savings changed what it tried", warm.ShrinkCandidates, cold.ShrinkCandidates)
			case warm.ShrinkRuns >= cold.ShrinkRuns || cold.ShrinkRuns < cold.ShrinkCandidates:
				t.Errorf("the shrink ran %d runs with savings, %d cold (%d candidates): want fewer with savings, and cold at least one a candidate", warm.ShrinkRuns, cold.ShrinkRuns, cold.ShrinkCandidates)
			}
			t.Logf("minimal plan (shrunk in %s and %d runs of %d candidates with savings, %s and %d runs cold):\n%sviolates %q",
				warm.ShrinkTime, warm.ShrinkRuns, warm.ShrinkCandidates, cold.ShrinkTime, cold.ShrinkRuns, warm.Minimal, optest.PropertiesOf(warm))
		})
	}
}
