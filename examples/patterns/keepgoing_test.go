package patterns_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
)

// Each buggy twin has one bug, and KeepGoing reports it, every finding of
// it its own: the other signatures its plan shows (a generic oracle's and
// the kinds it names beside another's) and those of later plans shown to be
// the same bug (package rootcause: violations of one fault-free run, or the
// same wrong write) are listed under one finding, and each finding's
// minimal plan, run on the correct operator, holds (the twin's bug, not a
// false alarm). A bug that goes wrong at writes nothing shows are one is
// reported once for each (the statefulset twin, which does not watch its
// StatefulSets, shows it in the Cache's status with no fault and in the
// StatefulSet under a fault); how many findings each twin gave is logged.
// Exploring every twin past its first finding costs each its whole budget
// (minutes a twin), so it runs with the suite's long budget (make
// falsealarms, -patterns.report), not in make test.
func TestKeepGoingReportsEachTwinsBug(t *testing.T) {
	if *flagReport == "" {
		t.Skip("explores each twin's whole budget: make falsealarms runs it (-patterns.report)")
	}
	for _, p := range selected(t) {
		t.Run(p.name, func(t *testing.T) {
			if why, known := knownSlowTwins[p.name]; known {
				t.Skipf("KNOWN SLOW TWIN, not explored: %s", why)
			}
			o := p.options(true)
			o.KeepGoing, o.ShrinkRuns = true, shrinkRuns
			res, took := explore(t, o)
			var lines []string
			for _, f := range res.Findings {
				lines = append(lines, fmt.Sprintf("%s at plan %d (no fault: %v; also: %s)", f.Signature, f.FirstFailure, f.NoFault, strings.Join(f.Also, "; ")))
			}
			t.Logf("%d plans in %s, %d finding%s: %s", res.Checks, took.Round(1e6), len(res.Findings), map[bool]string{true: "s", false: ""}[len(res.Findings) != 1], strings.Join(lines, ", "))
			if len(res.Findings) == 0 {
				t.Fatalf("the twin's bug (%s) was not reported", p.bug)
			}
			if _, known := knownSharedCatches[p.name]; known {
				return
			}
			for _, f := range res.Findings {
				r, err := operatortest.Replay(t, p.options(false), f.Minimal)
				if err != nil {
					t.Fatal(err)
				}
				if v := r.Violated(); len(v) > 0 {
					t.Errorf("the twin's finding %s at plan %d violates %v on the correct operator too (a false alarm, not the twin's bug); plan:\n%s", f.Signature, f.FirstFailure, v, f.Minimal)
				}
			}
		})
	}
}
