package adopter

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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

	// go doc of the face, from the operator's module: a type's fields; or,
	// a known gap (doc.go), the module graph's k8s.io modules at v0.0.0.
	if doc, err := gocmd("doc", "github.com/ctrlsim/ctrlsim/operatortest.Workload"); err != nil {
		if !regexp.MustCompile(`k8s\.io/[a-z-]+@v0\.0\.0: reading `).MatchString(doc) {
			t.Errorf("go doc operatortest.Workload in the operator's module: %v\n%s", err, tail(doc, 20))
		}
		t.Logf("go doc fails in the operator's module (known gap): %s", strings.SplitN(doc, "\n", 2)[0])
	} else if !strings.Contains(doc, "Objects []client.Object") {
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
