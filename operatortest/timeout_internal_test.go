package operatortest

import (
	"strings"
	"testing"
	"time"
)

// A long run (hundreds of plans) says in one line when go test's -timeout
// ends its binary and what to pass; a short one, or one with no deadline
// (-timeout=0), says nothing.
func TestALongRunSaysWhatTimeoutToPass(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	line := timeoutLine(1000, now.Add(10*time.Minute), true, now)
	for _, want := range []string{"1000 plans", "10m0s from now", "-timeout=0"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line lacks %q: %q", want, line)
		}
	}
	if l := timeoutLine(100, now.Add(10*time.Minute), true, now); l != "" {
		t.Errorf("100 plans: %q, want nothing", l)
	}
	if l := timeoutLine(1000, time.Time{}, false, now); l != "" {
		t.Errorf("no deadline: %q, want nothing", l)
	}
}
