package workers

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// Sharding an exploration (across CI jobs): shard i of n runs the plans whose place
// in the explorer's sequence is i, i+n, i+2n, ... of the same sequence an
// unsharded run draws (drawing a plan is cheap; running it is what costs), until
// its first violation, which it then shrinks as the unsharded run would. The
// shards together run every plan the unsharded run runs, so their merge (Merge,
// or `ctrlsim merge` of their -ctrlsim.json files) is the unsharded result: the
// violation with the lowest place is the unsharded run's first, its minimal
// plan the same.

// ShardResult is what one shard (or a merge) found, as -ctrlsim.json writes it
// and `ctrlsim merge` reads it.
type ShardResult struct {
	Test   string `json:"test"`
	Seed   uint64 `json:"seed"`
	Checks int    `json:"checks"`
	Shard  string `json:"shard"` // "i/n"; "" for an unsharded run or a merge
	Caught bool   `json:"caught"`
	// FirstFailure is the place, in the explorer's sequence, of the first
	// violating plan (0 if none); PlansRun how many plans of the sequence
	// this shard ran before it stopped.
	FirstFailure int      `json:"first_failure"`
	PlansRun     int      `json:"plans_run"`
	MinimalPlan  string   `json:"minimal_plan,omitempty"`
	Violated     []string `json:"violated,omitempty"`
}

// Document is the JSON document of a ShardResult: one key, so that a reader
// of several kinds of documents (ctrlsim merge) tells it apart.
type Document struct {
	OperatorTest *ShardResult `json:"operatortest"`
}

// WriteShardResult writes sr's Document to path (-ctrlsim.json).
func WriteShardResult(path string, sr ShardResult) error {
	b, err := json.MarshalIndent(Document{OperatorTest: &sr}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Merge checks that shards are the n shards of one exploration (one test,
// seed and budget), each once, and returns the result of the unsharded
// exploration: the violation with the lowest place in the sequence, else
// none after every plan of the budget.
func Merge(shards []ShardResult) (ShardResult, error) {
	if len(shards) == 0 {
		return ShardResult{}, fmt.Errorf("no shard to merge")
	}
	first := shards[0]
	n := 0
	seen := map[int]bool{}
	for _, s := range shards {
		if s.Test != first.Test || s.Seed != first.Seed || s.Checks != first.Checks {
			return ShardResult{}, fmt.Errorf("shard %s is of another exploration (test %s, seed %d, checks %d; want %s, %d, %d)", s.Shard, s.Test, s.Seed, s.Checks, first.Test, first.Seed, first.Checks)
		}
		sh, err := world.ParseShard(s.Shard)
		if err != nil {
			return ShardResult{}, fmt.Errorf("test %s: %v", s.Test, err)
		}
		if n == 0 {
			n = sh.Count
		}
		if sh.Count != n {
			return ShardResult{}, fmt.Errorf("test %s: shard %s of %d shards, others of %d", s.Test, s.Shard, sh.Count, n)
		}
		if seen[sh.Index] {
			return ShardResult{}, fmt.Errorf("test %s: duplicate shard %s", s.Test, s.Shard)
		}
		seen[sh.Index] = true
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return ShardResult{}, fmt.Errorf("test %s: missing shard %s", first.Test, strings.Join(missing, ", "))
	}
	out := ShardResult{Test: first.Test, Seed: first.Seed, Checks: first.Checks, PlansRun: first.Checks}
	caught := slices.DeleteFunc(slices.Clone(shards), func(s ShardResult) bool { return !s.Caught })
	if len(caught) > 0 {
		best := slices.MinFunc(caught, func(a, b ShardResult) int { return a.FirstFailure - b.FirstFailure })
		out.Caught, out.FirstFailure, out.PlansRun = true, best.FirstFailure, best.FirstFailure
		out.MinimalPlan, out.Violated = best.MinimalPlan, best.Violated
	}
	return out, nil
}
