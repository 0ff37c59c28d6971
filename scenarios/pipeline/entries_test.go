package pipeline_test

import (
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/scenarios/pipeline"
)

// Every pipeline entry meets its expectations at a small deterministic budget.
func TestEntriesMeetExpectations(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every entry")
	}
	for _, e := range pipeline.Entries() {
		for _, v := range e.Variants() {
			r := e.Explore(v, 50, 1, time.Now)
			if !r.AsExpected() {
				t.Errorf("%s/%s: %s, expected %s: %s", e.ID, v, r.Outcome, r.Expect, catalogue.FailureReport(r))
			}
			size := 0
			if r.Minimal != nil {
				size = r.Minimal.Size()
			}
			t.Logf("%s/%s: %s after %d checks (minimal plan %d lines, %s)", e.ID, v, r.Outcome, r.Checks, size, r.Wall.Round(time.Millisecond))
		}
	}
}
