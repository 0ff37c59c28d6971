package workers_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/workers"
)

// Merge refuses what is not every shard of one exploration, once each.
func TestMergeRefusesWhatIsNotOneExploration(t *testing.T) {
	s := func(shard string, seed uint64) workers.ShardResult {
		return workers.ShardResult{Test: "T", Seed: seed, Checks: 10, Shard: shard, PlansRun: 5}
	}
	for _, tc := range []struct {
		name   string
		shards []workers.ShardResult
	}{
		{"a missing shard", []workers.ShardResult{s("1/3", 1), s("2/3", 1)}},
		{"a duplicate", []workers.ShardResult{s("1/2", 1), s("1/2", 1), s("2/2", 1)}},
		{"another seed", []workers.ShardResult{s("1/2", 1), s("2/2", 2)}},
		{"another count", []workers.ShardResult{s("1/2", 1), s("2/3", 1)}},
		{"an unsharded run", []workers.ShardResult{s("", 1)}},
		{"nothing", nil},
	} {
		if _, err := workers.Merge(tc.shards); err == nil {
			t.Errorf("%s: merged", tc.name)
		}
	}
}
