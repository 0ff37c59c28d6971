package failure_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// foldedSteps is a run as the report sees it: the built-in processes start
// their controllers, the operator reconciles, the garbage collector looks at
// the operator's object and at one the operator never touched.
var foldedSteps = []trace.Step{
	{Process: "admin", Op: "create", Object: "ConfigMap team/app", RVWritten: 5, Result: "ok"},
	{Process: "kube-controller-manager", Op: "start", Result: "incarnation 1"},
	{Process: "kube-controller-manager", Controller: "namespace", Op: "log", Result: "Starting Controller"},
	{Process: "kube-controller-manager", Controller: "namespace", Op: "log", Result: "Starting workers worker count=10"},
	{Process: "kubelet", Op: "start", Result: "incarnation 1"},
	{Process: "op", Op: "start", Result: "incarnation 1"},
	{Process: "op", Controller: "configmap", Op: "log", Result: "Starting Controller"},
	{Process: "op", Controller: "configmap", Worker: 1, Reconcile: 1, Op: "reconcile", Object: "team/app"},
	{At: time.Millisecond, Process: "op", Controller: "configmap", Worker: 1, Reconcile: 1, Op: "create", Object: "Secret team/app-config", RVWritten: 6, Result: "ok"},
	{At: time.Millisecond, Process: "op", Op: "crash", Result: "crash after write 1 (create)"},
	{At: 2 * time.Millisecond, Process: "kube-controller-manager", Controller: "garbagecollector-secret", Worker: 1, Reconcile: 1, Op: "reconcile", Object: "team/app-config"},
	{At: 2 * time.Millisecond, Process: "kube-controller-manager", Controller: "garbagecollector-secret", Worker: 1, Reconcile: 1, Op: "get", Object: "Secret team/app-config", RVSeen: 6, RVCurrent: 6, Result: "ok"},
	{At: 3 * time.Millisecond, Process: "kube-controller-manager", Controller: "garbagecollector-service", Worker: 1, Reconcile: 1, Op: "reconcile", Object: "team/other"},
	{At: 3 * time.Millisecond, Process: "kube-controller-manager", Controller: "garbagecollector-service", Worker: 1, Reconcile: 1, Op: "get", Object: "Service team/other", Result: "ok"},
	{At: time.Minute, Op: "heal"},
}

// A failure's timeline leads with the operator: the built-in processes'
// start-up lines and their steps on objects the operator never read or wrote
// are folded into one line per process, with counts; their steps on the
// operator's objects stay.
func TestTheTimelineFoldsTheBuiltinProcesses(t *testing.T) {
	got := strings.Join(failure.FoldTimeline(foldedSteps, []string{"op"}, false), "\n") + "\n"
	golden := filepath.Join("testdata", "folded-timeline.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("the folded timeline differs from %s (-update rewrites it):\n%s", golden, got)
	}
	for _, line := range []string{"kube-controller-manager: 3 start-up lines, 2 steps on other objects", "kubelet: 1 start-up line, 0 steps on other objects"} {
		if !strings.Contains(got, line) {
			t.Errorf("no %q in the folded timeline:\n%s", line, got)
		}
	}
	if strings.Contains(got, "Service team/other") || !strings.Contains(got, "Secret team/app-config rv=6") {
		t.Errorf("the collector's step on the operator's Secret must stay and its step on another object must fold:\n%s", got)
	}
	full := failure.FoldTimeline(foldedSteps, []string{"op"}, true)
	if len(full) != len(foldedSteps) {
		t.Errorf("the full timeline has %d lines for %d steps", len(full), len(foldedSteps))
	}
}

// Every fault a plan can hold is told as the real cluster's event it stands
// for.
func TestEachFaultSaysWhatARealClusterDidThere(t *testing.T) {
	for _, text := range []string{
		"crash process=op write=1", "crash process=op call=3", "crash process=op at=1s",
		"stale process=op at=1s age=2s", "stale process=op kind=/v1/Pod at=1s age=2s rev=9",
		"hold process=op kind=/v1/Secret from=1s until=2s",
		"lag process=op kind=* min=0s max=5ms", "api verb=update code=500 from=1s until=2s",
		"latency process=op min=1ms max=2ms", "workers controller=configmap n=2",
		"notready pod=1", "crashloop pod=1", "podfail pod=1", "nodelost node=node-1 at=1s",
	} {
		p, err := plan.Parse("seed 1\n" + text + "\n")
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got := failure.WhyReal(p, nil, nil)
		if len(got) != 1 || strings.Contains(got[0], "a fault of a real cluster") || !strings.Contains(got[0], "On a real cluster: ") {
			t.Errorf("%s: %q", text, got)
		}
	}
}

// A stale restart scoped to one kind says which kind's watch cache lagged
// while the others were current; one of every kind says what it always did.
func TestAStaleRestartOfOneKindSaysWhichWatchCacheLagged(t *testing.T) {
	p, err := plan.Parse("seed 1\nstale process=op kind=/v1/Pod at=1s age=2s rev=9\nstale process=op at=3s age=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	got := failure.WhyReal(p, nil, nil)
	if want := "a pod restarted onto a kube-apiserver whose watch cache of Pod lagged behind etcd while its other watch caches were current"; !strings.Contains(got[0], want) {
		t.Errorf("the scoped stale fault: %q, want it to say %q", got[0], want)
	}
	if strings.Contains(got[1], "watch cache of") {
		t.Errorf("the stale fault of every kind names a kind: %q", got[1])
	}
}

// A failure writes its story to the artifacts directory, under the
// package's path (the plan alone stays in testdata/ctrlsim), a picture with
// the operator's lanes first and an inspector, and a markdown report that
// reads on its own: the violation, why a real cluster can do it, the steps
// from the fault (this run's: the write it never made is the fault-free
// run's extra one), the plan and its replay command, and no path of
// this machine.
func TestAFailureWritesItsStoryToTheArtifactsDirectory(t *testing.T) {
	dir := t.TempDir()
	f := optest.FailingRun(t, dir)
	story := filepath.Join(dir, "operatortest", "failure")
	for _, want := range []string{"converges", "why a real cluster can do this:", "OOM-killed",
		"from the fault to the violation (the write that differs is the fault-free run's", "the violation, step by step (numbered as the picture numbers them):\n  ①", "kube-controller-manager: ", "start-up lines", "the story: " + filepath.Join(story, "TestX.svg"),
		"the story is in the artifacts directory " + story, "commit the plan " + filepath.Join(dir, "TestX.plan") + ", not the story"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("the report lacks %q:\n%s", want, f.Text)
		}
	}
	for _, ext := range []string{".svg", ".html", ".md"} {
		if failure.Exists(filepath.Join(dir, "TestX"+ext)) {
			t.Errorf("the story's %s is beside the plan", ext)
		}
	}
	if strings.Contains(f.Text, "Starting workers worker count=10") {
		t.Errorf("the built-in processes' start-up is not folded:\n%s", f.Text)
	}
	svg, err := os.ReadFile(f.Files.SVG)
	if err != nil {
		t.Fatal(err)
	}
	op, kcm := strings.Index(string(svg), ">in op<"), strings.Index(string(svg), ">in kube-controller-manager<")
	if op < 0 || kcm >= 0 && kcm < op {
		t.Errorf("the picture's first process lane is not the operator's (op at %d, kube-controller-manager at %d)", op, kcm)
	}
	if _, err := os.Stat(f.Files.HTML); err != nil {
		t.Error(err)
	}
	md, err := os.ReadFile(f.Files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# TestAFailureWritesItsStoryToTheArtifactsDirectory: converges violated", "## Why a real cluster can do this",
		"## From the fault to the violation", "crash process=op write=1", "-ctrlsim.plan=TestX.plan", "![the run", "(TestX.svg)",
		"## The operator's log lines", "Starting Controller"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the markdown report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), dir) {
		t.Errorf("the markdown report names a path of this machine (%s)", dir)
	}
	// The same run gives the same report.
	again := optest.FailingRun(t, t.TempDir())
	md2, err := os.ReadFile(again.Files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if string(md2) != string(md) {
		t.Errorf("two runs of one plan wrote two reports")
	}
}

// Where the story goes: -ctrlsim.artifacts, else $CTRLSIM_ARTIFACTS (the
// Makefile's ARTIFACTS, shared with the browser tests' screenshots), else a
// fresh temporary directory, which the failure names; each under the
// package's path in its module.
func TestTheStoryGoesWhereTheFlagOrTheEnvironmentSays(t *testing.T) {
	env := t.TempDir()
	t.Setenv("CTRLSIM_ARTIFACTS", env)
	f := optest.FailingRunIn(t, t.TempDir(), "")
	if want := filepath.Join(env, "operatortest", "failure", "TestX.md"); f.Files.Markdown != want || !failure.Exists(want) {
		t.Errorf("with CTRLSIM_ARTIFACTS the report is at %s, want %s", f.Files.Markdown, want)
	}
	t.Setenv("CTRLSIM_ARTIFACTS", "")
	f = optest.FailingRunIn(t, t.TempDir(), "")
	dir := filepath.Dir(filepath.Dir(filepath.Dir(f.Files.Markdown))) // artifacts/operatortest/failure/TestX.md
	if !strings.HasPrefix(filepath.Base(dir), "ctrlsim-artifacts-") || filepath.Dir(dir) != filepath.Clean(os.TempDir()) || !failure.Exists(f.Files.Markdown) {
		t.Errorf("by default the report is at %s, want a fresh ctrlsim-artifacts-* directory under %s", f.Files.Markdown, os.TempDir())
	}
	if !strings.Contains(f.Text, "the story is in the artifacts directory "+filepath.Join(dir, "operatortest", "failure")) {
		t.Errorf("the failure does not name the temporary directory %s:\n%s", dir, f.Text)
	}
	os.RemoveAll(dir)
}

// A package's path in its module names its story's directory.
func TestTheStoryDirectoryIsThePackagesPathInItsModule(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "internal", "controller")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	svg, html, md := failure.StoryFiles("/art", pkg, "testdata/ctrlsim/TestCronJob.plan")
	if svg != "/art/internal/controller/TestCronJob.svg" || html != "/art/internal/controller/TestCronJob.html" || md != "/art/internal/controller/TestCronJob.md" {
		t.Errorf("StoryFiles: %s %s %s", svg, html, md)
	}
	if svg, _, _ := failure.StoryFiles("/art", root, "TestX.plan"); svg != filepath.Join("/art", filepath.Base(root), "TestX.svg") {
		t.Errorf("the module's root package: %s", svg)
	}
}

// The markdown report's replay line is the one the failing test printed: the
// plan's path under testdata/ctrlsim, not a name the reader must save it by.
func TestTheMarkdownReportReplaysThePlanByThePathTheTestPrinted(t *testing.T) {
	path := filepath.Join("testdata", "ctrlsim", "TestX.plan")
	f := optest.FailingRunAt(t, path, t.TempDir())
	md, err := os.ReadFile(f.Files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	replay := failure.ReplayCommand(t.Name(), path)
	if !strings.Contains(f.Text, replay) || !strings.Contains(string(md), replay) {
		t.Errorf("the replay line %q is not both in the failure's text and in the markdown report:\n%s\n---\n%s", replay, f.Text, md)
	}
}

// Each fault's line says at what real scale the same order of events
// happens (a lag of milliseconds stands for any lag that puts a read before a
// change), and the workload's says how far apart a user's steps may be.
func TestWhyARealClusterCanDoThisSaysAtWhatRealScale(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 1s delete object=0\nat 1.2s recreate object=0\nlag process=op kind=* min=0s max=5ms\ncrash process=op write=1\n")
	if err != nil {
		t.Fatal(err)
	}
	got := failure.WhyReal(p, nil, nil)
	if len(got) != 3 {
		t.Fatalf("want a line for each fault and one for the workload: %q", got)
	}
	for i, want := range []string{"only the order matters", "a process dies between any two instructions", "two of the workload's steps came 200ms apart"} {
		if !strings.Contains(got[i], "At real scale: ") || !strings.Contains(got[i], want) {
			t.Errorf("line %d: %q, want it to say at what real scale (%q)", i, got[i], want)
		}
	}
}

// The replay line names the test's package by its import path (its module's
// path and the package's path in it), so that it runs pasted at the module's
// root, where `go test ./...` runs, as in the package's directory; the plan's
// path is the one the test binary reads, in the package's directory. Outside
// a module it names no package.
func TestTheReplayLineNamesThePackageByItsImportPath(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "internal", "controller")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("// the operator\nmodule \"example.com/op\" // its path\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "ctrlsim", "TestCronJob.plan")
	t.Chdir(pkg)
	if got, want := failure.ReplayCommand("TestCronJob/daily", path), "go test example.com/op/internal/controller -run '^TestCronJob$/^daily$' -ctrlsim.plan="+path+" -v"; got != want {
		t.Errorf("in a package of a module:\n got  %s\n want %s", got, want)
	}
	if got := failure.PlanHeader("TestCronJob", path); !strings.Contains(got, "# replay: go test example.com/op/internal/controller -run '^TestCronJob$'") {
		t.Errorf("the saved plan's header: %s", got)
	}
	t.Chdir(root)
	if got, want := failure.ReplayCommand("TestCronJob", path), "go test example.com/op -run '^TestCronJob$' -ctrlsim.plan="+path+" -v"; got != want {
		t.Errorf("in the module's root package:\n got  %s\n want %s", got, want)
	}
	if err := os.Remove(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if failure.ImportPath(root) != "" {
		t.Skipf("a go.mod above %s", root)
	}
	if got, want := failure.ReplayCommand("TestCronJob", path), "go test -run '^TestCronJob$' -ctrlsim.plan="+path+" -v"; got != want {
		t.Errorf("outside a module:\n got  %s\n want %s", got, want)
	}
}
