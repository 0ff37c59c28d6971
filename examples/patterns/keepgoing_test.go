package patterns_test

import (
	"fmt"
	"strings"
	"testing"
)

// Each buggy twin has one bug, and KeepGoing reports it once: the other
// signatures its plan shows (a generic oracle's and the kinds it names
// beside another's) are listed under the one finding, and a plan numbered
// in the finding as in the line that announced it. Exploring every twin
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
			if len(res.Findings) != 1 {
				t.Errorf("the twin's one bug (%s) was reported as %d findings: %s", p.bug, len(res.Findings), strings.Join(lines, ", "))
			}
		})
	}
}
