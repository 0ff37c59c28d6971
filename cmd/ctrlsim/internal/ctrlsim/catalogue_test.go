package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
