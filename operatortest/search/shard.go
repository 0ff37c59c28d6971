package search

import (
	"github.com/ctrlsim/ctrlsim/operatortest/workers"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// ShardResult is what r, an exploration of test with o, found, as
// -ctrlsim.json writes it (workers.ShardResult: shards merge).
func (r Result) ShardResult(test string, o world.Options) workers.ShardResult {
	sr := workers.ShardResult{Test: test, Seed: o.Seed, Checks: o.Checks, Caught: r.Caught, FirstFailure: r.FirstFailure, PlansRun: r.Checks}
	if o.Shard.Count > 1 {
		sr.Shard = o.Shard.String()
	}
	if r.Caught {
		sr.MinimalPlan = r.Minimal.String()
		for _, v := range r.Violations {
			sr.Violated = append(sr.Violated, v.Property)
		}
	}
	return sr
}
