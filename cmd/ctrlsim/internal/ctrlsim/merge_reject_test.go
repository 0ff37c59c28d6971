package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeShard is shard i of n of a run of 5 (entry, variant) pairs: what `run --json --shard i/n` of
// it prints, without exploring anything.
func fakeShard(i, n int) runOutput {
	const all = 5
	out := runOutput{Header: runHeader{Entries: "e/*", Checks: 10, Seed: 1, Shard: i, Shards: n, Pairs: shardSize(all, i, n), AllPairs: all}}
	for k := i - 1; k < all; k += n {
		r := runResult{Entry: fmt.Sprintf("e/%c", 'a'+k), Variant: "buggy", Expect: "caught", Outcome: "caught", Checks: k + 1, Violated: []string{"p"},
			MinimalPlan: "seed 0\n", TraceHash: fmt.Sprintf("hash-%d", k)}
		out.Results = append(out.Results, r)
		out.Summary.Results++
		out.Summary.AsExpected++
	}
	return out
}

// writeShard writes out to a file of dir and returns its path.
func writeShard(t *testing.T, dir, name string, out runOutput) string {
	t.Helper()
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, string(b))
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// The fakes merge, in any order, from a file each or from one file of both (as
// `cat shard-*.json | ctrlsim merge -` gives): the reference for the rejections below.
func TestMergeOfFakeShards(t *testing.T) {
	dir := t.TempDir()
	one, two := writeShard(t, dir, "1", fakeShard(1, 2)), writeShard(t, dir, "2", fakeShard(2, 2))
	for _, files := range [][]string{{two, one}, {writeFile(t, dir, "both", read(t, one)+"\n"+read(t, two))}} {
		mergesToTheFakeRun(t, files)
	}
}

func read(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mergesToTheFakeRun(t *testing.T, files []string) {
	t.Helper()
	out, errs, code := ctrlsim(t, append([]string{"merge", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge %v: exit %d: %s", files, code, errs)
	}
	var m runOutput
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	want := fakeShard(1, 1)
	if len(m.Results) != 5 || m.Header != want.Header || m.Summary != want.Summary {
		t.Fatalf("merged %+v %+v (%d results), want %+v %+v", m.Header, m.Summary, len(m.Results), want.Header, want.Summary)
	}
	for k, r := range m.Results {
		if r.Entry != want.Results[k].Entry {
			t.Errorf("result %d is %s, want %s (catalogue order)", k, r.Entry, want.Results[k].Entry)
		}
	}
}

// merge exits as run does: 1 when an outcome is not the expected one.
func TestMergeExitsOneOnAnUnexpectedOutcome(t *testing.T) {
	dir := t.TempDir()
	bad := fakeShard(2, 2)
	bad.Results[0].Outcome = "holds"
	out, _, code := ctrlsim(t, "merge", writeShard(t, dir, "1", fakeShard(1, 2)), writeShard(t, dir, "2", bad))
	if code != 1 || !strings.Contains(out, "5 results: 4 as expected, 1 unexpected") || !strings.Contains(out, "UNEXPECTED") {
		t.Errorf("exit %d, want 1 and the unexpected row:\n%s", code, out)
	}
}

// Inputs that are not every shard of one run, each exactly once, exit 2 with one
// line naming the problem.
func TestMergeRejectsWhatIsNotEveryShardOfOneRunOnce(t *testing.T) {
	dir := t.TempDir()
	s := func(i, n int, change func(*runOutput)) string {
		out := fakeShard(i, n)
		if change != nil {
			change(&out)
		}
		return writeShard(t, dir, fmt.Sprintf("s%d-%d-%d.json", i, n, dirCount(t, dir)), out)
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"no files", nil, "give the JSON (or the pod logs) of every shard"},
		{"an unreadable file", []string{filepath.Join(dir, "nope.json")}, "cannot read " + filepath.Join(dir, "nope.json")},
		{"not JSON", []string{writeFile(t, dir, "table.txt", "ENTRY  VARIANT\n")}, "not the JSON of `ctrlsim run --json`"},
		{"JSON of something else", []string{writeFile(t, dir, "list.json", `[{"id": "canary/stale-cache"}]`)}, "not the JSON of `ctrlsim run --json`"},
		{"no header", []string{writeFile(t, dir, "old.json", `{"results": [], "summary": {}}`)}, "no header"},
		{"a missing shard", []string{s(1, 3, nil), s(3, 3, nil)}, "missing shard 2/3"},
		{"a duplicate shard", []string{s(1, 2, nil), s(2, 2, nil), s(2, 2, nil)}, "duplicate shard 2/2"},
		{"another seed", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Header.Seed = 7 })}, "another seed (7, not 1)"},
		{"another --checks", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Header.Checks = 99 })}, "another --checks (99, not 10)"},
		{"another --entry", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Header.Entries = "bd/*" })}, `another --entry ("bd/*", not "e/*")`},
		{"another --variant", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Header.Variant = "fixed" })}, `another --variant ("fixed", not "")`},
		{"another shard count", []string{s(1, 2, nil), s(2, 3, nil)}, "another shard count (3, not 2)"},
		{"another catalogue", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Header.AllPairs = 6 })}, "another catalogue (6 pairs in all, not 5)"},
		{"a pair twice", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Results[1].Entry = "e/a" })}, "e/a buggy is in two shards"},
		{"fewer results than the header says", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Results = o.Results[:1] })}, "shard 2/2 has 1 results, its header says 2"},
		{"a header's pairs off the round-robin", []string{s(1, 2, nil), s(2, 2, func(o *runOutput) { o.Header.Pairs = 3 })}, "shard 2/2 says it has 3 pairs"},
		{"a shard past the count", []string{s(1, 2, func(o *runOutput) { o.Header.Shard = 3 })}, "bad shard 3/2"},
		{"a truncated log", []string{writeFile(t, dir, "cut.log", "start\n"+jsonBegin+"\n{\n")}, "a json begin marker with no end marker"},
		{"a flag after the files", []string{s(1, 1, nil), "--json"}, "flag --json after a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := ctrlsim(t, append([]string{"merge"}, tc.files...)...)
			if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("merge %v: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tc.files, code, errs, out, tc.want)
			}
		})
	}
}

// dirCount numbers the files written so far, for unique names.
func dirCount(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}
