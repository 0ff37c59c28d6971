package search_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The sweep runs before the random plans (after plan 0, its workloads with
// no fault): a crash between two writes is its first targeted plan (a crash right after the reference run's first
// intermediate write), found without a random plan and not shrunk (the
// workload and one fault); a bug-free operator's exploration runs every
// targeted plan within half the budget and says so, then the random plans
// to the budget.
func TestTheSweepRunsTheTargetedPlansFirstAndSaysWhatItCovered(t *testing.T) {
	o := optest.AppOptions(optest.TrustsItsMark)
	o.Checks, o.Seed, o.Workers = 60, 3, 1
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	// The operator's other bug, which the workload that deletes the app and
	// creates it again 1 ms later shows with no fault (its cache still
	// shows the old app's mark when the new one comes: no child for it, in
	// one of the two schedules), is a finding with no fault at all (plan 0)
	// and hides nothing.
	var f *search.Finding
	for i := range res.Findings {
		if !res.Findings[i].NoFault {
			f = &res.Findings[i]
			break
		}
	}
	if f == nil || f.FirstFailure != 1 || len(f.Minimal.Faults) != 1 || f.Minimal.Faults[0].Kind != plan.Crash || f.Minimal.Faults[0].Write == 0 || res.Checks != 1 {
		t.Fatalf("want the crash after a write caught by the first targeted plan; got %+v", res.Findings)
	}
	if len(res.Targeted) == 0 || res.Targeted[0].Class != string(plan.SweepCrashes) || res.Targeted[0].Ran != 1 {
		t.Errorf("Targeted = %v, want the crashes after a write first, one of them run", res.Targeted)
	}
	o = optest.AppOptions(optest.Child())
	o.Checks, o.Seed, o.Workers = 120, 3, 1 // its sweep: 57 plans over its four workloads (the script alone on two schedules)
	// No re-creations: with them the sweep has 129 stale pairs alone (the
	// past of the app created again among them), more than half of 120.
	o.Workload.Steps = []world.StepKind{world.Deletions, world.Mutations}
	if res, err = search.Explore(t, o); err != nil {
		t.Fatal(err)
	}
	swept := 0
	for _, c := range res.Targeted {
		swept += c.Ran
		if c.Ran != c.Of {
			t.Errorf("%s: ran %d of %d, want all (the sweep is smaller than half the budget): %v", c.Class, c.Ran, c.Of, res.Targeted)
		}
	}
	if res.Caught || res.Checks != o.Checks || swept == 0 || swept > o.Checks/2 {
		t.Errorf("the correct operator: caught=%v, %d plans of %d, %d of them targeted (%v): want it to hold every plan of the budget, at most half targeted", res.Caught, res.Checks, o.Checks, swept, res.Targeted)
	}
	// Twelve plans are ranked, nine of the explorer seed's workloads (the
	// script alone on the second schedule ranks three more): the app's view
	// frozen at its creation (which
	// the operator read before it made the child), restarted after the
	// app's deletion (what the child was made for is gone: the past, and
	// the pair) or after the child's (which undoes what it did); the holds
	// and unobserved windows that keep the app's creation from the
	// operator; and a lost response to the child's create in each workload
	// that makes it (the retry meets the child it made).
	if line := search.CoverageLine(res.Targeted); !strings.HasPrefix(line, "targeted plans: ranked plans covered 12 of 12, then crashes after a write ") {
		t.Errorf("the coverage line %q", line)
	}
}

// The pass line says what the sweep covered: the ranked plans of every
// class first, then each class's whole (the ranked among them), counts
// written as a reader reads them.
func TestTheCoverageLineSaysTheRankedPlansFirst(t *testing.T) {
	cs := []search.Coverage{
		{Class: string(plan.SweepCrashes), Ran: 31, Of: 31, Ranked: 1, RankedRan: 1},
		{Class: string(plan.SweepStale), Ran: 200, Of: 1700, Ranked: 39, RankedRan: 39},
	}
	const want = "targeted plans: ranked plans covered 40 of 40, then crashes after a write 31 of 31, stale pairs 200 of 1,700"
	if got := search.CoverageLine(cs); got != want {
		t.Errorf("the coverage line is %q, want %q", got, want)
	}
	cs[0].Ranked, cs[0].RankedRan, cs[1].Ranked, cs[1].RankedRan = 0, 0, 0, 0
	if got := search.CoverageLine(cs); got != "targeted plans: crashes after a write 31 of 31, stale pairs 200 of 1,700" {
		t.Errorf("with nothing ranked, the coverage line is %q", got)
	}
}

// The random plans take turns with the targeted ones from the first plan
// (sweep.go: the budget's places): on an operator whose sweep has more
// plans than half the budget, a targeted plan comes first, then a random
// one, and so on until the sweep's half is placed, not the random plans
// after the sweep's half.
func TestTheRandomPlansTakeTurnsWithTheTargetedOnesFromTheFirstPlan(t *testing.T) {
	var judged []string // "targeted" or "random", in the order the plans were judged
	every, log := search.ProgressEvery, search.LogProgress
	search.ProgressEvery, search.LogProgress = 0, func(_ *testing.T, format string, args ...any) {
		switch l := fmt.Sprintf(format, args...); {
		case strings.Contains(l, " targeted plans judged"):
			judged = append(judged, "targeted")
		case strings.Contains(l, " random plans judged"):
			judged = append(judged, "random")
		}
	}
	defer func() { search.ProgressEvery, search.LogProgress = every, log }()
	o := optest.AppOptions(optest.Child())
	o.Checks, o.Seed, o.Workers = 20, 3, 1 // its sweep has more than 100 plans: it takes 10 places of 20
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks != o.Checks {
		t.Fatalf("the correct operator: caught=%v after %d plans, want it to hold the budget's %d", res.Caught, res.Checks, o.Checks)
	}
	var want []string
	for range o.Checks / 2 {
		want = append(want, "targeted", "random")
	}
	if strings.Join(judged, " ") != strings.Join(want, " ") {
		t.Errorf("the plans were judged in the order\n%s\nwant\n%s", strings.Join(judged, " "), strings.Join(want, " "))
	}
}

// With worker processes and without KeepGoing, the workers judge only the
// random places before the sweep's first finding, which ends the search at
// its place: a crash between two writes that the first targeted plan
// catches (plan 1) leaves no random place to judge, and no worker starts.
func TestWorkersJudgeOnlyTheRandomPlacesBeforeTheSweepsFinding(t *testing.T) {
	judged := 0
	search.Judging = func(int) { judged++ }
	defer func() { search.Judging = nil }()
	o := optest.AppOptions(optest.TrustsItsMark)
	o.Checks, o.Seed = 60, 3
	res := optest.ExploreWith(t, o, 2)
	var f *search.Finding // the first that needs a fault (plan 0 shows another bug: TestTheSweepRunsTheTargetedPlansFirstAndSaysWhatItCovered)
	for i := range res.Findings {
		if !res.Findings[i].NoFault {
			f = &res.Findings[i]
			break
		}
	}
	if f == nil || f.FirstFailure != 1 || res.Checks != 1 {
		t.Fatalf("found %+v (%d plans), want the crash after a write at the first targeted plan", res.Findings, res.Checks)
	}
	if judged != 0 {
		t.Errorf("the workers judged %d random places, want none: the sweep's finding at plan 1 comes before every random place", judged)
	}
}
