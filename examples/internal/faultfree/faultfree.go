package faultfree

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Replay replays o on plan seed 1 with no fault, the script of o's
// workload its only steps (at most a minute in), and returns the run
// whatever its verdicts.
func Replay(t *testing.T, o operatortest.Options) *operatortest.Replayed {
	t.Helper()
	steps, _, err := o.Workload.PlanSteps(o.Scheme, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	r, err := operatortest.Replay(t, o, &plan.Plan{Seed: 1, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// NoWrite fails the test if a write of the process names one of the
// markers in its operation or object ("Event ", "/status", "delete").
func NoWrite(t *testing.T, r *operatortest.Replayed, process string, markers ...string) {
	t.Helper()
	for _, s := range r.Steps {
		if s.Process != process || !IsWrite(s.Op) {
			continue
		}
		for _, m := range markers {
			if strings.Contains(s.Op+" "+s.Object, m) {
				t.Errorf("%s writes %q: %s", process, m, s)
			}
		}
	}
}

// IsWrite reports whether a trace step's operation writes (create, update,
// patch, delete, apply, and their subresource forms: update/status).
func IsWrite(op string) bool {
	op, _, _ = strings.Cut(op, "/")
	return op == "create" || op == "update" || op == "patch" || op == "delete" || op == "apply"
}
