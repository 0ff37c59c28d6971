package canary_test

import (
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/scenarios/canary"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

func TestCanaryEntryMeetsItsExpectations(t *testing.T) {
	e := canary.Entry()
	for _, v := range e.Variants() {
		res := e.Explore(v, 100, 1, time.Now)
		if !res.AsExpected() {
			t.Errorf("%s/%s: %s, expected %s: %s", e.ID, v, res.Outcome, res.Expect, catalogue.FailureReport(res))
		}
		size := 0
		if res.Minimal != nil {
			size = res.Minimal.Size()
		}
		t.Logf("%s/%s: %s after %d checks, minimal plan size %d", e.ID, v, res.Outcome, res.Checks, size)
	}
}
