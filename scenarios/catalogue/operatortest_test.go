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

// A result breaks the catalogue's expectations (what TestEntries and
// `ctrlsim catalogue --check` fail on) when its outcome is not the expected
// one, when its minimal plan is longer than MaxMinimalPlan, or when that
// plan's replay violates nothing; a caught result within bounds that
// reproduces, and an expected hold, break none.
func TestAResultBreaksTheCatalogueForEachOfItsThreeRules(t *testing.T) {
	short, err := plan.Parse("seed 1\nat 1ms delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	long, err := plan.Parse("seed 1\nat 1ms delete object=0\nat 2ms delete object=0\nat 3ms delete object=0\nat 4ms delete object=0\nat 5ms delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	caught := catalogue.Result{Entry: "e", Variant: variant.Buggy, Expect: catalogue.Caught, Outcome: catalogue.Caught, Minimal: short, Reproduced: true}
	for _, c := range []struct {
		name string
		r    func(r catalogue.Result) catalogue.Result
		want string
	}{
		{"within bounds", func(r catalogue.Result) catalogue.Result { return r }, ""},
		{"an expected hold", func(r catalogue.Result) catalogue.Result {
			r.Expect, r.Outcome, r.Minimal, r.Reproduced = catalogue.Holds, catalogue.Holds, nil, false
			return r
		}, ""},
		{"unexpected", func(r catalogue.Result) catalogue.Result { r.Expect = catalogue.Holds; return r }, "outcome caught, expected holds"},
		{"too long", func(r catalogue.Result) catalogue.Result { r.Minimal = long; return r }, "minimal plan has 5 lines, want at most 4"},
		{"not reproduced", func(r catalogue.Result) catalogue.Result { r.Reproduced = false; return r }, "does not reproduce"},
	} {
		got := c.r(caught).Problems()
		if c.want == "" {
			if len(got) > 0 {
				t.Errorf("%s: %q, want no problem", c.name, got)
			}
			continue
		}
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: %q, want one problem saying %q", c.name, got, c.want)
		}
	}
}
