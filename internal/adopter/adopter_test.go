package adopter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/semver"
)

// operatorModule is the operator's module path (testdata/operator imports it).
const operatorModule = "github.com/example/site-operator"

func TestAnOperatorModuleAdoptsCtrlsim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests an operator module that depends on this checkout (go mod tidy may download): make test runs it")
	}
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(checkout, "go.mod")); err != nil {
		t.Fatalf("no checkout at %s: %v", checkout, err)
	}
	dir := t.TempDir()
	copyTree(t, "testdata/operator", dir)
	write(t, filepath.Join(dir, "go.mod"), operatorGoMod(checkout))
	seedGoSum(t, checkout, dir)

	// Where go tool ctrlsim keeps the command it builds: empty, so that the
	// first go tool ctrlsim builds it (on this machine's warm build cache,
	// a link; a new user's compiles everything).
	commands := t.TempDir()
	gocmd := func(args ...string) (string, error) {
		t.Helper()
		start := time.Now()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(adopterEnv(), "CTRLSIM_COMMAND_CACHE="+commands)
		out, err := cmd.CombinedOutput()
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(100*time.Millisecond))
		return string(out), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := gocmd(args...)
		if err != nil {
			t.Fatalf("go %s in the operator's module: %v\n%s", strings.Join(args, " "), err, tail(out, 60))
		}
		return out
	}

	must("mod", "tidy")
	tidied, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(tidied), "=>"); n != 1 {
		t.Errorf("the operator's go.mod has %d replace directives after go mod tidy, want 1 (ctrlsim's):\n%s", n, tidied)
	}
	// The operator builds with ctrlsim's versions, at the same versions
	// ctrlsim resolves.
	versions := must("list", "-m", "sigs.k8s.io/controller-runtime", "k8s.io/api", "k8s.io/client-go", "k8s.io/component-helpers", "k8s.io/kubernetes")
	for _, want := range []string{"sigs.k8s.io/controller-runtime v0.25.2", "k8s.io/api v0.37.2", "k8s.io/client-go v0.37.2", "k8s.io/component-helpers v0.37.2", "k8s.io/kubernetes v1.37.2"} {
		if !strings.Contains(versions, want+"\n") {
			t.Errorf("go list -m in the operator's module lacks %q:\n%s", want, versions)
		}
	}

	// go doc of the face, from the operator's module: a type's fields.
	if doc := must("doc", "github.com/ctrlsim/ctrlsim/operatortest.Workload"); !strings.Contains(doc, "Objects []client.Object") {
		t.Errorf("go doc operatortest.Workload in the operator's module does not show its fields:\n%s", doc)
	}

	scaffolded := filepath.Join(dir, "internal", "controller", "ctrlsim_test.go")
	out := must("tool", "ctrlsim", "scaffold")
	if !strings.Contains(out, "wrote internal/controller/ctrlsim_test.go (1 controllers and webhooks in 1 Manager(s), 2 scheme packages, 1 CRD files, 1 sample files)") {
		t.Errorf("ctrlsim scaffold printed %q", out)
	}
	saysItBuilt(t, out, commands)
	src, err := os.ReadFile(scaffolded)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"package controller_test", "utilruntime.Must(webv1.AddToScheme(scheme))",
		"(&controller.SiteReconciler{", `"../../config/samples/web_v1_site.yaml"`, `"../../config/crd/bases/*.yaml"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the scaffolded test lacks %q:\n%s", want, src)
		}
	}
	out, err = gocmd("tool", "ctrlsim", "scaffold")
	if err == nil || !strings.Contains(out, "exists (--force overwrites it)") {
		t.Errorf("ctrlsim scaffold over an existing test: %v, %q; want a refusal", err, out)
	}
	if strings.Contains(out, "ctrlsim: compiling") || strings.Contains(out, "ctrlsim: built") {
		t.Errorf("go tool ctrlsim, its command current, built it again:\n%s", out)
	}

	must("vet", "./...")
	out, err = gocmd("test", "-count=1", "-v", "./...")
	if err != nil {
		t.Fatalf("go test ./... in the operator's module: %v\n%s", err, tail(out, 120))
	}
	for _, want := range []string{
		"--- PASS: TestControllers",                   // the ginkgo suite
		"Ran 1 of 1 Specs",                            // ... and its spec ran
		"--- PASS: TestSiteHoldsUnderFaults",          // the correct operator holds
		"--- PASS: TestSiteTrustingItsConfigIsCaught", // the planted bug is caught (Expect)
		"--- PASS: TestOperatorUnderFaults",           // the scaffolded test, as written
	} {
		if !strings.Contains(out, want) {
			t.Errorf("go test ./... in the operator's module lacks %q:\n%s", want, tail(out, 120))
		}
	}
	// The correct operator explored its whole budget, with no violation.
	if !regexp.MustCompile(`operatortest: 30 plans explored \(seed \d+\) in \S+, no violation`).MatchString(section(out, "TestSiteHoldsUnderFaults")) {
		t.Errorf("TestSiteHoldsUnderFaults did not say it ran its 30 plans:\n%s", tail(section(out, "TestSiteHoldsUnderFaults"), 40))
	}
	// The buggy one was caught by converges, its minimal plan saved.
	caught := section(out, "TestSiteTrustingItsConfigIsCaught")
	if !regexp.MustCompile(`operatortest: converges[^:]*: violated after \d+ plans`).MatchString(caught) {
		t.Errorf("TestSiteTrustingItsConfigIsCaught does not name converges:\n%s", tail(caught, 60))
	}
	plan := filepath.Join(dir, "internal", "controller", "testdata", "ctrlsim", "TestSiteTrustingItsConfigIsCaught.plan")
	if _, err := os.Stat(plan); err != nil {
		t.Errorf("the caught bug's plan was not saved: %v", err)
	} else {
		replaysAtTheModuleRoot(t, dir, plan, caught)
	}
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "--- SKIP") {
			t.Errorf("a test of the operator's module skipped: %s", line)
		}
		if strings.Contains(l, "plans explored") || strings.Contains(l, ": violated after ") || strings.HasPrefix(l, "--- PASS") || strings.HasPrefix(l, "ok ") {
			t.Logf("the operator's module: %s", l)
		}
	}
}

// A new user's first hour: a module whose go.mod has the tool line and
// nothing of ctrlsim imported yet, go mod tidy, then go tool ctrlsim. The
// launcher imports none of the command's modules; tidy keeps them
// (cmd/ctrlsim/tidy.go), so the command builds in the module.
func TestAModuleWithTheToolLineAloneRunsTheTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctrlsim's command in a module that depends on this checkout: make test runs it")
	}
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), operatorGoMod(checkout))
	write(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n")
	seedGoSum(t, checkout, dir) // tidy drops the sums it does not need
	commands := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(adopterEnv(), "CTRLSIM_COMMAND_CACHE="+commands)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in a module with the tool line alone: %v\n%s", strings.Join(args, " "), err, tail(string(out), 30))
		}
		return string(out)
	}
	run("mod", "tidy")
	out := run("tool", "ctrlsim", "list")
	if !strings.Contains(out, "canary/stale-cache") || !strings.Contains(out, "ctrlsim: built the command in ") {
		t.Errorf("go tool ctrlsim list did not say it built the command and list the catalogue:\n%s", tail(out, 30))
	}
}

// go doc, from a new user's module: a module that requires ctrlsim and
// has the tool line, with one test importing operatortest, tidied. go doc
// lists every module of the module graph (go list -m all), so a module
// selected at a version no proxy serves makes it fail: k8s.io/kubernetes
// requires its staging modules at v0.0.0 (its own replace directives do
// not apply in a module that depends on it), and ctrlsim's go.mod requires
// them at their release, each of them, including those no package of
// ctrlsim's build comes from (internal/adopter/staging.go).
func TestGoDocWorksInAModuleThatRequiresCtrlsim(t *testing.T) {
	if testing.Short() {
		t.Skip("tidies a module that depends on this checkout (go mod tidy may download): make test runs it")
	}
	checkout, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), operatorGoMod(checkout))
	write(t, filepath.Join(dir, "ctrlsim_test.go"), "package operator\n\n"+
		"import (\n\t\"testing\"\n\n\t\"github.com/ctrlsim/ctrlsim/operatortest\"\n)\n\n"+
		"func TestOptions(t *testing.T) { _ = operatortest.Options{Checks: 1} }\n")
	seedGoSum(t, checkout, dir)
	run := func(args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = adopterEnv()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy in a module that requires ctrlsim: %v\n%s", err, tail(out, 30))
	}
	if out, err := run("list", "-m", "all"); err != nil {
		t.Errorf("go list -m all in a module that requires ctrlsim: %v\n%s", err, tail(out, 20))
	} else if v0 := regexp.MustCompile(`(?m)^k8s\.io/\S+ v0\.0\.0$`).FindAllString(out, -1); v0 != nil {
		t.Errorf("modules selected at v0.0.0 in a module that requires ctrlsim: %v", v0)
	}
	// The package's doc, and a type's with its fields.
	for _, c := range []struct{ name, want string }{
		{"github.com/ctrlsim/ctrlsim/operatortest", `(?m)^package operatortest // import "github\.com/ctrlsim/ctrlsim/operatortest"$`},
		{"github.com/ctrlsim/ctrlsim/operatortest.Options", `(?s)type Options\b.*\bChecks +int\b`},
	} {
		out, err := run("doc", c.name)
		if err != nil || !regexp.MustCompile(c.want).MatchString(out) {
			t.Errorf("go doc %s in a module that requires ctrlsim: %v, want %s\n%s", c.name, err, c.want, tail(out, 20))
		}
	}
}

// Every module that k8s.io/kubernetes requires at v0.0.0 (its staging
// modules, replaced by its own go.mod only) is required at the version
// ctrlsim's replace directive pins it to by ctrlsim's go.mod or a module of
// its graph, so that a module depending on ctrlsim selects that version
// too: ctrlsim's replace directives do not apply there either, and a module
// selected at v0.0.0, which no proxy serves, fails go doc and go list -m all.
func TestCtrlsimRequiresWhatKubernetesRequiresAtV000(t *testing.T) {
	checkout := filepath.Join("..", "..")
	gocmd := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = checkout
		cmd.Env = adopterEnv()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s in ctrlsim's checkout: %v%s", strings.Join(args, " "), err, stderrOf(err))
		}
		return out
	}
	// go test caches a result by the files the test opens, not those the
	// go command it runs does: the test opens go.mod too.
	if _, err := os.ReadFile(filepath.Join(checkout, "go.mod")); err != nil {
		t.Fatal(err)
	}
	var mod struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(gocmd("mod", "edit", "-json"), &mod); err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for _, r := range mod.Replace {
		pinned[r.Old.Path] = r.New.Version
	}
	// The edges of the graph, as required (before replacement): the
	// highest version each module is required at, and those k8s.io/kubernetes
	// requires at v0.0.0.
	highest, staging := map[string]string{}, []string{}
	for _, edge := range strings.Split(strings.TrimSpace(string(gocmd("mod", "graph"))), "\n") {
		from, to, _ := strings.Cut(edge, " ")
		path, version, _ := strings.Cut(to, "@")
		if strings.HasPrefix(from, "k8s.io/kubernetes@") && version == "v0.0.0" {
			staging = append(staging, path)
		}
		if version != "v0.0.0" && (highest[path] == "" || semver.Compare(highest[path], version) < 0) {
			highest[path] = version
		}
	}
	for _, path := range staging {
		switch want := pinned[path]; {
		case want == "":
			t.Errorf("k8s.io/kubernetes requires %s at v0.0.0 and ctrlsim's go.mod does not pin it with a replace directive", path)
		case highest[path] == "":
			t.Errorf("k8s.io/kubernetes requires %s at v0.0.0, and nothing else in ctrlsim's module graph requires it: a module that depends on ctrlsim selects v0.0.0, which no proxy serves, and go doc fails there (require it at %s in ctrlsim's go.mod, kept from go mod tidy by internal/adopter/staging.go)", path, want)
		case highest[path] != want:
			t.Errorf("k8s.io/kubernetes requires %s at v0.0.0, and ctrlsim's module graph requires it at %q at the highest, want %s (its replace's version): a module that depends on ctrlsim selects that", path, highest[path], want)
		}
	}
	if len(staging) == 0 {
		t.Errorf("go mod graph shows no module k8s.io/kubernetes requires at v0.0.0: this test checks nothing")
	}
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return "\n" + string(ee.Stderr)
	}
	return ""
}

// saysItBuilt checks what the first go tool ctrlsim said before the
// command's own output: that it built the command into commands, and in
// how long (when it compiled, where to and how far: the counts themselves
// are cmd/ctrlsim's tests, with a fake go command, since a cold compile
// takes many minutes).
func saysItBuilt(t *testing.T, out, commands string) {
	t.Helper()
	built := regexp.MustCompile(`(?m)^ctrlsim: built the command in \S+ \((\d+ packages? compiled|linked)\); running it$`).FindStringSubmatchIndex(out)
	if built == nil || !strings.Contains(out[built[1]:], "wrote internal/controller/ctrlsim_test.go") {
		t.Fatalf("the first go tool ctrlsim did not say it built the command before running it:\n%s", out)
	}
	compiled := strings.Contains(out[built[2]:built[3]], "compiled")
	if i := strings.Index(out, "ctrlsim: compiling the command into "+commands+string(filepath.Separator)); compiled && (i < 0 || i > built[0]) {
		t.Errorf("go tool ctrlsim compiled without first saying so and where:\n%s", out)
	}
	t.Logf("go tool ctrlsim said: %s", out[built[0]:built[1]])
}

// replaysAtTheModuleRoot checks the replay line a failure prints: the
// saved plan's `# replay:` comment is the line the failure printed,
// and pasted at the module's root, where the user ran `go test ./...`, it
// replays the same run: the same trace hash.
func replaysAtTheModuleRoot(t *testing.T, dir, plan, caught string) {
	t.Helper()
	saved, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^# replay: (go test .*)$`).FindStringSubmatch(string(saved))
	if m == nil {
		t.Fatalf("the saved plan has no replay line:\n%s", saved)
	}
	line := m[1]
	if !strings.HasPrefix(line, "go test "+operatorModule+"/internal/controller -run ") {
		t.Errorf("the replay line does not name the test's package: %s", line)
	}
	if !strings.Contains(caught, "replay: "+line+"\n") {
		t.Errorf("the failure did not print the saved plan's replay line %q:\n%s", line, tail(caught, 60))
	}
	hash := regexp.MustCompile(`timeline \(trace hash (\S+);`).FindStringSubmatch(caught)
	if hash == nil {
		t.Fatalf("the failure printed no trace hash:\n%s", tail(caught, 60))
	}
	start := time.Now()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = adopterEnv()
	out, err := cmd.CombinedOutput()
	t.Logf("%s, at the module's root: %v", line, time.Since(start).Round(100*time.Millisecond))
	if err != nil {
		t.Fatalf("the replay line, at the module's root: %v\n%s", err, tail(string(out), 60))
	}
	if !strings.Contains(string(out), "timeline (trace hash "+hash[1]+";") {
		t.Errorf("the replay line, at the module's root, does not give the trace hash %s:\n%s", hash[1], tail(string(out), 60))
	}
}

// operatorGoMod is the operator module's go.mod: it requires ctrlsim, with
// one replace directive to the checkout, and ctrlsim's command as a tool.
func operatorGoMod(checkout string) string {
	return "module " + operatorModule + "\n\ngo 1.26.0\n\n" +
		"require github.com/ctrlsim/ctrlsim v0.0.0\n\n" +
		"tool github.com/ctrlsim/ctrlsim/cmd/ctrlsim\n\n" +
		"// go get github.com/ctrlsim/ctrlsim@<version> once it is published.\n" +
		"replace github.com/ctrlsim/ctrlsim => " + checkout + "\n"
}

// seedGoSum writes the operator module's first go.sum into dir: a copy of
// the checkout's.
func seedGoSum(t *testing.T, checkout, dir string) {
	t.Helper()
	sum, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
}

// adopterEnv is the environment with GOWORK=off and GOFLAGS overridden: a
// go.work in a parent directory, or a user's -mod flag, must not change what
// the operator's module resolves. (An empty GOFLAGS would fall back to the
// go env file's, so it is set to a default instead.) GOCACHE and GOMODCACHE
// stay the environment's. CTRLSIM_ variables of this process are not passed
// on.
func adopterEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GOWORK" || k == "GOFLAGS" || strings.HasPrefix(k, "CTRLSIM_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOWORK=off", "GOFLAGS=-buildvcs=auto")
}

// section is go test -v's output from test's RUN line to the next RUN of
// another top-level test.
func section(out, test string) string {
	i := strings.Index(out, "=== RUN   "+test+"\n")
	if i < 0 {
		return ""
	}
	rest := out[i+len("=== RUN   "+test+"\n"):]
	if j := strings.Index(rest, "\n=== RUN   Test"); j >= 0 && !strings.HasPrefix(rest[j+len("\n=== RUN   "):], test+"/") {
		rest = rest[:j]
	}
	return rest
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = append([]string{"..."}, l[len(l)-lines:]...)
	}
	return strings.Join(l, "\n")
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), bytes.Clone(b), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
