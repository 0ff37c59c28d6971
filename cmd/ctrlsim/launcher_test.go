package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeGo is a go command for the launcher's tests: go env says a module,
// go list names 250 packages, and go build -v names 250 packages compiled
// (the first before go list is asked, the rest once the launcher knows the
// go list has answered, or with FAKE_COUNTED once the launcher in the
// test's process has the count: countedBeforeMore), then writes a command that prints its arguments and
// exits 3; a build whose binary exists names none and writes nothing. A
// module named "broken" fails to build, with the compiler's lines.
//
// It writes the binary as the go command does (cmd/go's CopyFile): it
// removes the file, creates it executable and writes it, open the while.
// With FAKE_RACE set, two builds meet in the middle of that: the first
// build waits for a second go env (a second launcher started), writes the
// first line of the binary and, the file open, waits up to 2 seconds for a
// second build to find the binary current, then a second more; a second
// build waits for that first line before it looks at its binary.
const fakeGo = `#!/bin/sh
dir=$(dirname "$0")
waitfor() { n=0; while ! eval "$1" && [ $n -lt $2 ]; do sleep 0.01; n=$((n+1)); done; eval "$1"; }
case "$1" in
env) echo >> "$dir/envs"; printf '%s\n' "$FAKE_GOMOD" "" go1.26.0 linux amd64 0 "" ;;
list) i=0; while [ $i -lt 250 ]; do echo "example.com/p$i"; i=$((i+1)); done; if [ -z "$FAKE_COUNTED" ]; then touch "$dir/listed"; fi ;;
build)
	bin=$4
	if [ "$FAKE_GOMOD" = broken ]; then
		echo "example.com/p0" >&2
		echo "# example.com/p1" >&2
		echo "p1/a.go:3:1: syntax error" >&2
		exit 1
	fi
	first=
	if [ -n "$FAKE_RACE" ]; then
		if mkdir "$dir/first" 2>/dev/null; then
			first=1; waitfor '[ $(wc -l < "$dir/envs") -ge 2 ]' 1000
		else
			waitfor '[ -e "$dir/halfway" ]' 1000
		fi
	fi
	[ -e "$bin" ] && { touch "$dir/current"; exit 0; }
	echo "go: downloading example.com/x v1.0.0" >&2
	echo "example.com/p0" >&2
	while [ ! -e "$dir/listed" ]; do sleep 0.01; done
	i=1; while [ $i -lt 250 ]; do echo "example.com/p$i" >&2; i=$((i+1)); done
	rm -f "$bin"; : > "$bin"; chmod +x "$bin"
	{
		printf '#!/bin/sh\n'
		if [ -n "$first" ]; then
			touch "$dir/halfway"
			waitfor '[ -e "$dir/current" ]' 200 && sleep 1
		fi
		printf 'echo "ran $*"\nexit 3\n'
	} > "$bin" ;;
esac
`

func writeFakeGo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gocmd := filepath.Join(dir, "go")
	if err := os.WriteFile(gocmd, []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	return gocmd
}

// countedBeforeMore makes the fake go command (gocmd) compile its
// packages after the first only once the launcher in the test's process
// has the count, not once go list has ended: under load the launcher read
// 99 more packages before it had the count ("100 packages compiled", not
// "100 of at most 250").
func countedBeforeMore(t *testing.T, gocmd string) {
	t.Setenv("FAKE_COUNTED", "1")
	old := totalKnown
	totalKnown = func() {
		if err := os.WriteFile(filepath.Join(filepath.Dir(gocmd), "listed"), nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { totalKnown = old })
}

// The first build says it compiles, where, and how far it is every 100
// packages of the count go list gave; other lines of the go command pass
// through; the last line says it is done. The same build again, its
// binary current, says nothing.
func TestTheLauncherSaysWhatItCompilesAndHowFar(t *testing.T) {
	gocmd, cache := writeFakeGo(t), t.TempDir()
	countedBeforeMore(t, gocmd)
	t.Setenv("FAKE_GOMOD", "/m/go.mod")
	var out bytes.Buffer
	bin, err := build(&out, gocmd, cache)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out.String())
	}
	if filepath.Dir(filepath.Dir(bin)) != cache || filepath.Base(bin) != "ctrlsim" {
		t.Errorf("the command was built into %s, want %s/KEY/ctrlsim", bin, cache)
	}
	want := []string{
		`ctrlsim: compiling the command into ` + regexp.QuoteMeta(bin) + ` \(on a cold build cache this takes minutes: it compiles kube-apiserver's code; a line every 100 packages\)`,
		`go: downloading example.com/x v1.0.0`,
		`ctrlsim: 100 of at most 250 packages compiled \(\d+s\)`,
		`ctrlsim: 200 of at most 250 packages compiled \(\d+s\)`,
		`ctrlsim: built the command in \d+s \(250 packages compiled\); running it`,
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("the build said:\n%s", out.String())
	}
	// The download line comes before the first package: the first line the
	// launcher says is the compile's.
	lines[0], lines[1] = lines[1], lines[0]
	if len(lines) != len(want) {
		t.Fatalf("the build said %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		if !regexp.MustCompile("^" + w + "$").MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i+1, lines[i], w)
		}
	}

	out.Reset()
	again, err := build(&out, gocmd, cache)
	if err != nil || again != bin || out.Len() != 0 {
		t.Errorf("the same build again: %s, %v, said %q; want %s, quietly", again, err, out.String(), bin)
	}
}

// Another module (or Go version, GOFLAGS...) gets a binary of its own.
func TestEachModuleHasItsOwnCommand(t *testing.T) {
	gocmd, cache := writeFakeGo(t), t.TempDir()
	t.Setenv("FAKE_GOMOD", "/a/go.mod")
	a, err := build(new(bytes.Buffer), gocmd, cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_GOMOD", "/b/go.mod")
	var out bytes.Buffer
	b, err := build(&out, gocmd, cache)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || !strings.Contains(out.String(), "compiling the command") {
		t.Errorf("modules a and b: %s and %s (b said %q); want two binaries, b compiled", a, b, out.String())
	}
}

// A build that fails passes the compiler's lines through and ends with one
// line saying the command did not build.
func TestABuildThatFailsSaysSo(t *testing.T) {
	gocmd := writeFakeGo(t)
	t.Setenv("FAKE_GOMOD", "broken")
	var out bytes.Buffer
	_, err := build(&out, gocmd, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "go build "+command+" failed (exit status 1): the command did not build") {
		t.Errorf("build: %v; want it to say the command did not build", err)
	}
	for _, want := range []string{"# example.com/p1\n", "p1/a.go:3:1: syntax error\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the compiler's line %q was not passed through:\n%s", want, out.String())
		}
	}
}

// Outside a module the launcher says where to run it.
func TestOutsideAModuleTheLauncherSaysWhereToRunIt(t *testing.T) {
	gocmd := writeFakeGo(t)
	t.Setenv("FAKE_GOMOD", os.DevNull)
	_, err := build(new(bytes.Buffer), gocmd, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not in a Go module: run it as `go tool ctrlsim`") {
		t.Errorf("build outside a module: %v", err)
	}
}

// A line of go build -v is a package when it is an import path.
func TestWhichLinesArePackages(t *testing.T) {
	for l, want := range map[string]bool{
		"internal/goarch":                      true,
		"k8s.io/apiserver/pkg/server":          true,
		"github.com/ctrlsim/ctrlsim/sim/check": true,
		"# k8s.io/api/core/v1":                 false,
		"go: downloading k8s.io/api v0.37.2":   false,
		"sim/check/a.go:3:1: syntax error":     false,
		"":                                     false,
	} {
		if got := isImportPath(l); got != want {
			t.Errorf("isImportPath(%q) = %v, want %v", l, got, want)
		}
	}
}

// Between two hundreds of packages, a line every 20 seconds: a slow
// machine is never silent for long.
func TestALineEveryTwentySecondsOfCompiling(t *testing.T) {
	start := time.Unix(0, 0)
	now := start
	var out bytes.Buffer
	p := &progress{w: &out, bin: "BIN", start: start, now: func() time.Time { return now }, total: 1500}
	p.line("p0")
	for i := 1; i < 50; i++ {
		now = now.Add(time.Second)
		p.line("p")
	}
	want := "ctrlsim: compiling the command into BIN (on a cold build cache this takes minutes: it compiles kube-apiserver's code; a line every 100 packages)\n" +
		"ctrlsim: 21 of at most 1500 packages compiled (20s)\n" +
		"ctrlsim: 41 of at most 1500 packages compiled (40s)\n"
	if out.String() != want {
		t.Errorf("50 packages in 49 seconds said:\n%s\nwant:\n%s", out.String(), want)
	}
}

// The launcher, built and run as go tool runs it (its go command the fake,
// first on PATH): it builds the command and runs it in its place with the
// same arguments, and exits with its code.
func TestTheLauncherRunsTheCommandWithItsArguments(t *testing.T) {
	launcher := filepath.Join(t.TempDir(), "ctrlsim")
	if out, err := exec.Command("go", "build", "-o", launcher, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	gocmd := writeFakeGo(t)
	cmd := exec.Command(launcher, "scaffold", "--dir", "x y")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(gocmd)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FAKE_GOMOD=/m/go.mod", "CTRLSIM_COMMAND_CACHE="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("the launcher exited with %v, want the command's exit status 3\n%s", err, stderr.String())
	}
	if stdout.String() != "ran scaffold --dir x y\n" {
		t.Errorf("the command printed %q, want its arguments", stdout.String())
	}
	if !strings.Contains(stderr.String(), "ctrlsim: compiling the command into ") {
		t.Errorf("the launcher did not say it compiles:\n%s", stderr.String())
	}
}

// A build that is quiet for its first seconds (a cold build cache: the go
// command names no package compiled for about 20 seconds) gets a line
// saying it is at work; its first package compiled still says it compiles.
func TestAQuietStartSaysTheBuildIsAtWork(t *testing.T) {
	var out bytes.Buffer
	p := &progress{w: &out, bin: "BIN", start: time.Unix(0, 0), now: func() time.Time { return time.Unix(3, 0) }}
	p.waiting()
	p.line("internal/goarch")
	p.waiting()
	want := "ctrlsim: building the command into BIN (the go command is finding what to compile, or checking the binary is current, or linking it)\n" +
		"ctrlsim: compiling the command into BIN (on a cold build cache this takes minutes: it compiles kube-apiserver's code; a line every 100 packages)\n"
	if out.String() != want {
		t.Errorf("a quiet start, then a package compiled, said:\n%s\nwant:\n%s", out.String(), want)
	}
}

// Two launchers started at once on an empty cache, as make test's
// catalogue step beside a user's run or two CI jobs sharing a cache: both
// run the command, which is compiled once. The fake go command writes the
// binary as the go command does, in place, and makes the two meet in the
// middle of that write (FAKE_RACE): a launcher that took the half-written
// binary for current would run it (and fail: "text file busy", or a
// script without its last lines).
func TestTwoLaunchersAtOnceBothRunTheCommand(t *testing.T) {
	launcher := filepath.Join(t.TempDir(), "ctrlsim")
	if out, err := exec.Command("go", "build", "-o", launcher, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	gocmd, cache := writeFakeGo(t), t.TempDir()
	type run struct {
		stdout, stderr bytes.Buffer
		err            error
	}
	runs := make([]*run, 2)
	done := make(chan int)
	for i := range runs {
		r := &run{}
		runs[i] = r
		cmd := exec.Command(launcher, "scaffold", fmt.Sprint(i))
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(gocmd)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"FAKE_GOMOD=/m/go.mod", "FAKE_RACE=1", "CTRLSIM_COMMAND_CACHE="+cache)
		cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
		go func() { r.err = cmd.Run(); done <- i }()
	}
	<-done
	<-done
	compiled, waited := 0, 0
	for i, r := range runs {
		var ee *exec.ExitError
		if !errors.As(r.err, &ee) || ee.ExitCode() != 3 || r.stdout.String() != fmt.Sprintf("ran scaffold %d\n", i) {
			t.Errorf("launcher %d: exited with %v, printed %q; want the command's exit status 3 and its arguments\n%s", i, r.err, r.stdout.String(), r.stderr.String())
		}
		if strings.Contains(r.stderr.String(), "ctrlsim: compiling the command into ") {
			compiled++
		}
		if regexp.MustCompile(`(?m)^ctrlsim: waiting for another ctrlsim to finish building the command into \S+ \(it holds \S+/lock\)\n` +
			`ctrlsim: the command is current \(another ctrlsim built it; waited \d+s\); running it$`).MatchString(r.stderr.String()) {
			waited++
		}
	}
	if compiled != 1 || waited != 1 {
		t.Errorf("%d launchers compiled and %d waited for the other, want one of each:\n%s\n%s", compiled, waited, runs[0].stderr.String(), runs[1].stderr.String())
	}
	left, err := filepath.Glob(filepath.Join(cache, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if b := filepath.Base(f); b != "ctrlsim" && b != "lock" {
			t.Errorf("the launchers left %s behind", f)
		}
	}
}

// With the real go command, on a module of one small package at the
// command's import path: the binary is built beside its place and renamed
// into it; a current binary, handed to the go command as a hard link, is
// found current (nothing said, nothing written); an edit rebuilds it.
func TestTheGoCommandFindsTheLinkedBinaryCurrent(t *testing.T) {
	mod := t.TempDir()
	src := filepath.Join(mod, "cmd", "ctrlsim", "internal", "ctrlsim", "main.go")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, src := range map[string]string{
		filepath.Join(mod, "go.mod"): "module " + module + "\n\ngo 1.26.0\n",
		src:                          "package main\n\nfunc main() {}\n",
	} {
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(mod)
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-buildvcs=false")
	cache := t.TempDir()
	rebuild := func() (os.FileInfo, string) {
		t.Helper()
		var out bytes.Buffer
		bin, err := build(&out, "go", cache)
		if err != nil {
			t.Fatalf("build: %v\n%s", err, out.String())
		}
		fi, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		return fi, out.String()
	}
	first, said := rebuild()
	if !strings.Contains(said, "ctrlsim: built the command in ") {
		t.Errorf("the first build said %q", said)
	}
	again, said := rebuild()
	if said != "" || !os.SameFile(first, again) {
		t.Errorf("the build of a current binary said %q and wrote another file: %v", said, !os.SameFile(first, again))
	}
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() { println() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited, said := rebuild()
	if !strings.Contains(said, "ctrlsim: built the command in ") || os.SameFile(first, edited) {
		t.Errorf("the build after an edit said %q and wrote a new binary: %v", said, !os.SameFile(first, edited))
	}
	left, err := filepath.Glob(filepath.Join(cache, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 {
		t.Errorf("the slot holds %v, want the binary and its lock", left)
	}
}
