package workers_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/workers"
)

// fields are the names of the fields of struct v.
func fields(v any) []string {
	var out []string
	for f := range reflect.TypeOf(v).Fields() {
		out = append(out, f.Name)
	}
	return out
}

// A worker's exploration is told from the parent's by its Hello alone: the
// test, seed, budget, shard and KeepGoing, nothing of the test's other
// options.
func TestAWorkersHelloCarriesTheTestSeedBudgetShardAndKeepGoingAlone(t *testing.T) {
	if got, want := fields(workers.Hello{}), []string{"Test", "Seed", "Checks", "Shard", "KeepGoing"}; !slices.Equal(got, want) {
		t.Errorf("Hello's fields are %v, want %v", got, want)
	}
}

// Two shards of one test, seed and budget merge though they disagree on
// what the test is (each caught a different violation, as two versions of
// the operator would): a shard's document names no version.
func TestShardsOfTwoVersionsOfTheOperatorMerge(t *testing.T) {
	a := workers.ShardResult{Test: "T", Seed: 1, Checks: 10, Shard: "1/2", PlansRun: 3, Caught: true, FirstFailure: 3,
		MinimalPlan: "seed 1\ncrash process=op at=1s\n", Violated: []string{"converges ConfigMap"}}
	b := workers.ShardResult{Test: "T", Seed: 1, Checks: 10, Shard: "2/2", PlansRun: 2, Caught: true, FirstFailure: 2,
		MinimalPlan: "seed 2\n", Violated: []string{"no-panic"}}
	if _, err := workers.Merge([]workers.ShardResult{a, b}); err != nil {
		t.Errorf("the shards of two versions: %v, want them merged", err)
	}
	for _, f := range fields(workers.ShardResult{}) {
		if f == "Version" || f == "Commit" {
			t.Errorf("ShardResult has a field %s", f)
		}
	}
}
