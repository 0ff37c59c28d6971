package search_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// shrinkBothWays explores o with the shrink's savings (shrink.go) and again
// cold (every candidate and reference run, every run judged to the end),
// neither shrink cut by wall time (the cold one takes thousands of runs: a
// loaded machine took 2m5s, past the default PlanTimeout, and kept a plan
// less minimal).
func shrinkBothWays(t *testing.T, o world.Options) (warm, cold search.Result) {
	t.Helper()
	o.PlanTimeout = time.Hour
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
			case warm.Findings[0].ShrinkCut || cold.Findings[0].ShrinkCut:
				t.Fatalf("a shrink was cut by wall time (with savings %v, cold %v)", warm.Findings[0].ShrinkCut, cold.Findings[0].ShrinkCut)
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

// A shrink is bounded by the plans it took to find the violation, not by
// wall time: by default twice the random plans drawn to find it, 20 at the
// least (distinct plans: rapid tries this fixture's 27 over a thousand
// times, so the default bound stops it, and says so); the lines left out
// after it reach the minimal plan of a shrink with no bound.
// Options.ShrinkRuns sets the bound, and a shrink stopped at it says so and
// keeps the smallest failing plan so far.
func TestAShrinkStopsAtItsBoundAndSaysSo(t *testing.T) {
	defer optest.RandomPassOnly()()
	o := optest.AppOptions(optest.TrustsItsMark)
	o.Checks, o.Seed = 30, 3
	def := optest.ExploreWith(t, o, 1)
	o.ShrinkRuns = 1 << 30
	whole := optest.ExploreWith(t, o, 1)
	o.ShrinkRuns = 3
	cut := optest.ExploreWith(t, o, 1)
	if !def.Caught || !whole.Caught || !cut.Caught {
		t.Fatalf("caught %v (default bound), %v (no bound), %v (3 candidates): want all", def.Caught, whole.Caught, cut.Caught)
	}
	if whole.ShrinkBounded {
		t.Fatalf("the shrink with a bound of 1<<30 candidates (%d tried) says it was bounded", whole.ShrinkCandidates)
	}
	if def.Minimal.String() != whole.Minimal.String() || !def.ShrinkBounded {
		t.Errorf("under the default bound (bounded: %v, want true):\n%swith none:\n%s", def.ShrinkBounded, def.Minimal, whole.Minimal)
	}
	if !cut.ShrinkBounded || cut.ShrinkCandidates != 3 || len(cut.Violations) == 0 {
		t.Errorf("with ShrinkRuns 3: bounded %v, %d candidates, %d violations: want it bounded at 3, with the smallest failing plan so far", cut.ShrinkBounded, cut.ShrinkCandidates, len(cut.Violations))
	}
}

// A shrink is bounded like a plan: past Options.PlanTimeout of wall time
// (here a nanosecond) it is cut, the violating plan as found its minimal
// plan, and the finding says so (ShrinkCut, and ShrinkBounded with it).
func TestAShrinkPastItsWallTimeIsCutAndSaysSo(t *testing.T) {
	defer optest.RandomPassOnly()()
	defer search.ShrinkWall(time.Nanosecond)()
	o := optest.AppOptions(optest.TrustsItsMark)
	o.Checks, o.Seed = 30, 3
	res := optest.ExploreWith(t, o, 1)
	if !res.Caught || len(res.Findings) == 0 {
		t.Fatalf("not caught: %+v", res)
	}
	f := res.Findings[len(res.Findings)-1]
	if !f.ShrinkCut || !f.ShrinkBounded || f.ShrinkCandidates != 0 || len(f.Violations) == 0 {
		t.Errorf("cut %v, bounded %v, %d candidates, %d violations: want it cut at once, with the plan as found", f.ShrinkCut, f.ShrinkBounded, f.ShrinkCandidates, len(f.Violations))
	}
}
