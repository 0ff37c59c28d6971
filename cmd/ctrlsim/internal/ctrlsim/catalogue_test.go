package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// A regenerated catalogue passes its own check: the files an entry no longer
// produces (a variant that now holds has no trace) are removed, the pages of
// other commands are kept, and the rest is what was generated.
func TestARegeneratedCatalogueLeavesNoFileItNoLongerGenerates(t *testing.T) {
	have, want := t.TempDir(), t.TempDir()
	write := func(root, name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(have, "e/README.md", "old")
	write(have, "e/robust.html", "a trace")
	write(have, "gone/buggy.plan", "seed 0")
	write(have, "bench.md", "figures")
	write(want, "e/README.md", "new")
	write(want, "e/buggy.plan", "seed 1")

	removed, err := syncDir(have, want)
	if err != nil {
		t.Fatal(err)
	}
	if w := []string{"e/robust.html", "gone/buggy.plan"}; !reflect.DeepEqual(removed, w) {
		t.Errorf("removed %q, want %q", removed, w)
	}
	if _, err := os.Stat(filepath.Join(have, "gone")); !os.IsNotExist(err) {
		t.Errorf("an emptied entry directory is left behind: %v", err)
	}
	diffs, err := compareDirs(have, want)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) > 0 {
		t.Errorf("the synced catalogue fails its check:\n%s", diffs)
	}
	if b, err := os.ReadFile(filepath.Join(have, "bench.md")); err != nil || string(b) != "figures" {
		t.Errorf("bench.md, written by ctrlsim bench, was not kept: %q, %v", b, err)
	}
}

// Where stderr is not a terminal (a CI log: make test's catalogue --check
// takes a quarter of an hour or more) the catalogue says, as each (entry,
// variant) pair starts, which, numbered among all of them, with the time
// so far; on a terminal, one line rewritten in place.
func TestTheCatalogueSaysWhichPairItExploresWhereStderrIsNotATerminal(t *testing.T) {
	entries := scenarios.All()
	total := 0
	for _, e := range entries {
		total += len(e.Variants())
	}
	at := time.Unix(0, 0)
	now := func() time.Time { at = at.Add(90 * time.Second); return at }
	var log strings.Builder
	progress := catalogueProgress(&log, false, entries, now)
	progress(entries[0], string(entries[0].Variants()[0]))
	progress(entries[1], string(entries[1].Variants()[0]))
	want := fmt.Sprintf("ctrlsim catalogue: [2/%d] %s %s ... (3m0s so far)\n", total, entries[1].ID, entries[1].Variants()[0])
	if lines := strings.SplitAfter(log.String(), "\n"); len(lines) != 3 || lines[1] != want {
		t.Errorf("progress:\n%s\nwant a line a pair, the second %q", log.String(), want)
	}
	var term strings.Builder
	catalogueProgress(&term, true, entries, now)(entries[0], "fixed")
	if got := term.String(); !strings.HasPrefix(got, "\r\033[K") || strings.Contains(got, "\n") {
		t.Errorf("on a terminal: %q, want one line rewritten in place", got)
	}
}

// Each part is handed its own orders, however much room the environment
// it is given has (CI once saw two parts run on one entry's orders, the
// other's results never written).
func TestEachPartIsHandedItsOwnOrders(t *testing.T) {
	env := make([]string, 1, 8)
	env[0] = "A=1"
	first, second := partEnv(env, []byte("first")), partEnv(env, []byte("second"))
	if got := first[len(first)-1]; got != cataloguePartEnv+"=first" {
		t.Errorf("the first part's orders: %q after another part's were made", got)
	}
	if second[len(second)-1] != cataloguePartEnv+"=second" || len(env) != 1 {
		t.Errorf("the second part's environment %q, the shared one %q", second, env)
	}
}

// Written in parts (--jobs above 1: each entry in a process of its own, the
// index from all their results), the catalogue is the one written in one
// process, file for file, and its results are the same.
func TestTheCatalogueWrittenInPartsIsTheCatalogueWrittenInOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("explores two entries twice (make test runs it)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	defer func(f func() (string, []string, error)) { partCommand = f }(partCommand)
	partCommand = func() (string, []string, error) { return self, append(os.Environ(), asCommand+"=1"), nil }
	var entries []*catalogue.Entry
	for _, e := range scenarios.All() {
		if e.ID == "canary/stale-cache" || e.ID == "helm/interrupted-install" {
			entries = append(entries, e)
		}
	}
	if len(entries) != 2 {
		t.Fatalf("%d of the two entries found", len(entries))
	}
	opts := catalogue.ReportOptions{Checks: 2, Seed: 1}
	one, parts := t.TempDir(), t.TempDir()
	want, err := catalogue.WriteReports(one, entries, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	got, err := writeInParts(parts, entries, opts, 2, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	diffs, err := compareDirs(one, parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) > 0 {
		t.Errorf("written in parts, the catalogue differs:\n%s", diffs)
	}
	caught := 0
	for i := range want {
		w, g := want[i], got[i]
		if g.Entry != w.Entry || g.Variant != w.Variant || g.Outcome != w.Outcome || g.Expect != w.Expect || g.ChecksToFirstFailure != w.ChecksToFirstFailure ||
			g.Reproduced != w.Reproduced || (g.Minimal == nil) != (w.Minimal == nil) || g.Minimal != nil && g.Minimal.String() != w.Minimal.String() {
			t.Errorf("result %d: in parts %+v, in one process %+v", i, g, w)
		}
		if w.Outcome == catalogue.Caught {
			caught++
		}
	}
	if len(got) != len(want) || caught == 0 {
		t.Errorf("%d results in parts, %d in one process (%d caught): want the same, some caught", len(got), len(want), caught)
	}
	if n := strings.Count(log.String(), "ctrlsim catalogue: ["); n != len(want) {
		t.Errorf("the parts said %d progress lines, want one a pair (%d):\n%s", n, len(want), log.String())
	}
}
