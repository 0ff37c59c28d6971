package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// readmeCommand is one command of a fenced shell block (```sh) of the README
// or a page of docs/: its text (continuation lines joined, the trailing
// comment cut) and where it is.
type readmeCommand struct {
	text  string
	file  string // README.md or docs/<page>.md
	line  int    // of the file, 1-based, where the command starts
	block string // the block's first command, naming the block
}

// where is the command's file and line.
func (c readmeCommand) where() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

// readmeShellBlocks reads the ```sh blocks of a markdown file (rel, relative
// to the repository): each a list of commands.
func readmeShellBlocks(t *testing.T, path, rel string) [][]readmeCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks [][]readmeCommand
	var cur []readmeCommand
	in, pending, start := false, "", 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && (trimmed == "```sh" || trimmed == "```bash" || trimmed == "```shell"):
			in, cur = true, nil
			continue
		case in && trimmed == "```":
			in = false
			if len(cur) > 0 {
				for k := range cur {
					cur[k].block = cur[0].text
				}
				blocks = append(blocks, cur)
			}
			continue
		case !in:
			continue
		}
		text := strings.TrimSpace(cutComment(line))
		if pending == "" {
			start = n
		}
		if cont, ok := strings.CutSuffix(text, `\`); ok {
			pending += strings.TrimSpace(cont) + " "
			continue
		}
		text, pending = strings.TrimSpace(pending+text), ""
		if text != "" {
			cur = append(cur, readmeCommand{text: text, file: rel, line: start})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if in {
		t.Fatalf("%s: a ```sh block is not closed", path)
	}
	return blocks
}

// cutComment cuts a shell comment (a # that starts a word, outside quotes;
// in $'...' a backslash escapes the next character).
func cutComment(line string) string {
	var quote byte
	ansi := false
	for i := 0; i < len(line); i++ {
		b := line[i]
		switch {
		case quote != 0:
			if ansi && b == '\\' {
				i++
			} else if b == quote {
				quote, ansi = 0, false
			}
		case b == '\'' || b == '"':
			quote, ansi = b, b == '\'' && i > 0 && line[i-1] == '$'
		case b == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// A readmeRule says what the test does with the README's commands that match
// it: run them (cheaply), or not, and why. Every command of a ```sh block must
// match a rule, so that a command added to the README is run here or the rule
// that leaves it out says why.
type readmeRule struct {
	match *regexp.Regexp
	// why, when set, is why the command is not run here; covered names the
	// tests that run it instead (each must exist), or Makefile, the target
	// whose recipe runs it.
	why, covered string
	// slow commands are skipped under -short.
	slow bool
	// dir is where it runs: "work" (a scratch directory with the binary on
	// PATH as ctrlsim and reports/ linked) or "repo" (the repository).
	dir string
	// exit is the exit status wanted.
	exit int
	// want is what the output must contain.
	want []string
}

var readmeRules = []readmeRule{
	{match: regexp.MustCompile(`^make run$`), dir: "repo", slow: true,
		want: []string{"compiling ctrlsim", "Caught "}},
	{match: regexp.MustCompile(`^make (test|check)$`), covered: "Makefile",
		why: "it runs every test of the repository, this one included: the test checks the target exists (make -n)"},
	{match: regexp.MustCompile(`^ctrlsim list$`), dir: "work", want: []string{"canary/stale-cache"}},
	{match: regexp.MustCompile(`^ctrlsim run --entry 'canary/\*'$`), dir: "work", want: []string{"canary/stale-cache", "Caught "}},
	{match: regexp.MustCompile(`^ctrlsim run --json `), dir: "work", slow: true, want: []string{`"header"`, `"results"`}},
	{match: regexp.MustCompile(`^ctrlsim replay `), dir: "work", want: []string{"canary/stale-cache"}},
	{match: regexp.MustCompile(`^ctrlsim merge (--json )?shard-`), dir: "work", want: []string{"canary/stale-cache"}},
	{match: regexp.MustCompile(`^ctrlsim catalogue$`), covered: "Makefile",
		why: "it rewrites reports/ in the repository (make reports); make test runs its --check form"},
	{match: regexp.MustCompile(`^ctrlsim catalogue --check$`), covered: "Makefile",
		why: "it explores the whole catalogue at its budget (minutes): make test runs it as its last step"},
	{match: regexp.MustCompile(`^ctrlsim report PKG/testdata/ctrlsim/TestX\.plan$`), covered: "TestReportWritesTheMarkdownOfASavedPlan",
		why: "PKG and TestX stand for an operator test's saved plan: that test reports one of examples/twowrites"},
	{match: regexp.MustCompile(`^go (get|mod|work|tool) |^go test \./\.\.\.$`),
		why: "it is run in an operator's own module, not here: the adopter test (internal/adopter, in make test) builds such a module"},
	{match: regexp.MustCompile(`^CTRLSIM_CANARY=1 go test \./examples/canary -run TestAtMostOneChild$`), dir: "repo", slow: true, exit: 1,
		want: []string{"child Secrets, want at most 1"}},
}

// readmeBlockRules leave out a whole block: one whose commands need what the
// test does not have.
var readmeBlockRules = []readmeRule{
	{match: regexp.MustCompile(`^docker build `),
		covered: "TestDockerfileBuildsTheCommandWithTheModulesGoAsNonRoot TestTheExploreJobRunsEachShardOnce TestIndexedJobPodLogsMerge",
		why:     "it needs a container engine and a cluster: the Dockerfile, the manifest and merging pod logs are tested without"},
}

// asCommand set to 1 makes this test binary the command (TestMain).
const asCommand = "CTRLSIM_TEST_AS_COMMAND"

// TestMain runs the binary as the command when asCommand is set (what main
// does, with the test binary's flags of testing registered as main
// registers them), else the tests.
func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		_ = flag.CommandLine.Parse(nil)
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(400)
		}
		ctrllog.SetLogger(logr.Discard())
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Every command the README and the pages of docs/ give in a ```sh block
// works (each distinct command once): run as the README
// writes it (`go run ./cmd/ctrlsim` and `ctrlsim` both meaning the command,
// this test binary as it), at a small budget (--checks cut to 2, /tmp/ a scratch
// directory), each in the README's order within its block, so that a
// README edit that breaks a command, or a command change that breaks the
// README, fails here. A command that matches no rule fails the test: a new
// command is run here or its rule says why not. A run without --checks runs
// 30 plans a pair, and a run of the whole catalogue runs on the canary's
// entries (--entry 'canary/*'): make test's catalogue check explores the
// whole at its budget. Under -short the slow ones (make run's compile, the
// --json run, the canary's go test) are skipped with one line each.
func TestEveryCommandOfTheREADMEWorks(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]readmeCommand
	for _, file := range docFiles(t, repo) {
		rel, _ := filepath.Rel(repo, file)
		blocks = append(blocks, readmeShellBlocks(t, file, rel)...)
	}
	if len(blocks) < 3 {
		t.Fatalf("README.md and docs/*.md: %d ```sh blocks, want the set-up, the command and more", len(blocks))
	}
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// The shards that the command's block merges (shard-*.json) before the
	// Scale-out block writes its own: the canary's, in two.
	shards := func() {
		for i := 1; i <= 2; i++ {
			out, err := exec.Command(filepath.Join(bin, "ctrlsim"), "run", "--json", "--checks", "30", "--entry", "canary/*",
				"--shard", fmt.Sprintf("%d/2", i)).Output()
			if err != nil {
				t.Fatalf("the canary's shard %d of 2: %v", i, err)
			}
			if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("shard-%d.json", i)), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The command is this test binary run as ctrlsim (TestMain): nothing to
	// build or link; make run, which builds the command itself, is run too.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", asCommand, self)
	if err := os.WriteFile(filepath.Join(bin, "ctrlsim"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	shards()
	if err := os.Symlink(filepath.Join(repo, "reports"), filepath.Join(work, "reports")); err != nil {
		t.Fatal(err)
	}
	ran := 0
	seen := map[string]bool{}
	for _, block := range blocks {
		if r := matchRule(readmeBlockRules, block[0].text); r != nil {
			checkCovered(t, repo, r, block[0])
			t.Logf("%s: not run: the block of %q: %s (%s)", block[0].where(), block[0].block, r.why, r.covered)
			continue
		}
		cheap := false // a command of the block ran at a cut budget
		for _, c := range block {
			for _, text := range optionalForms(readmeForm(c.text)) {
				r := matchRule(readmeRules, text)
				if r == nil {
					t.Errorf("%s: %q matches no rule of readmeRules (readme_test.go): run it there or say why not", c.where(), c.text)
					continue
				}
				if r.why != "" {
					checkCovered(t, repo, r, c)
					t.Logf("%s: not run: %q: %s", c.where(), text, r.why)
					continue
				}
				if seen[text] {
					t.Logf("%s: run once already: %q", c.where(), text)
					continue
				}
				seen[text] = true
				if r.slow && testing.Short() {
					t.Logf("%s: skipped under -short (slow): %q", c.where(), text)
					continue
				}
				runReadmeCommand(t, c, text, r, repo, work, bin, &cheap)
				ran++
			}
		}
	}
	if ran < 4 {
		t.Errorf("%d of the docs' commands ran, want at least the four cheap ones of the command's block", ran)
	}
}

// readmeForm is the command as the test runs it: `go run ./cmd/ctrlsim` is
// the built command, ctrlsim.
func readmeForm(text string) string {
	if rest, ok := strings.CutPrefix(text, "go run ./cmd/ctrlsim "); ok {
		return "ctrlsim " + rest
	}
	return text
}

// optionalForms expands one optional argument written [--flag] into the
// command without it and with it.
var optionalArg = regexp.MustCompile(` \[(--[a-z-]+)\]`)

func optionalForms(text string) []string {
	if m := optionalArg.FindStringSubmatchIndex(text); m != nil {
		return []string{text[:m[0]] + text[m[1]:], text[:m[0]] + " " + text[m[2]:m[3]] + text[m[1]:]}
	}
	return []string{text}
}

func matchRule(rules []readmeRule, text string) *readmeRule {
	for k := range rules {
		if rules[k].match.MatchString(text) {
			return &rules[k]
		}
	}
	return nil
}

// checkCovered holds a rule that leaves a command out to its word: the test
// it names exists, or the Makefile target it names runs the command.
func checkCovered(t *testing.T, repo string, r *readmeRule, c readmeCommand) {
	t.Helper()
	switch {
	case r.covered == "Makefile":
		target := strings.Fields(strings.TrimPrefix(c.text, "make "))[0]
		if strings.HasPrefix(c.text, "go run ./cmd/ctrlsim catalogue") {
			target = "test"
		}
		out, err := exec.Command("make", "-C", repo, "-n", target).CombinedOutput()
		if err != nil {
			t.Errorf("%s: make -n %s: %v\n%s", c.where(), target, err, out)
		} else if strings.Contains(c.text, "catalogue") && !strings.Contains(string(out), "catalogue --check") {
			t.Errorf("%s: %q is left to make %s, whose recipe does not run it:\n%s", c.where(), c.text, target, out)
		}
	case r.covered != "":
		for _, name := range strings.Fields(r.covered) {
			if !testExists(t, repo, name) {
				t.Errorf("%s: %q is left to %s, which no test file defines", c.where(), c.text, name)
			}
		}
	}
}

// testExists reports whether a _test.go file of the repository defines the test.
func testExists(t *testing.T, repo, name string) bool {
	t.Helper()
	found := false
	_ = filepath.WalkDir(repo, func(path string, d os.DirEntry, err error) error {
		if found {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "reports" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err == nil && strings.Contains(string(b), "func "+name+"(") {
				found = true
			}
		}
		return nil
	})
	return found
}

var checksArg = regexp.MustCompile(`--checks (\d+)`)

// runReadmeCommand runs one command with bash and checks its exit status and
// output.
//
// cheap is set once a command of the block ran at a cut budget: from then on
// exit 1 (an outcome the cut budget did not reach, which merge reports too)
// is a result, not a failure.
func runReadmeCommand(t *testing.T, c readmeCommand, text string, r *readmeRule, repo, work, bin string, cheap *bool) {
	t.Helper()
	text = checksArg.ReplaceAllStringFunc(text, func(s string) string {
		if n, _ := strconv.Atoi(checksArg.FindStringSubmatch(s)[1]); n > 2 {
			*cheap = true
			return "--checks 2"
		}
		return s
	})
	if strings.HasPrefix(text, "ctrlsim run ") && !strings.Contains(text, "--entry") {
		// The whole catalogue's run: its commands, flags and output on the
		// canary's entries alone (the catalogue check explores the whole;
		// TestShardsPartitionTheRun shards it).
		text = strings.Replace(text, "ctrlsim run ", "ctrlsim run --entry 'canary/*' ", 1)
		*cheap = true
	}
	if strings.HasPrefix(text, "ctrlsim run ") && !checksArg.MatchString(text) {
		text += " --checks 30" // the canary's buggy variant is caught at plan 13, the first workload's seventh targeted plan (reports/canary-stale-cache)
		*cheap = true
	}
	text = strings.ReplaceAll(text, " /tmp/", " "+work+"/")
	if text == "make run" {
		// Its cheap form: the canary's entries, the command built outside the repository.
		text = fmt.Sprintf("make run BIN=%s RUN_FLAGS=\"--entry 'canary/*' --checks 30\"", filepath.Join(work, "make-bin"))
	}
	dir := work
	if r.dir == "repo" {
		dir = repo
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", text)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	t.Logf("%s: %q: exit %d in %.1fs", c.where(), text, code, time.Since(start).Seconds())
	if code != r.exit && !(*cheap && code == 1) {
		t.Errorf("%s: %q: exit %d (%v), want %d; output:\n%s", c.where(), text, code, err, r.exit, tail(string(out), 40))
		return
	}
	for _, w := range r.want {
		if !strings.Contains(string(out), w) && !(strings.Contains(text, ">") && fileContains(work, text, w)) {
			t.Errorf("%s: %q: the output lacks %q:\n%s", c.where(), text, w, tail(string(out), 40))
		}
	}
}

// fileContains reports whether the file a command redirected its output to
// (> FILE) contains w.
func fileContains(work, text, w string) bool {
	_, file, ok := strings.Cut(text, ">")
	if !ok {
		return false
	}
	b, err := os.ReadFile(filepath.Join(work, strings.TrimSpace(file)))
	return err == nil && strings.Contains(string(b), w)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
