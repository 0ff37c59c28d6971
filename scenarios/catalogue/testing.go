package catalogue

import (
	"testing"
	"time"
)

// The catalogue's budget: plans per (entry, variant) and the explorer seed that
// `ctrlsim run` and `ctrlsim catalogue` use by default, and at which TestEntries
// checks every expectation.
const (
	Checks = 200
	Seed   = 1
)

// MaxMinimalPlan bounds the lines (steps and faults) of a caught variant's
// minimal plan in TestEntries: a plan a reader takes in at a glance.
const MaxMinimalPlan = 4

// TestEntries is the one test of the catalogue's expectations: it explores
// every variant of every entry at the catalogue's budget (Checks plans from
// explorer seed Seed, as `ctrlsim catalogue` does) and requires each outcome
// to be the expected one; a caught variant's minimal plan must have at most
// MaxMinimalPlan lines and must reproduce the violation. An unexpected outcome
// saves the plan and prints the replay command (FailureReport). Each scenario
// package's entries test calls it with its entries; it is skipped under
// -short (make check).
func TestEntries(t *testing.T, entries []*Entry) {
	t.Helper()
	if testing.Short() {
		t.Skip("explores every entry at the catalogue's budget (make test runs it)")
	}
	for _, e := range entries {
		for _, v := range e.Variants() {
			t.Run(e.ID+"/"+string(v), func(t *testing.T) {
				r := e.Explore(v, Checks, Seed, time.Now)
				t.Logf("%s after %d checks (first failure at %d), %v wall", r.Outcome, r.Checks, r.ChecksToFirstFailure, r.Wall)
				if r.Minimal != nil {
					t.Logf("minimal plan (%d lines), violates %v:\n%s", r.Minimal.Size(), r.Violated, r.Minimal)
					run, err := e.Replay(v, r.Minimal)
					if err != nil {
						t.Fatal(err)
					}
					r.Reproduced = len(run.Violated()) > 0
					run.Close()
				}
				for _, p := range r.Problems() {
					t.Error(p)
				}
				if !r.AsExpected() {
					t.Log(FailureReport(r))
				}
			})
		}
	}
}
