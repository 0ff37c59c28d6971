package kopf_test

import (
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/kopf"
)

// TestEntries checks the expectations of this package's catalogue entries
// on operatortest (catalogue.TestEntries: the catalogue's budget; skipped
// under -short).
func TestEntries(t *testing.T) { catalogue.TestEntries(t, scenario.OnOperatortest()) }

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
