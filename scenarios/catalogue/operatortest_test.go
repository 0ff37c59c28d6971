package catalogue_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/canary"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// An entry with Test runs on operatortest: Explore explores the budget it is
// given through operatortest (a variant that holds runs every plan).
func TestAnEntryWithTestIsExploredThroughOperatortest(t *testing.T) {
	e := canary.OnOperatortest()
	r := e.Explore(variant.Fixed, 3, 1, time.Now)
	if r.Outcome != catalogue.Holds || r.Checks != 3 || len(r.Violated) != 0 {
		t.Fatalf("fixed canary, 3 plans: %+v, want holds after 3 plans", r)
	}
}

// Replay of an entry with Test judges one plan as operatortest does (the
// generic oracles beside the entry's own properties) and gives the same
// trace hash every time.
func TestAnEntryWithTestReplaysThroughOperatortest(t *testing.T) {
	e := canary.OnOperatortest()
	p, err := plan.Parse("seed 2\nat 1ms delete object=0\nat 1ms recreate object=0\ncrash process=op call=4\n")
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for range 2 {
		r, err := e.Replay(variant.Buggy, p)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, v := range r.Violated() {
			names = append(names, v.Property)
		}
		if !slices.Contains(names, "at-most-once") || !slices.Contains(names, "converges") {
			t.Fatalf("buggy canary on its minimal plan: violated %v, want at-most-once and converges", names)
		}
		if !strings.Contains(r.Timeline, "op") || r.Steps == 0 {
			t.Fatalf("no timeline: %d steps", r.Steps)
		}
		hashes = append(hashes, r.Hash)
		r.Close()
	}
	if hashes[0] != hashes[1] {
		t.Errorf("two replays of one plan: hashes %s and %s", hashes[0], hashes[1])
	}
}
