package patterns_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

var (
	flagPlans  = flag.Int("patterns.plans", 0, "plans per correct operator (0: 30, or 10 under -short; make falsealarms: 1000)")
	flagReport = flag.String("patterns.report", "", "write the suite's table (plans, false alarms, checks and seconds to catch each twin) to this file")
	flagOnly   = flag.String("patterns.only", "", "with -patterns.report: only these patterns (comma-separated names), their rows replaced in the report and the others kept")
)

// selected are the patterns -patterns.only names (every pattern without
// it), in the suite's order; a name that is no pattern fails the test.
func selected(t *testing.T) []pattern {
	t.Helper()
	if *flagOnly == "" {
		return patterns
	}
	names := strings.Split(*flagOnly, ",")
	for i, name := range names {
		names[i] = strings.TrimSpace(name)
		if !slices.ContainsFunc(patterns, func(p pattern) bool { return p.name == names[i] }) {
			t.Fatalf("-patterns.only: %q is no pattern of the suite", name)
		}
	}
	var out []pattern
	for _, p := range patterns {
		if slices.Contains(names, p.name) {
			out = append(out, p)
		}
	}
	return out
}

// pattern is one operator of the suite: its test's Options, correct or as
// its buggy twin.
type pattern struct {
	name string
	// what the correct operator does, and the twin's bug, for the report.
	does, bug string
	options   func(buggy bool) operatortest.Options
}

// knownFalseAlarms are the patterns whose correct operator the harness still
// reports, each with why (its verdicts are not to be trusted until this map is empty). The
// suite says so on every run, and fails when one of them no longer shows, so
// that it is taken off the list.
var knownFalseAlarms = map[string]string{}

// knownSlowTwins are the twins whose exploration does not end within the
// suite's bound, each with why; their correct operators are judged all the
// same. The suite fails nothing for them: each is a search bug of ours.
var knownSlowTwins = map[string]string{}

// knownSharedCatches are the twins whose minimal plan also violates a
// property on the correct operator (a false alarm the budget of
// TestCorrectOperatorsRaiseNoFalseAlarm does not reach), each with why.
var knownSharedCatches = map[string]string{}

// scheme has the built-in kinds and every pattern's custom resources.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme}, addToSchemes...) {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// shrinkRuns bounds the runs spent shrinking a violation: the budget only
// (a false alarm is reported all the same, its plan a little less minimal).
const shrinkRuns = 10

// plans is the budget for each correct operator.
func plans() int {
	switch {
	case *flagPlans > 0:
		return *flagPlans
	case testing.Short():
		return 10
	}
	return 30
}

// Each correct operator, with the default Options, raises no violation over
// the budget: every violation would be a false alarm.
func TestCorrectOperatorsRaiseNoFalseAlarm(t *testing.T) {
	for _, p := range patterns {
		t.Run(p.name, func(t *testing.T) {
			res, _ := correct(t, p, plans())
			if why, known := knownFalseAlarms[p.name]; known {
				if !res.Caught {
					t.Fatalf("the known false alarm of %s no longer shows in %d plans: take it off knownFalseAlarms (%s)", p.name, res.Checks, why)
				}
				t.Skipf("KNOWN FALSE ALARM, not fixed yet: %s (after %d plans: %s)", why, res.Checks, verdicts(res))
			}
			if res.Caught {
				t.Errorf("false alarm after %d plans: %s\nminimal plan:\n%s", res.Checks, verdicts(res), res.Minimal)
			}
		})
	}
}

// Each buggy twin is caught by the generic oracles, and the plan that
// catches it, run on the correct operator, holds: the twin is caught for its
// bug, not for a false alarm it shares with the correct operator.
func TestBuggyTwinsAreCaught(t *testing.T) {
	for _, p := range patterns {
		t.Run(p.name, func(t *testing.T) {
			res, _ := twin(t, p)
			if !res.Caught {
				t.Fatalf("the buggy twin (%s) was not caught in %d plans", p.bug, res.Checks)
			}
			t.Logf("caught after %d plans: %s\nminimal plan:\n%s", res.Checks, verdicts(res), res.Minimal)
			storyTold(t, p, res)
			if why, known := knownFalseAlarms[p.name]; known {
				t.Skipf("KNOWN FALSE ALARM of the correct operator, so the twin's catch cannot be told from it: %s", why)
			}
			if why, known := knownSharedCatches[p.name]; known {
				t.Skipf("KNOWN FALSE ALARM: the twin's minimal plan is not replayed on the correct operator, which it may also violate: %s", why)
			}
			replayOnCorrect(t, p, res)
		})
	}
}

// correct explores the correct operator of p over n plans.
func correct(t *testing.T, p pattern, n int) (operatortest.Result, time.Duration) {
	t.Helper()
	o := p.options(false)
	o.Checks, o.ShrinkRuns = n, shrinkRuns
	res, took := explore(t, o)
	if !res.Caught && res.Checks != n {
		t.Fatalf("explored %d plans, want %d", res.Checks, n)
	}
	return res, took
}

// twin explores the buggy twin of p (operatortest's default budget) until
// its first finding (twinOptions).
func twin(t *testing.T, p pattern) (operatortest.Result, time.Duration) {
	t.Helper()
	if why, known := knownSlowTwins[p.name]; known {
		t.Skipf("KNOWN SLOW TWIN, not explored: %s", why)
	}
	o := twinOptions(p)
	o.ShrinkRuns = shrinkRuns
	return explore(t, o)
}

// twinOptions are the twin's Options for a search that ends at its first
// finding: a twin has one bug, so Expect is AnyProperty. Without it a
// finding with no fault at all (plan 0's) does not end the search, which
// goes on over the whole budget for one that needs a fault: 527 s for the
// password twin, caught at plan 0, whose every run hot-loops to the bound
// (106 s with the search ending there). KeepGoing's test reports every
// finding of each twin.
func twinOptions(p pattern) operatortest.Options {
	o := p.options(true)
	o.Expect = operatortest.AnyProperty
	return o
}

func explore(t *testing.T, o operatortest.Options) (operatortest.Result, time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	return res, time.Since(start)
}

// replayOnCorrect runs the twin's minimal plan on the correct operator
// (operatortest.Run with -ctrlsim.plan), which fails the test if it violates
// anything.
func replayOnCorrect(t *testing.T, p pattern, res operatortest.Result) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "twin.plan")
	if err := os.WriteFile(file, []byte(res.Minimal.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	t.Run("minimal-plan-on-the-correct-operator", func(t *testing.T) { operatortest.Run(t, p.options(false)) })
}

// storyTold replays the twin's minimal plan and checks its picture: the
// violation's steps are numbered (①, ②, ... ⑩, (11), ... in time order), and include the
// crash when the plan has one, and a stale read when the operator made one of
// an object the verdict names (the causes a generic oracle's story must show).
func storyTold(t *testing.T, p pattern, res operatortest.Result) {
	t.Helper()
	r, err := operatortest.Replay(t, p.options(true), res.Minimal)
	if err != nil {
		t.Fatal(err)
	}
	if len(check.Violated(r.Verdicts)) == 0 {
		// A bug that ranges over a Go map (map-ports, config-checksum)
		// shows in the runs whose map order shows it.
		t.Logf("the minimal plan's replay held (its map order, not the plan's, decides): no picture to check")
		return
	}
	svgPath, _, err := r.WriteStory(filepath.Join(t.TempDir(), "twin.plan"), p.name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	var prev time.Duration
	for n, m := range regexp.MustCompile(`xml:space="preserve">([①-⑩]|\(\d+\)) +([^ ]+) ([^<]*)<`).FindAllStringSubmatch(string(b), -1) {
		if want := stepNumber(n + 1); m[1] != want {
			t.Errorf("the picture's step %d is numbered %s", n+1, m[1])
		}
		if at, err := time.ParseDuration(m[2]); err != nil || at < prev {
			t.Errorf("the picture's step %s at %s is out of time order (or unreadable: %v)", m[1], m[2], err)
		} else {
			prev = at
		}
		steps = append(steps, m[3])
	}
	text := strings.Join(steps, "\n")
	if len(steps) == 0 {
		t.Errorf("the picture of the twin's failure numbers no step (plan:\n%s)", res.Minimal)
	}
	for _, f := range res.Minimal.Faults {
		if f.Kind == plan.Crash && !strings.Contains(text, "crash: ") {
			t.Errorf("the plan crashes %s, but the picture's steps do not include the crash:\n%s", f.Process, text)
		}
	}
	var named []string
	for _, v := range r.Verdicts {
		if !v.Holds {
			named = append(named, v.Detail)
		}
	}
	// The picture is the run it blames: the suspect, when interleavings-agree
	// alone is violated and names a fault-free run of another seed
	// (operatortest/failure's suspect), else this one.
	pictured := r.Steps
	if v := check.Violated(r.Verdicts); len(v) == 1 && v[0].Property == "interleavings-agree" {
		if m := regexp.MustCompile(`the suspect is the fault-free run with seed (\d+)`).FindStringSubmatch(v[0].Detail); m != nil {
			seed, _ := strconv.ParseUint(m[1], 10, 64)
			if seed != res.Minimal.Seed {
				sp := *res.Minimal
				sp.Seed, sp.Faults = seed, nil
				sr, err := operatortest.Replay(t, p.options(true), &sp)
				if err != nil {
					t.Fatal(err)
				}
				pictured = sr.Steps
			}
		}
	}
	for _, st := range pictured {
		builtin := st.Process == "admin" || st.Process == world.KubeControllerManager || st.Process == "kubelet"
		if st.Stale() && !trace.IsList(st.Op) && !builtin && slices.ContainsFunc(named, func(d string) bool { return strings.Contains(d, st.Object+" ") || strings.HasSuffix(d, st.Object) }) {
			if !strings.Contains(text, "stale read of "+st.Object) {
				t.Errorf("the run read %s stale (%s), but the picture's steps do not include a stale read of it:\n%s", st.Object, st.String(), text)
			}
			break
		}
	}
	t.Logf("the picture's steps:\n%s", text)
}

// firstProperty names the first violated property of res.
func firstProperty(res operatortest.Result) string {
	if len(res.Violations) == 0 {
		return "-"
	}
	return res.Violations[0].Property
}

// verdicts lists res's violations, one "property: detail" each.
func verdicts(res operatortest.Result) string {
	var out []string
	for _, v := range res.Violations {
		out = append(out, fmt.Sprintf("%s: %s", v.Property, v.Detail))
	}
	return strings.Join(out, "; ")
}

// stepNumber is how the picture numbers its n-th step: ① to ⑩, then (11).
func stepNumber(n int) string {
	if n <= 10 {
		return string(rune('①' + n - 1))
	}
	return fmt.Sprintf("(%d)", n)
}
