package main

// Sharding a run: which shard a process runs (--shard I/N, or the shard of a pod
// of a Kubernetes Indexed Job), and the header that says what a shard's JSON is a
// part of, so that `ctrlsim merge` can check it has every shard of one run, once.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// runHeader is the "header" object of `run --json`: what was explored and which
// shard of it this is. Shards of one run have equal headers but for Shard (and
// Pairs, the shard's own share of AllPairs).
type runHeader struct {
	Entries  string `json:"entries"`   // the --entry glob
	Variant  string `json:"variant"`   // the --variant filter; "" for every variant
	Checks   int    `json:"checks"`    // plans per (entry, variant)
	Seed     uint64 `json:"seed"`      // the explorer seed
	Shard    int    `json:"shard"`     // this shard, 1-based
	Shards   int    `json:"shards"`    // the number of shards of the run
	Pairs    int    `json:"pairs"`     // the (entry, variant) pairs of this shard: its number of results
	AllPairs int    `json:"all_pairs"` // the (entry, variant) pairs of all shards together
}

// sameRun says how h and o differ as parts of one run ("" when they do not).
func (h runHeader) sameRun(o runHeader) string {
	switch {
	case h.Seed != o.Seed:
		return fmt.Sprintf("another seed (%d, not %d)", o.Seed, h.Seed)
	case h.Checks != o.Checks:
		return fmt.Sprintf("another --checks (%d, not %d)", o.Checks, h.Checks)
	case h.Entries != o.Entries:
		return fmt.Sprintf("another --entry (%q, not %q)", o.Entries, h.Entries)
	case h.Variant != o.Variant:
		return fmt.Sprintf("another --variant (%q, not %q)", o.Variant, h.Variant)
	case h.Shards != o.Shards:
		return fmt.Sprintf("another shard count (%d, not %d)", o.Shards, h.Shards)
	case h.AllPairs != o.AllPairs:
		return fmt.Sprintf("another catalogue (%d pairs in all, not %d)", o.AllPairs, h.AllPairs)
	}
	return ""
}

// shardSize is the number of pairs shard i of n holds when all pairs are dealt
// round-robin (pair k, 0-based, goes to shard k%n+1).
func shardSize(all, i, n int) int {
	if all < i {
		return 0
	}
	return (all-i)/n + 1
}

func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usagef("bad --shard %q: want I/N with 1 <= I <= N", s)
	}
	return i, n, nil
}

// indexedJobShard is the shard of a pod of an Indexed Job with n completions:
// JOB_COMPLETION_INDEX (0-based, set by the Job controller) plus one.
func indexedJobShard(n int) (int, error) {
	if n < 1 {
		return 0, usagef("bad --shards-of-indexed-job %d: want at least 1", n)
	}
	v, ok := os.LookupEnv("JOB_COMPLETION_INDEX")
	if !ok {
		return 0, usagef("--shards-of-indexed-job: JOB_COMPLETION_INDEX is not set (not a pod of an Indexed Job?)")
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 0 || k >= n {
		return 0, usagef("--shards-of-indexed-job=%d: bad JOB_COMPLETION_INDEX %q: want 0 to %d", n, v, n-1)
	}
	return k + 1, nil
}

// The lines around the JSON of `run --json-markers`, so that `ctrlsim merge` finds it
// in a pod's log among other lines (and behind `kubectl logs --prefix` prefixes).
const (
	jsonBegin = "--- ctrlsim json begin ---"
	jsonEnd   = "--- ctrlsim json end ---"
)
