package poller_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

func TestTheBugShowsWithoutACrash(t *testing.T) {
	r := faultfree.Replay(t, options(true))
	if !slices.ContainsFunc(r.Violated(), func(v check.Verdict) bool { return v.Property == "status-follows-the-registry" }) {
		t.Errorf("the buggy poller's fault-free run holds: %v", r.Violated())
	}
}
