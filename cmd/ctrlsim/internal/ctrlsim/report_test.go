package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ctrlsim report refuses what it cannot report on with exit 2 and one line.
func TestReportRefusesWhatOperatortestDidNotSave(t *testing.T) {
	noHeader := filepath.Join(t.TempDir(), "x.plan")
	if err := os.WriteFile(noHeader, []byte("seed 1\ncrash process=op write=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "want one plan file saved by operatortest"},
		{[]string{"report", "/does/not/exist.plan"}, "no such file"},
		{[]string{"report", noHeader}, `names no test (its first lines have no "# operatortest test: <name>" comment)`},
	} {
		out, errs, code := ctrlsim(t, tc.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("ctrlsim %v: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tc.args, code, errs, out, tc.want)
		}
	}
}

// A replay that ran nothing (the test skipped, or no test matched) is not a
// plan that holds.
func TestReportSaysWhenTheReplayRanNothing(t *testing.T) {
	skipped := "=== RUN   TestX\n    x_test.go:9: needs CTRLSIM_X=1\n--- SKIP: TestX (0.00s)\nPASS\n"
	if got := ranNothing(skipped, "TestX"); got != "TestX skipped (x_test.go:9: needs CTRLSIM_X=1)" {
		t.Errorf("skipped: %q", got)
	}
	if got := ranNothing("testing: warning: no tests to run\nPASS\n", "TestX"); !strings.Contains(got, "no test matches TestX") {
		t.Errorf("no test: %q", got)
	}
	if got := ranNothing("=== RUN   TestX\n--- SKIP: TestXY (0.00s)\n--- FAIL: TestX (1.00s)\n", "TestX"); got != "" {
		t.Errorf("a test that ran: %q", got)
	}
}

// ctrlsim report of a saved plan of examples/twowrites' buggy operator
// replays it with go test and prints the markdown report, which reads on its
// own: the violation, why it is real, the plan, the replay command; the
// picture and the inspector are in the artifacts directory
// ($CTRLSIM_ARTIFACTS), under examples/twowrites, and not beside the plan.
func TestReportWritesTheMarkdownOfASavedPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs examples/twowrites' test binary")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "examples", "twowrites", "testdata", "ctrlsim"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "report-test")
	t.Cleanup(func() {
		for _, ext := range []string{".plan", ".svg", ".html", ".md"} {
			os.Remove(base + ext)
		}
		os.Remove(dir) // only when empty
		os.Remove(filepath.Dir(dir))
	})
	artifacts := t.TempDir()
	t.Setenv("CTRLSIM_ARTIFACTS", artifacts)
	plan := "# operatortest test: TestTheBuggyOperator\nseed 0\ncrash process=twowrites write=1\n"
	if err := os.WriteFile(base+".plan", []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	// Its test skips unless asked: the report says so and why, and does not
	// claim the plan holds.
	t.Setenv("CTRLSIM_TWOWRITES", "")
	_, errs, code := ctrlsim(t, "report", base+".plan")
	if want := "TestTheBuggyOperator skipped (twowrites_test.go"; code == 0 || !strings.Contains(errs, want) || strings.Contains(errs, "holds now") {
		t.Errorf("ctrlsim report of a test that skips: exit %d, stderr %q; want a failure saying %q", code, errs, want)
	}
	t.Setenv("CTRLSIM_TWOWRITES", "1") // the buggy operator's test runs only when asked
	out, errs, code := ctrlsim(t, "report", base+".plan")
	if code != 0 {
		t.Fatalf("ctrlsim report: exit %d\n%s", code, errs)
	}
	for _, want := range []string{"# TestTheBuggyOperator: converges violated", "Secret shop/web-credentials",
		"## Why a real cluster can do this", "crash process=twowrites write=1", "OOM-killed",
		"-ctrlsim.plan=report-test.plan", "![the run", "## The operator's log lines"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, dir) {
		t.Errorf("the report names a path of this machine (%s)", dir)
	}
	for _, ext := range []string{".svg", ".html", ".md"} {
		if _, err := os.Stat(filepath.Join(artifacts, "examples", "twowrites", "report-test"+ext)); err != nil {
			t.Errorf("the story is not in the artifacts directory: %v", err)
		}
		if _, err := os.Stat(base + ext); err == nil {
			t.Errorf("the story's %s is beside the plan", ext)
		}
	}
}
