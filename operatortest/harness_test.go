package operatortest

import (
	"errors"
	"flag"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/rundiff"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The harness's own rules (verdicts an author can trust): no silent pass, one known bug does not
// hide the others, a plan replays bit for bit, a violation that does not
// replay fails, and a known bug has a test of its own.

// Bad options are refused before anything runs, each with one line that
// names the field (and for Disable, the valid names).
func TestBadOptionsEachGiveOneErrorNamingTheField(t *testing.T) {
	for want, edit := range map[string]func(o *world.Options){
		`Options.Disable: unknown oracle "convergez" (valid: converges,`: func(o *world.Options) { o.Disable = []string{"convergez"} },
		"Options.Checks is negative (-3)":                                func(o *world.Options) { o.Checks = -3 },
		"Options.FaultPhase is negative":                                 func(o *world.Options) { o.FaultPhase = -time.Second },
		"Options.HealBudget is negative":                                 func(o *world.Options) { o.HealBudget = -time.Second },
		"Options.ShrinkRuns is negative":                                 func(o *world.Options) { o.ShrinkRuns = -1 },
		"Options.Managers[0] (op): Replicas is -2":                       func(o *world.Options) { o.Managers[0].Replicas = -2 },
		"Options.Managers[0] (op): Setup is nil":                         func(o *world.Options) { o.Managers[0].Setup = nil },
		"Options.Managers[0].Name is empty":                              func(o *world.Options) { o.Managers[0].Name = "" },
		`Options.Expect: unknown property "copid"`:                       func(o *world.Options) { o.Expect = "copid" },
		`Options.Expect: unknown property "copid"` + " ":                 func(o *world.Options) { o.Expect = "converges,copid" },
		`Options.Expect: an empty name in "converges,,hot-loop"`:         func(o *world.Options) { o.Expect = "converges,,hot-loop" },
		`Options.Expect: "*" among other names`:                          func(o *world.Options) { o.Expect = "converges,*" },
		"Options.KeepGoing with Options.Shard 1/2":                       func(o *world.Options) { o.KeepGoing, o.Shard = true, world.Shard{Index: 1, Count: 2} },
	} {
		o := optest.BugOptions(&optest.KnownBugs{}, false)
		edit(&o)
		_, err := search.Explore(t, o)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("want one line with %q, got %v", want, err)
		}
	}
	// Several bad fields are refused together, on one line, each named:
	// an author fixes them in one go.
	o := optest.BugOptions(&optest.KnownBugs{}, false)
	o.Checks, o.Expect, o.Managers[0].Replicas = -3, "copid", -2
	err := o.Validate()
	for _, want := range []string{"Options.Checks is negative (-3)", `Options.Expect: unknown property "copid"`, "Options.Managers[0] (op): Replicas is -2"} {
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("three bad fields: want one line with %q among them, got %v", want, err)
		}
	}
	// An operator with two known bugs names both, by commas.
	o = optest.BugOptions(&optest.KnownBugs{}, false)
	o.Expect = "converges, " + optest.Copied.Name
	if err := o.Validate(); err != nil || !slices.Equal(o.Expected(), []string{"converges", optest.Copied.Name}) {
		t.Errorf("Expect of two properties: %v, %q", err, o.Expected())
	}
	// Every verdict's name is valid: the kernel's and the test's own too.
	o = optest.BugOptions(&optest.KnownBugs{}, false)
	o.Disable = append(world.Oracles(), optest.Copied.Name)
	if err := o.Validate(); err != nil {
		t.Errorf("Disable of every verdict: %v", err)
	}
}

// A manager whose Setup returns an error, or panics, tests nothing: the
// exploration fails with the manager's name and the error, or the panic and
// its stack, and the test binary survives the panic. Disabling every oracle
// does not hide it.
func TestAManagerThatCannotStartFailsTheTest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(manager.Manager) error
		want  []string
	}{
		{"an error", func(manager.Manager) error { return errors.New("no such flag --metrics") },
			[]string{"manager op (process op) cannot start", "Setup failed", "no such flag --metrics"}},
		{"a panic", func(manager.Manager) error { var m map[string]int; m["x"] = 1; return nil },
			[]string{"manager op (process op) cannot start", "Setup panicked", "assignment to entry in nil map", "harness_test.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := optest.BugOptions(&optest.KnownBugs{}, false)
			o.Managers[0].Setup = tc.setup
			o.Disable = world.Oracles()
			_, err := search.Explore(t, o)
			if err == nil {
				t.Fatal("a manager that cannot start passed")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}

// Disable turns off every verdict, the kernel's included: a known panic
// disabled, the rest of the operator is still judged (and holds here).
func TestDisableCoversTheKernelsVerdicts(t *testing.T) {
	o := optest.BugOptions(&optest.KnownBugs{}, true)
	o.Checks = 3
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || !slices.ContainsFunc(res.Violations, func(v check.Verdict) bool { return v.Property == cluster.ReconcilePanicProperty }) {
		t.Fatalf("the panic is not caught: %+v", res.Violations)
	}
	if v := res.Violations[slices.IndexFunc(res.Violations, func(v check.Verdict) bool { return v.Property == cluster.ReconcilePanicProperty })]; !strings.Contains(v.Where, "KnownBugs).Reconcile (fixtures.go:") {
		t.Errorf("the panic's location is %q, want KnownBugs.Reconcile in optest's fixtures.go", v.Where)
	}
	o.Disable = []string{cluster.ReconcilePanicProperty, world.NoErrorAtRest}
	res, err = search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Fatalf("violated with the panic disabled: %+v", res.Violations)
	}
}

// One known bug does not hide the others: with KeepGoing the exploration
// goes on past the known panic (which every plan shows), finds the copy bug
// that only a crash between two writes shows, reports it beside the panic,
// each with a minimal plan of its own, and tells them apart by signature.
func TestASecondDistinctBugIsReportedBesideAKnownPanic(t *testing.T) {
	o := optest.BugOptions(&optest.KnownBugs{TwoWrites: true}, true)
	o.KeepGoing, o.Checks = true, 100
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	var sigs []string
	for _, f := range res.Findings {
		sigs = append(sigs, f.Signature)
		if f.Minimal == nil || f.Hash == "" || len(f.Violations) == 0 {
			t.Errorf("finding %s lacks its plan, hash or violations: %+v", f.Signature, f)
		}
	}
	hasPanic := slices.ContainsFunc(sigs, func(s string) bool { return strings.HasPrefix(s, "reconcile-panic @ ") })
	hasCopy := slices.ContainsFunc(sigs, func(s string) bool { return strings.HasPrefix(s, "copied Secret") })
	if !hasPanic || !hasCopy {
		t.Fatalf("signatures %q, want the panic and the copy bug", sigs)
	}
	if got := len(slices.Compact(slices.Sorted(slices.Values(sigs)))); got != len(sigs) {
		t.Errorf("a signature reported twice: %q", sigs)
	}
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Signature, "copied") && len(f.Minimal.Faults) == 0 {
			t.Errorf("the copy bug's minimal plan has no fault (a crash between the writes shows it):\n%s", f.Minimal)
		}
		t.Logf("%s: first at plan %d, minimal plan:\n%s", f.Signature, f.FirstFailure, f.Minimal)
	}
	t.Logf("%d plans; distinct violations: %q", res.Checks, sigs)

	// Without KeepGoing too: the panic, which the fault-free run shows, is
	// a finding with no fault at all and hides nothing; the first finding
	// that needs a fault (the copy bug) ends the search.
	o.KeepGoing = false
	res, err = search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Findings; len(f) < 2 || !f[0].NoFault || f[len(f)-1].NoFault || !strings.HasPrefix(f[len(f)-1].Signature, "copied Secret") || needsFault(f) != 1 {
		t.Errorf("without KeepGoing: findings %+v, want those with no fault (the panic) first, then the copy bug alone", res.Findings)
	}
}

// A plan whose reconcile panics replays to one trace hash, though
// controller-runtime logs the panic with a stack trace whose goroutine ids
// and addresses differ in every run: three fresh worlds, one hash.
func TestAPanickingPlanReplaysToOneHash(t *testing.T) {
	o := optest.BugOptions(&optest.KnownBugs{}, true)
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 7\nlag process=op kind=* min=0s max=20ms\ncrash process=op at=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	var stacks []string
	for range 3 {
		r, err := reference.Run(w, t, p)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, r.Hash)
		for _, s := range r.Steps {
			if s.Op == "log" && strings.Contains(s.Result, "goroutine ") {
				stacks = append(stacks, regexp.MustCompile(`goroutine [0-9]+`).FindString(s.Result))
				break
			}
		}
	}
	if len(stacks) != 3 {
		t.Fatalf("the runs logged no stack trace with the panic (%d of 3): the test shows nothing", len(stacks))
	}
	if hashes[0] != hashes[1] || hashes[1] != hashes[2] {
		t.Errorf("three replays of one plan, hashes %q (stacks logged from %q)", hashes, stacks)
	}
}

// An operator that builds a value by ranging over a Go map differs between
// two runs of one plan: the report says the operator itself is
// nondeterministic and names the first differing step, a write of its own.
func TestANondeterministicOperatorIsNamedAtItsFirstDifferingStep(t *testing.T) {
	o := optest.BugOptions(&optest.KnownBugs{Shuffled: true}, false)
	o.Properties = nil
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Seed: 3}
	a, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash == b.Hash {
		t.Fatal("two runs of a map-order operator agree: the test shows nothing")
	}
	got := rundiff.Steps(a.Steps, b.Steps, w.Space.Processes, false)
	for _, want := range []string{"the operator itself is nondeterministic", "process op wrote different content to Secret team/b-copy", "first differing step"} {
		if !strings.Contains(got, want) {
			t.Errorf("the diagnosis lacks %q:\n%s", want, got)
		}
	}
}

// A Property says when it saw the violation: the verdict is placed there.
func TestAPropertySaysWhenItWasViolated(t *testing.T) {
	o := optest.BugOptions(&optest.KnownBugs{}, false)
	firstCreate := func(steps []trace.Step) time.Duration {
		for _, s := range steps {
			if s.Op == "create" && s.Process == "op" {
				return s.At
			}
		}
		return -1
	}
	o.Properties = []world.Property{{Name: "early", Check: func(h *world.History) error {
		if at := firstCreate(h.Steps()); at >= 0 {
			return world.ViolatedAt(at, errors.New("created"))
		}
		return nil
	}}}
	got, steps := optest.JudgeVerdict(t, o, "seed 1\n", "early")
	if want := firstCreate(steps); got.Holds || got.At != want || want <= 0 || want >= o.FaultPhase {
		t.Errorf("verdict %+v, want violated at the operator's first create (%v)", got, want)
	}
	o.Properties[0].Check = func(*world.History) error { return errors.New("at the end") }
	if got, _ := optest.JudgeVerdict(t, o, "seed 1\n", "early"); got.At < o.FaultPhase+o.HealBudget {
		t.Errorf("a plain error is placed at the run's end, got %v", got.At)
	}
}

// Explore honours -ctrlsim.plan as Run does: it runs that plan only.
func TestExploreHonoursThePlanFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.plan")
	if err := os.WriteFile(path, []byte("seed 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", path); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	res, err := search.Explore(t, optest.BugOptions(&optest.KnownBugs{WrongCopy: true}, false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Checks != 1 || !res.Caught || res.Minimal.Seed != 5 || res.Violations[0].Property != "copied" {
		t.Errorf("want the one plan of the flag, violating copied: %+v", res)
	}
}

// Run's own behaviour (what it logs, what fails the test) is checked in a
// child process: the child test runs Run and may fail on purpose.

// runChild runs the test named child in a child process, in a fresh
// directory (its testdata/ctrlsim is there), and returns its output and
// whether it passed.
func runChild(t *testing.T, child string, args ...string) (string, bool, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	return runChildIn(t, t.TempDir(), child, args...)
}

// runChildIn is runChild in dir: a second run there is the test run again
// in the same checkout, its saved plans replayed first.
func runChildIn(t *testing.T, dir, child string, args ...string) (string, bool, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^" + child + "$", "-test.v", "-test.count=1", "-test.timeout=4m"}, args...)...)
	cmd.Env = append(os.Environ(), optest.ChildEnv+"="+child, "CTRLSIM_ARTIFACTS="+filepath.Join(dir, "artifacts")) // the story files, with the child's directory
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return string(out), err == nil, dir
}

func TestChildKeepGoing(t *testing.T) {
	optest.ChildOnly(t)
	o := optest.BugOptions(&optest.KnownBugs{WrongCopy: true}, true)
	o.KeepGoing = true
	search.Run(t, o)
}

// Run with KeepGoing reports what one fault-free run shows as one finding:
// the operator's wrong copy and its panic both show with no fault at all
// (plan 0), so they are one plan, saved once under the headline's name (the
// test's own property), the panic's signature printed under it, and counted
// once; neither is shrunk.
func TestKeepGoingSavesOnePlanForWhatAFaultFreeRunShows(t *testing.T) {
	out, passed, dir := runChild(t, "TestChildKeepGoing")
	if passed {
		t.Fatalf("two bugs, and the test passed:\n%s", out)
	}
	plans, _ := filepath.Glob(filepath.Join(dir, "testdata", "ctrlsim", "TestChildKeepGoing.*.plan"))
	var names []string
	for _, p := range plans {
		names = append(names, filepath.Base(p))
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], "TestChildKeepGoing.copied-Secret.") || !strings.HasSuffix(names[0], ".no-fault.plan") {
		t.Errorf("saved plans %q, want one, the fault-free run's, named for the copy bug", names)
	}
	for _, want := range []string{"kept going: 1 distinct violation over", "violated with no fault at all",
		"(the same fault-free run also violates reconcile-panic ", "-ctrlsim.plan=testdata/ctrlsim/TestChildKeepGoing.copied-Secret."} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

func TestChildExpect(t *testing.T) {
	optest.ChildOnly(t)
	o := optest.BugOptions(&optest.KnownBugs{}, os.Getenv("CTRLSIM_CHILD_BUG") != "")
	o.Expect = cluster.ReconcilePanicProperty
	search.Run(t, o)
}

// A known bug has a test: Expect passes when the named property is
// violated, with the report, saved plan and replay line in the log, and
// fails when the bug is no longer caught.
func TestAnExpectedViolationPassesAndAMissingOneFails(t *testing.T) {
	t.Setenv("CTRLSIM_CHILD_BUG", "1")
	out, passed, dir := runChild(t, "TestChildExpect")
	if !passed {
		t.Fatalf("the expected panic failed the test:\n%s", out)
	}
	// The panic shows with no fault at all (plan 0): it is saved as such,
	// not shrunk.
	for _, want := range []string{`as expected (Options.Expect "reconcile-panic")`, " -run '^TestChildExpect$' -ctrlsim.plan=testdata/ctrlsim/TestChildExpect.reconcile-panic.", "violated with no fault at all", "found in"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if saved, _ := filepath.Glob(filepath.Join(dir, "testdata", "ctrlsim", "TestChildExpect.reconcile-panic.*.no-fault.plan")); len(saved) != 1 {
		t.Errorf("the plan is not saved: %q", saved)
	}
	// Run again in the same checkout, the saved plan shows the known bug
	// and ends the test, as plan 0 did: nothing more is explored, where
	// another signature could fail a test that passed.
	out, passed, _ = runChildIn(t, dir, "TestChildExpect")
	if !passed || !strings.Contains(out, `as expected (Options.Expect "reconcile-panic")`) || strings.Contains(out, "plans explored") {
		t.Errorf("run again: passed=%v, want the saved plan alone to show the known bug\n%s", passed, out)
	}
	t.Setenv("CTRLSIM_CHILD_BUG", "")
	out, passed, _ = runChild(t, "TestChildExpect")
	if passed || !strings.Contains(out, "Options.Expect: a violation of reconcile-panic was expected, and 6 plans (seed 1) showed none") {
		t.Errorf("a fixed bug under Expect: passed=%v\n%s", passed, out)
	}
}

func TestChildSeed(t *testing.T) {
	optest.ChildOnly(t)
	o := optest.BugOptions(&optest.KnownBugs{}, false)
	o.Seed = 0
	search.Run(t, o)
}

// Run logs the seed it explored with: seed 0 is seed 1.
func TestRunLogsTheEffectiveSeed(t *testing.T) {
	out, passed, _ := runChild(t, "TestChildSeed")
	if !passed || !strings.Contains(out, "6 plans explored (seed 1)") {
		t.Errorf("passed=%v, want a log of 6 plans with seed 1:\n%s", passed, out)
	}
}

func TestChildNondeterministic(t *testing.T) {
	optest.ChildOnly(t)
	o := optest.BugOptions(&optest.KnownBugs{Shuffled: true}, false)
	o.Properties = nil
	search.Run(t, o)
}

// An operator whose own writes differ between two runs of one plan (a
// value built by ranging over a Go map) fails the test, never a pass: the
// runs of the preflight plan tell it before any finding, in one line that
// names the process, the object and the field, and the declaration that
// would judge its replays modulo it (determinism.go); a finding's replay
// that differs is judged the same way (report.go).
func TestAViolationThatDoesNotReplayFailsWithBothHashes(t *testing.T) {
	out, passed, _ := runChild(t, "TestChildNondeterministic")
	if passed {
		t.Fatalf("a nondeterministic operator passed:\n%s", out)
	}
	for _, want := range []string{
		"the writes by process op of Secret team/b-copy .data.value differ between two runs of one plan",
		"the operator itself is nondeterministic",
		`Options.Nondeterministic: []operatortest.NondeterministicField{{Kind: "Secret", Path: "data.value"}}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the failure lacks %q:\n%s", want, out)
		}
	}
}

// needsFault counts the findings of fs that need a fault.
func needsFault(fs []search.Finding) int {
	n := 0
	for _, f := range fs {
		if !f.NoFault {
			n++
		}
	}
	return n
}

func TestChildReplaysAHoldingPlan(t *testing.T) {
	optest.ChildOnly(t)
	search.Run(t, optest.BugOptions(&optest.KnownBugs{}, false))
}

// A plan replayed with -ctrlsim.plan that holds says so with its trace
// hash, and with -ctrlsim.timeline=full prints its run's whole timeline:
// the fault-free run an author wants to read, with no test written for it.
func TestAHoldingPlansReplayPrintsItsTimelineWhenAsked(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "holds.plan")
	if err := os.WriteFile(file, []byte("seed 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, passed, _ := runChild(t, "TestChildReplaysAHoldingPlan", "-ctrlsim.plan="+file, "-ctrlsim.timeline=full")
	if !passed {
		t.Fatalf("the holding plan's replay failed:\n%s", out)
	}
	for _, want := range []string{"holds (trace hash", "its timeline:", "reconcile"} {
		if !strings.Contains(out, want) {
			t.Errorf("the replay's output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runChild(t, "TestChildReplaysAHoldingPlan", "-ctrlsim.plan="+file)
	if strings.Contains(out, "its timeline:") {
		t.Errorf("without -ctrlsim.timeline=full the holding plan's replay prints its timeline:\n%s", out)
	}
}
