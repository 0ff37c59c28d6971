package kopf_test

import (
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"testing"
	"time"

	scenario "github.com/ctrlsim/ctrlsim/scenarios/kopf"
)

// TestEntriesMeetExpectations explores every entry and variant at a small
// deterministic budget (explorer seed 1) and checks the outcome is the expected
// one; a caught variant's minimal plan must be small and must reproduce.
func TestEntriesMeetExpectations(t *testing.T) {
	const checks = 100
	for _, e := range scenario.Entries() {
		for _, v := range e.Variants() {
			t.Run(e.ID+"/"+string(v), func(t *testing.T) {
				r := e.Explore(v, checks, 1, time.Now)
				t.Logf("%s after %d checks (first failure at %d), %v wall, %d API ops", r.Outcome, r.Checks, r.ChecksToFirstFailure, r.Wall, r.APIOps)
				if !r.AsExpected() {
					t.Fatalf("outcome %s, expected %s: %s", r.Outcome, r.Expect, catalogue.FailureReport(r))
				}
				if r.Minimal == nil {
					return
				}
				t.Logf("minimal plan (%d lines), violates %v:\n%s", r.Minimal.Size(), r.Violated, r.Minimal)
				if n := r.Minimal.Size(); n > 4 {
					t.Errorf("minimal plan has %d lines, want a handful", n)
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

// TestBoundedFailureRate: under a flaky fault the failures of one object keep
// to the envelope across the successes between them; a streak ends after the
// quiet period or at a restart (SEEDS.md Seed 3 (f): one success resets kopf's
// sequence).
func TestBoundedFailureRate(t *testing.T) {
	const quiet = 10 * time.Minute
	// fail, succeed, fail ... every 600 ms: the gaps between failures are 1.2 s.
	flaky := func(n, incarnationFrom int) []scenario.Attempt {
		var out []scenario.Attempt
		for i := range 2 * n {
			inc := 1
			if incarnationFrom > 0 && i >= incarnationFrom {
				inc = 2
			}
			out = append(out, scenario.Attempt{At: time.Duration(i) * 600 * time.Millisecond, Failed: i%2 == 0, Incarnation: inc})
		}
		return out
	}
	cases := []struct {
		name     string
		attempts []scenario.Attempt
		ok       bool
	}{
		{"nine failures 1.2 s apart fit 5ms·2^i up to 640 ms", flaky(9, 0), true},
		{"the tenth comes 1.2 s after the ninth, the envelope asks 1.28 s", flaky(10, 0), false},
		{"a restart after the fifth failure starts a new streak", flaky(10, 10), true},
		{"quiet ends a streak", append(flaky(9, 0), scenario.Attempt{At: quiet + 10*time.Second, Failed: true, Incarnation: 1},
			scenario.Attempt{At: quiet + 10*time.Second + 5*time.Millisecond, Failed: true, Incarnation: 1}), true},
	}
	for _, tc := range cases {
		err := scenario.BoundedFailureRate(tc.attempts, quiet)
		if (err == nil) != tc.ok {
			t.Errorf("%s: BoundedFailureRate = %v, want ok %v", tc.name, err, tc.ok)
		}
		// The persistent reading forgives every one of them: a success ends each streak.
		if err := scenario.BoundedRetryRate(tc.attempts); err != nil {
			t.Errorf("%s: BoundedRetryRate = %v, want nil (each success ends the streak)", tc.name, err)
		}
	}
}
