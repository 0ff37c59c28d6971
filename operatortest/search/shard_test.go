package search_test

import (
	"reflect"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/workers"
)

// Shards of an exploration, merged, are the unsharded exploration: the same
// first violating plan (its place in the sequence), the same minimal plan and
// the same violated properties; and a bug-free exploration's shards merge to
// every plan of the budget with nothing found.
func TestShardsMergeToTheUnshardedExploration(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   optest.Behaviour
	}{{"a bug", optest.TrustsItsMark}, {"no bug", optest.Child()}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a bug" {
				// A bug the random plans find after a few (the sweep
				// would find it at its first plan).
				defer optest.RandomPassOnly()()
			}
			o := optest.AppOptions(tc.do)
			o.Checks, o.Seed = 60, 3
			whole, err := search.Explore(t, o)
			if err != nil {
				t.Fatal(err)
			}
			want := whole.ShardResult(t.Name(), o.WithDefaults())
			if tc.name == "a bug" && (!whole.Caught || whole.FirstFailure < 2) {
				t.Fatalf("want a bug found after a few plans (so that shards split the work before it): %+v", want)
			}
			for _, n := range []int{2, 3} {
				shards, err := search.ExploreShards(t, o, n)
				if err != nil {
					t.Fatal(err)
				}
				got, err := workers.Merge(shards)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%d shards merge to %+v, want the unsharded %+v", n, got, want)
				}
				total := 0
				for _, s := range shards {
					total += s.PlansRun
				}
				if !whole.Caught && total != o.Checks {
					t.Errorf("%d shards ran %d plans in all, want the budget %d", n, total, o.Checks)
				}
			}
		})
	}
}
