package catalogue

import (
	"testing"
	"time"
)

// TestEntries explores every entry and variant at a small deterministic budget
// (explorer seed 1) and requires each outcome to be the expected one; a caught
// variant's minimal plan must have at most maxLines lines and must reproduce the
// violation. An unexpected outcome saves the plan and prints the replay command
// (FailureReport).
func TestEntries(t *testing.T, entries []*Entry, checks, maxLines int) {
	t.Helper()
	for _, e := range entries {
		for _, v := range e.Variants() {
			t.Run(e.ID+"/"+string(v), func(t *testing.T) {
				r := e.Explore(v, checks, 1, time.Now)
				t.Logf("%s after %d checks (first failure at %d), %v wall, %d API ops", r.Outcome, r.Checks, r.ChecksToFirstFailure, r.Wall, r.APIOps)
				if !r.AsExpected() {
					t.Fatalf("outcome %s, expected %s: %s", r.Outcome, r.Expect, FailureReport(r))
				}
				if r.Minimal == nil {
					return
				}
				t.Logf("minimal plan (%d lines), violates %v:\n%s", r.Minimal.Size(), r.Violated, r.Minimal)
				if n := r.Minimal.Size(); n > maxLines {
					t.Errorf("minimal plan has %d lines, want at most %d", n, maxLines)
				}
				run, err := e.RunPlan(v, r.Minimal)
				if err != nil {
					t.Fatal(err)
				}
				defer run.Cluster.Close()
				if len(run.Violated()) == 0 {
					t.Errorf("the minimal plan does not reproduce the violation")
				}
			})
		}
	}
}
