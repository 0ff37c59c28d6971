package main

import (
	"strings"
	"testing"
)

// Where stderr is not a terminal (a CI log, a pod's log) run says as each
// (entry, variant) pair starts and ends what it explores and what it found, so
// that a long exploration is never silent; stdout keeps only the result.
func TestRunPrintsProgressLinesWhereStderrIsNotATerminal(t *testing.T) {
	for _, json := range []bool{false, true} {
		args := []string{"run", "--entry", "canary/*", "--variant", "fixed", "--checks", "3"}
		if json {
			args = append(args, "--json")
		}
		out, errs, code := ctrlsim(t, args...)
		if code != 0 {
			t.Fatalf("ctrlsim %v: exit %d\n%s", args, code, errs)
		}
		for _, want := range []string{
			"ctrlsim run: exploring 1 (entry, variant) pairs, up to 3 plans each (seed 1)\n",
			"ctrlsim run: [1/1] canary/stale-cache fixed ...\n",
			"ctrlsim run: [1/1] canary/stale-cache fixed: holds (expected holds), 3 plans, ",
		} {
			if !strings.Contains(errs, want) {
				t.Errorf("ctrlsim %v: stderr lacks %q:\n%s", args, want, errs)
			}
		}
		if strings.Contains(out, "ctrlsim run:") || strings.Contains(errs, "\r") {
			t.Errorf("ctrlsim %v: progress on stdout or a terminal's carriage return:\nstdout %q\nstderr %q", args, out, errs)
		}
	}
}
