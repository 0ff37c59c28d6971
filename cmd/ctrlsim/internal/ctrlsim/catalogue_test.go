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
