package patterns_test

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
)

// The dry-run-drift operator judges drift with dry runs, which the world
// answers and does not store: with no fault and no workload, its Service is
// applied once (its creation), every later reconcile dry-runs the apply and
// finds nothing to correct, and the run holds. Its twin, judging without the
// dry run, corrects the server's defaults again and again.
func TestTheDriftOperatorDryRunsAndAppliesOnce(t *testing.T) {
	for _, buggy := range []bool{false, true} {
		var p pattern
		for _, q := range patterns {
			if q.name == "dry-run-drift" {
				p = q
			}
		}
		o := p.options(buggy)
		r, err := operatortest.Replay(t, o, mustPlan(t, "seed 1\n"))
		if err != nil {
			t.Fatal(err)
		}
		applies, dryRuns := 0, 0
		for _, s := range r.Steps {
			if s.Object != "Service web/shop-web" || s.Result != "ok" {
				continue
			}
			switch s.Op {
			case "patch":
				applies++
			case "dry-run patch":
				dryRuns++
			}
		}
		switch {
		case !buggy && (applies != 1 || dryRuns == 0 || len(r.Violated()) > 0):
			t.Errorf("the correct operator applied its Service %d times with %d dry runs, and violates %v: want once, some dry runs, nothing", applies, dryRuns, r.Violated())
		case buggy && (applies < 100 || dryRuns != 0 || !strings.Contains(firstViolation(r), "hot-loop")):
			t.Errorf("the twin applied its Service %d times with %d dry runs (%s): want a hot loop of applies, no dry run", applies, dryRuns, firstViolation(r))
		}
	}
}

func firstViolation(r *operatortest.Replayed) string {
	if v := r.Violated(); len(v) > 0 {
		return v[0].Property + ": " + v[0].Detail
	}
	return "no violation"
}
