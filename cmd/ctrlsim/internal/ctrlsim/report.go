package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
)

// cmdReport writes the markdown report of an operator test's saved plan
// (testdata/ctrlsim/<test>.plan, as operatortest.Run saves it): it replays
// the plan with go test in the test's package directory, which writes the
// story (.svg), the inspector (.html) and the report (.md) to the artifacts
// directory ($CTRLSIM_ARTIFACTS, else a fresh temporary directory; under
// the package's path in its module: failure.StoryFiles), and copies
// the report to --out (stdout by default). The plan file's first comment
// names the test.
//
//	ctrlsim report [--out FILE] testdata/ctrlsim/TestX.plan
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report")
	out := fs.String("out", "", "write the markdown report to this file (default: stdout)")
	goCmd := fs.String("go", "go", "the go command to run the test with")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one plan file saved by operatortest (testdata/ctrlsim/<test>.plan), got %d arguments", fs.NArg())
	}
	planPath, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return usagef("%v", err)
	}
	test, err := planTest(planPath)
	if err != nil {
		return err
	}
	// <package>/testdata/ctrlsim/<test>.plan
	dir := filepath.Dir(filepath.Dir(filepath.Dir(planPath)))
	artifacts := os.Getenv("CTRLSIM_ARTIFACTS")
	if artifacts == "" {
		if artifacts, err = os.MkdirTemp("", "ctrlsim-artifacts-"); err != nil {
			return err
		}
	}
	if artifacts, err = filepath.Abs(artifacts); err != nil {
		return usagef("%v", err)
	}
	svg, html, md := failure.StoryFiles(artifacts, dir, planPath)
	_ = os.Remove(md) // a report left from an earlier run must not pass for this one
	cmd := exec.Command(*goCmd, "test", "-count=1", "-v", "-run", failure.RunPattern(test), "-ctrlsim.plan="+planPath, "-ctrlsim.artifacts="+artifacts)
	cmd.Dir = dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	fmt.Fprintf(stderr, "ctrlsim report: replaying %s in %s (go test -run '%s')\n", filepath.Base(planPath), dir, failure.RunPattern(test))
	runErr := cmd.Run()
	b, err := os.ReadFile(md)
	if errors.Is(err, os.ErrNotExist) {
		if why := ranNothing(log.String(), test); why != "" {
			return fmt.Errorf("%s: the plan was not replayed, so there is nothing to report", why)
		}
		if runErr == nil {
			return fmt.Errorf("the plan holds now (go test passed): there is no violation to report")
		}
		return fmt.Errorf("go test wrote no report (%v):\n%s", runErr, log.String())
	}
	if err != nil {
		return err
	}
	if *out == "" {
		fmt.Fprintf(stderr, "ctrlsim report: the story: %s, %s\n", svg, html)
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ctrlsim report: wrote %s (the story: %s, %s)\n", *out, svg, html)
	return nil
}

// ranNothing says why go test's verbose output shows test did not run (it
// skipped, or no test matched), or "" if it ran.
func ranNothing(out, test string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--- SKIP: "+test+" ") {
			// go test -v prints the reason (t.Skip's text) above the SKIP line.
			why := "no reason given"
			if i > 0 && !strings.HasPrefix(lines[i-1], "=== ") {
				why = strings.TrimSpace(lines[i-1])
			}
			return fmt.Sprintf("%s skipped (%s)", test, why)
		}
	}
	if strings.Contains(out, "testing: warning: no tests to run") {
		return fmt.Sprintf("no test matches %s in that package", test)
	}
	return ""
}

// planTest is the test a saved plan belongs to: its "# operatortest test:"
// comment.
func planTest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", usagef("%v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "# operatortest test: "); ok && name != "" {
			return name, nil
		}
	}
	return "", usagef("%s names no test (its first lines have no \"# operatortest test: <name>\" comment): it was not saved by operatortest.Run", path)
}
