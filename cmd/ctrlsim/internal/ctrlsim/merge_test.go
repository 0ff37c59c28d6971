package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The selection the process tests explore: 9 (entry, variant) pairs, 4 caught
// and 5 holding, that 2 shards split unevenly (5, 4); the catalogue's
// cheapest family (bd/*, 11 pairs, took 5.6 times as long: 175 s against 31 s
// on 2 loaded cores).
var mergeSelection = []string{"--entry", "helm/*", "--checks", "10", "--seed", "3"}

// buildCommand builds the command into a temporary directory of t (never into the
// repository), once for the test.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ctrlsim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// processes runs bin once per argument list, all at once, and returns their
// standard outputs; each must exit 0.
func processes(t *testing.T, bin string, argLists ...[]string) []string {
	t.Helper()
	cmds := make([]*exec.Cmd, len(argLists))
	outs := make([]bytes.Buffer, len(argLists))
	errs := make([]bytes.Buffer, len(argLists))
	for k, args := range argLists {
		cmds[k] = exec.Command(bin, args...)
		cmds[k].Stdout, cmds[k].Stderr = &outs[k], &errs[k]
		if err := cmds[k].Start(); err != nil {
			t.Fatal(err)
		}
	}
	var res []string
	for k, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("ctrlsim %v: %v: %s", argLists[k], err, errs[k].String())
		}
		res = append(res, outs[k].String())
	}
	return res
}

func decodeRun(t *testing.T, out string) runOutput {
	t.Helper()
	var r runOutput
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not the JSON of a run: %v\n%s", err, out)
	}
	return r
}

// withoutWallTimes zeroes what differs between any two runs: the wall times.
func withoutWallTimes(r runOutput) runOutput {
	r.Results = append([]runResult(nil), r.Results...)
	for k := range r.Results {
		r.Results[k].WallMS = 0
	}
	return r
}

// sameTable erases the wall-time column (its figures and the padding they set).
var wallCell = regexp.MustCompile(`\d+\.\d\ds`)

func sameTable(s string) string {
	return strings.Join(strings.Fields(wallCell.ReplaceAllString(s, "WALL")), " ")
}

// Shards run as separate processes merge to exactly the unsharded run of the same
// seed and budget: the same outcomes, plans run, minimal plans and trace hashes for
// every (entry, variant), in the same order, and the same table.
func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the selection unsharded and in 2 and 3 shards, as processes (make test runs it)")
	}
	bin := buildCommand(t)
	args := func(extra ...string) []string { return append(append([]string{"run"}, mergeSelection...), extra...) }
	unshardedJSON := processes(t, bin, args("--json"))[0]
	unsharded := decodeRun(t, unshardedJSON)
	if len(unsharded.Results) != 9 || unsharded.Summary.Unexpected != 0 {
		t.Fatalf("the selection: %d results, %d unexpected; want 9, 0", len(unsharded.Results), unsharded.Summary.Unexpected)
	}
	caught := 0
	for _, r := range unsharded.Results {
		if (r.TraceHash != "") != (r.Outcome == "caught") {
			t.Errorf("%s %s: outcome %s with trace hash %q: want a hash iff caught", r.Entry, r.Variant, r.Outcome, r.TraceHash)
		}
		if r.Outcome == "caught" {
			caught++
		}
	}
	if caught == 0 || caught == len(unsharded.Results) {
		t.Fatalf("the selection should have caught and held results: %d caught of %d", caught, len(unsharded.Results))
	}
	unshardedTable := processes(t, bin, args())[0]
	dir := t.TempDir()
	for _, n := range []int{2, 3} {
		var shardArgs [][]string
		for i := 1; i <= n; i++ {
			shardArgs = append(shardArgs, args("--json", "--shard", fmt.Sprintf("%d/%d", i, n)))
		}
		var files []string
		for i, out := range processes(t, bin, shardArgs...) {
			f := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.json", i+1, n))
			if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		merged := decodeRun(t, processes(t, bin, append([]string{"merge", "--json"}, files...))[0])
		for k, r := range unsharded.Results {
			if k >= len(merged.Results) {
				t.Errorf("%d shards: the merge lacks %s %s", n, r.Entry, r.Variant)
				continue
			}
			m := merged.Results[k]
			if m.Entry != r.Entry || m.Variant != r.Variant || m.Outcome != r.Outcome || m.Checks != r.Checks ||
				m.MinimalPlan != r.MinimalPlan || m.TraceHash != r.TraceHash {
				t.Errorf("%d shards, result %d: merged %s %s %s in %d plans, plan %q, hash %q; unsharded %s %s %s in %d plans, plan %q, hash %q",
					n, k, m.Entry, m.Variant, m.Outcome, m.Checks, m.MinimalPlan, m.TraceHash,
					r.Entry, r.Variant, r.Outcome, r.Checks, r.MinimalPlan, r.TraceHash)
			}
		}
		if d := cmp.Diff(withoutWallTimes(unsharded), withoutWallTimes(merged)); d != "" {
			t.Errorf("%d shards: merge --json differs from the unsharded run --json (-unsharded +merged):\n%s", n, d)
		}
		table := processes(t, bin, append([]string{"merge"}, files...))[0]
		if sameTable(table) != sameTable(unshardedTable) {
			t.Errorf("%d shards: merge prints another table than the unsharded run:\n%s\nunsharded:\n%s", n, table, unshardedTable)
		}
	}
}

// A caught result's trace hash is the hash `ctrlsim replay --json` gives its
// minimal plan.
func TestTraceHashIsTheReplaysHash(t *testing.T) {
	r := runJSON(t, "--variant", "buggy").Results[0]
	out, errs, code := ctrlsim(t, "replay", "--entry", r.Entry, "--variant", r.Variant, "--plan-text", r.MinimalPlan, "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	var rep struct {
		TraceHash string `json:"trace_hash"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if r.TraceHash == "" || r.TraceHash != rep.TraceHash {
		t.Errorf("run --json says trace hash %q, replay --json %q", r.TraceHash, rep.TraceHash)
	}
}
