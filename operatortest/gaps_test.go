package operatortest

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A replayed plan's story is its picture and inspector only: no markdown
// report is written beside them (a failing test's tells how to replay it
// with go test).
func TestWriteStoryWritesNoMarkdownReport(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 2s publish name=x\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Replay(t, optest.DomainOptions(), p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	svg, html, err := r.WriteStory(filepath.Join(dir, "x.plan"), "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{svg, html} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %v, want it written", f, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("%d files beside the plan, want the picture and the inspector only", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, "x.md")); !os.IsNotExist(err) {
		t.Errorf("x.md: %v, want no markdown report", err)
	}
}
