package bundledeployment_test

import (
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/scenarios/bundledeployment"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// TestEntriesMeetExpectations explores every bd/ entry and variant at a small
// deterministic budget and checks the outcome is the expected one.
func TestEntriesMeetExpectations(t *testing.T) {
	if testing.Short() {
		t.Skip("explores every entry")
	}
	for _, e := range bundledeployment.Entries() {
		for _, v := range e.Variants() {
			r := e.Explore(v, 50, 1, time.Now)
			if !r.AsExpected() {
				t.Errorf("%s/%s: %s, expected %s: %s", e.ID, v, r.Outcome, r.Expect, catalogue.FailureReport(r))
			}
			size, text := 0, ""
			if r.Minimal != nil {
				size, text = r.Minimal.Size(), r.Minimal.String()
			}
			t.Logf("%s/%s: %s after %d checks (first failure at %d, minimal plan %d lines, %s, %v)\n%s",
				e.ID, v, r.Outcome, r.Checks, r.ChecksToFirstFailure, size, r.Wall.Round(time.Millisecond), r.Violated, text)
		}
	}
}
