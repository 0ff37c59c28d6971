package search_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

// An exploration is a function of the plan index: a worker (parallel.go)
// judges each place's plan as the sequential pass draws it (the same Space:
// the reference run's targets and its writes), so the places it finds holding
// hold in the sequential pass and its first violating place is the pass's.
// Checked in this process (judge is what a worker process runs), over a
// sequence whose first violation the crash-write targeting draws.
func TestAWorkerJudgesEachPlaceAsTheSequentialPassDoes(t *testing.T) {
	defer optest.RandomPassOnly()()
	o := optest.AppOptions(optest.TrustsItsMark) // optest: a restart between two writes
	o.Checks, o.Seed, o.Workers = 30, 3, 1
	seq, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !seq.Caught || seq.FirstFailure < 2 {
		t.Fatalf("want the sequential pass to catch the bug after a few plans (so that places before it hold): %+v", seq)
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if err := search.Preflight(w, t); err != nil {
		t.Fatal(err)
	}
	sigs := map[int][]string{}
	next := 0
	search.JudgePlace(w, t, func() int {
		if next++; next > o.Checks {
			return 0
		}
		return next
	}, func(k int, s []string, err, _ string) {
		if err != "" {
			t.Fatalf("place %d: the world could not run it: %s", k, err)
		}
		sigs[k] = s
	}, func(k int) { t.Fatalf("place %d: a draw rapid rejected", k) })
	if len(sigs) != o.Checks {
		t.Fatalf("the worker judged %d places, want every place of the budget (%d)", len(sigs), o.Checks)
	}
	first := 0
	for k := 1; k <= o.Checks && first == 0; k++ {
		if len(sigs[k]) > 0 {
			first = k
		}
	}
	if first != seq.FirstFailure {
		t.Fatalf("the worker's first violating place is %d (%q), the sequential pass's %d: a place's plan depends on the process that draws it", first, sigs[first], seq.FirstFailure)
	}
}
