package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios"
)

// unquoteANSIC reads back a $'...' argument as ReplayCommand writes it.
func unquoteANSIC(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\n`, "\n").Replace(s)
}

var printedReplay = regexp.MustCompile(`(?m)^    go run \./cmd/ctrlsim replay --entry (\S+) --variant (\S+) --plan-text \$'((?:[^'\\]|\\.)*)' --timeline$`)

// The table output ends with a summary whose counts are those of the results, and
// gives each caught result's replay command (few are caught in canary/*), which
// reproduces the violation when run as printed.
func TestRunSummaryCountsAndReplays(t *testing.T) {
	args := []string{"run", "--checks", "30", "--entry", "canary/*"}
	res := runJSON(t).Results // the same flags, as JSON
	text, errs, code := ctrlsim(t, args...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	caught := map[string]int{}
	var caughtResults []runResult
	for _, r := range res {
		if r.Outcome == "caught" {
			caught[r.Variant]++
			caughtResults = append(caughtResults, r)
		}
	}
	if len(caughtResults) == 0 || len(caughtResults) > replayAllUpTo {
		t.Fatalf("canary/* should catch between 1 and %d results: %+v", replayAllUpTo, res)
	}
	for _, want := range []string{
		"ENTRY", "VARIANT", "EXPECTED", "PLANS RUN", "MINIMAL PLAN", "How to read the table",
		fmt.Sprintf("%d results: %d as expected, 0 unexpected", len(res), len(res)),
		fmt.Sprintf("Caught %s in %d runs", plural(len(caughtResults), "bug"), len(res)),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("run output lacks %q:\n%s", want, text)
		}
	}
	for _, v := range []string{"buggy", "fixed", "robust"} {
		if want := fmt.Sprintf("\n  %-7s %3d caught in ", v, caught[v]); !strings.Contains(text, want) {
			t.Errorf("run output lacks the count line %q:\n%s", want, text)
		}
	}
	for _, r := range caughtResults {
		if !strings.Contains(text, "    go run ./cmd/"+r.Replay+"\n") {
			t.Errorf("run output lacks the replay command of %s %s (%s):\n%s", r.Entry, r.Variant, r.Replay, text)
		}
	}
	m := printedReplay.FindAllStringSubmatch(text, -1)
	if len(m) != len(caughtResults) {
		t.Fatalf("run output prints %d replay commands for %d caught results:\n%s", len(m), len(caughtResults), text)
	}
	for _, x := range m {
		out, errs, code := ctrlsim(t, "replay", "--entry", x[1], "--variant", x[2], "--plan-text", unquoteANSIC(x[3]), "--timeline")
		if code != 0 || !strings.Contains(out, ": violated") {
			t.Errorf("the printed replay of %s %s does not show a violation: exit %d %s\n%s", x[1], x[2], code, errs, out)
		}
	}
}

// With many caught results the summary shows one example per variant and every
// unexpected one, and says where the others are; an unexpected hold says how to
// explore further; an empty minimal plan reads "none needed".
func TestRunSummaryWithManyCaught(t *testing.T) {
	mk := func(entry, v, expect, outcome, planText string) runResult {
		r := runResult{Entry: entry, Variant: v, Expect: expect, Outcome: outcome, Checks: 7, MinimalPlan: planText}
		if outcome == "caught" {
			r.Violated = []string{"some-property"}
			r.Replay = ReplayCommand(entry, v, planText)
		} else {
			r.Checks = 30
		}
		return r
	}
	results := []runResult{
		mk("a/one", "buggy", "caught", "caught", "seed 0\n"),
		mk("a/one", "fixed", "caught", "caught", "seed 0\nat 1s upgrade\ncrash process=p call=3\nlag process=p kind=* min=0s max=1ms\n"),
		mk("a/one", "robust", "holds", "caught", "seed 3\nat 1s upgrade\n"),
		mk("a/two", "buggy", "caught", "caught", "seed 1\nat 1s upgrade\n"),
		mk("a/two", "fixed", "holds", "caught", "seed 2\nat 2s upgrade\n"),
		mk("a/two", "robust", "holds", "holds", ""),
		mk("a/three", "buggy", "caught", "caught", "seed 4\nat 3s upgrade\n"),
		mk("a/three", "fixed", "caught", "holds", ""),
	}
	var b bytes.Buffer
	printTable(&b, results, runSummary{Results: 8, AsExpected: 5, Unexpected: 3})
	out := b.String()
	for _, want := range []string{
		"none needed", "1 action + 2 faults",
		"Caught 6 bugs in 8 runs",
		"  buggy     3 caught in ", "  fixed     2 caught in ", "  robust    1 caught in ",
		"a/one robust: expected to hold, caught", "a/two fixed: expected to hold, caught",
		"a/three fixed: expected to be caught, held in 30 plans; explore further:\n    go run ./cmd/ctrlsim run --entry a/three --variant fixed --checks 300\n",
		"The replay commands of all 6: go run ./cmd/ctrlsim run --json",
		"(page: reports/a-one/README.md)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	var shown []string
	for _, x := range printedReplay.FindAllStringSubmatch(out, -1) {
		shown = append(shown, x[1]+" "+x[2])
	}
	if got, want := strings.Join(shown, ", "), "a/one buggy, a/one fixed, a/one robust, a/two fixed"; got != want {
		t.Errorf("replays shown: %s; want the first of each variant and the unexpected: %s\n%s", got, want, out)
	}
}

// A replay starts with the entry, what its variant is, the upstream fix and the
// first paragraph of the entry's summary, before the plan and the timeline.
func TestReplayStartsWithTheEntrySummary(t *testing.T) {
	for _, e := range scenarios.All() {
		if e.Upstream == "" && e.ID != "canary/stale-cache" {
			continue
		}
		v := string(e.Variants()[0])
		out, errs, code := ctrlsim(t, "replay", "--entry", e.ID, "--variant", v, "--plan-text", "seed 0", "--timeline")
		if code != 0 {
			t.Fatalf("replay %s %s: exit %d: %s", e.ID, v, code, errs)
		}
		head, _, ok := strings.Cut(out, "\nplan:\nseed 0\n")
		if !ok || !strings.Contains(out, "\ntimeline:\n") {
			t.Fatalf("replay %s %s: no plan then timeline:\n%s", e.ID, v, out)
		}
		if !strings.HasPrefix(head, fmt.Sprintf("entry %s, variant %s (", e.ID, v)) {
			t.Errorf("replay %s %s starts with %q", e.ID, v, strings.SplitN(head, "\n", 2)[0])
		}
		if e.Upstream != "" && !strings.Contains(head, "upstream fix: "+e.Upstream) {
			t.Errorf("replay %s %s does not name the upstream fix:\n%s", e.ID, v, head)
		}
		paragraphs := strings.Split(e.Summary, "\n\n")
		if want := strings.Join(strings.Fields(paragraphs[0]), " "); !strings.Contains(strings.Join(strings.Fields(head), " "), want) {
			t.Errorf("replay %s %s lacks the summary's first paragraph %q:\n%s", e.ID, v, want, head)
		}
		if len(paragraphs) > 1 && strings.Contains(strings.Join(strings.Fields(head), " "), strings.Join(strings.Fields(paragraphs[1]), " ")) {
			t.Errorf("replay %s %s prints the summary's second paragraph too:\n%s", e.ID, v, head)
		}
		for _, line := range strings.Split(head, "\n") {
			if len(line) > 100 && !strings.HasPrefix(line, "upstream fix: ") {
				t.Errorf("replay %s %s: a line of the introduction is %d characters long: %q", e.ID, v, len(line), line)
			}
		}
	}
}
