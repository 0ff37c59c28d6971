package long_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/internal/long"
)

// The long form is chosen by CTRLSIM_LONG=1 or CTRLSIM_TWIN=1000, and by
// nothing else: make test sets neither.
func TestEnabledFollowsTheVariables(t *testing.T) {
	for _, c := range []struct {
		long, twin string
		want       bool
	}{
		{"", "", false},
		{"1", "", true},
		{"0", "", false},
		{"", "1000", true},
		{"", "30", false},
	} {
		t.Setenv(long.Variable, c.long)
		t.Setenv("CTRLSIM_TWIN", c.twin)
		if got := long.Enabled(); got != c.want {
			t.Errorf("CTRLSIM_LONG=%q CTRLSIM_TWIN=%q: Enabled() = %v, want %v", c.long, c.twin, got, c.want)
		}
		if got, want := long.Pick(30, 1000), map[bool]int{false: 30, true: 1000}[c.want]; got != want {
			t.Errorf("CTRLSIM_LONG=%q CTRLSIM_TWIN=%q: Pick(30, 1000) = %d, want %d", c.long, c.twin, got, want)
		}
	}
}
