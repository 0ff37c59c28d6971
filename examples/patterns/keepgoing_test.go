package patterns_test

import (
	"fmt"
	"strings"
	"testing"
)

// Each buggy twin has one bug, and KeepGoing reports it once: the other
// signatures its plan shows (a generic oracle's and the kinds it names
// beside another's) and those of later plans shown to be the same bug
// (package rootcause) are listed under the one finding, and a plan
// numbered in the finding as in the line that announced it. A twin whose
// bug goes wrong at writes that nothing shows are one (wrongAt) is
// reported once for each. Exploring every twin
// past its first finding costs each its whole budget (minutes a twin), so it
// runs with the suite's long budget (make falsealarms, -patterns.report), not
// in make test.
func TestKeepGoingReportsEachTwinsBugOnce(t *testing.T) {
	if *flagReport == "" {
		t.Skip("explores each twin's whole budget: make falsealarms runs it (-patterns.report)")
	}
	for _, p := range selected(t) {
		t.Run(p.name, func(t *testing.T) {
			o := p.options(true)
			o.KeepGoing, o.ShrinkRuns = true, shrinkRuns
			res, took := explore(t, o)
			var lines []string
			for _, f := range res.Findings {
				lines = append(lines, fmt.Sprintf("%s at plan %d (no fault: %v; also: %s)", f.Signature, f.FirstFailure, f.NoFault, strings.Join(f.Also, "; ")))
			}
			t.Logf("%d plans in %s: %s", res.Checks, took.Round(1e6), strings.Join(lines, ", "))
			if want := max(1, len(p.wrongAt)); len(res.Findings) != want {
				t.Errorf("the twin's one bug (%s) was reported as %d findings, want %d: %s", p.bug, len(res.Findings), want, strings.Join(lines, ", "))
			}
		})
	}
}
