package search

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// A finding of the sweep is whole when it is found (a targeted plan is not
// shrunk), so a KeepGoing exploration saves and reports it then, not when
// the whole sweep ends: while a later targeted plan runs (the watcher names
// it), the first finding's plan file is already saved.
func TestAKeepGoingSweepSavesEachFindingAsItFindsIt(t *testing.T) {
	hookProgress(t, time.Hour)
	NoSweep = false
	t.Chdir(t.TempDir())
	t.Setenv("CTRLSIM_ARTIFACTS", t.TempDir())
	var during []string // what ran, each time a later targeted plan was judged with a plan saved
	o := twoSeedOptions(
		world.Property{Name: "always", Check: func(h *world.History) error {
			if p := h.Run().Plan; p != nil && len(p.Faults) > 0 {
				return errors.New("violated by every plan with a fault") // not by plan 0, the fault-free run (nofault.go)
			}
			return nil
		}},
		world.Property{Name: "probe", Check: func(*world.History) error {
			what := running()
			files, _ := filepath.Glob(filepath.Join("testdata", "ctrlsim", "*.plan"))
			if strings.HasPrefix(what, "targeted plan ") && len(files) > 0 {
				during = append(during, what)
			}
			return nil
		}})
	o.KeepGoing, o.Expect = true, world.AnyProperty
	Run(t, o)
	if len(during) == 0 {
		t.Fatal("no targeted plan ran after the sweep's first finding was saved: the sweep saved its findings only at its end (or found none)")
	}
	if strings.HasPrefix(during[0], "targeted plan 1 ") {
		t.Errorf("targeted plan 1 ran with a plan already saved (%q): the test shows nothing", during)
	}
}
