// Command ctrlsim is the launcher of ctrlsim's command
// (cmd/ctrlsim/internal/ctrlsim, whose doc lists the commands and flags; docs/command.md).
//
// The command compiles with kube-apiserver's, kube-controller-manager's and
// controller-runtime's code: on a cold build cache that takes minutes (15 on
// a loaded 2-core machine), which `go tool ctrlsim` and `go run` spend
// without a word. This package imports the standard library only, so that
// the go command builds it in about a second; it then builds the command
// itself with `go build -v` and says so on stderr as it goes (a line when it
// starts compiling, then how many packages of how many are compiled, every
// 100 packages or 20 seconds, a line after 3 seconds without one, and a last
// line with the time it took), and runs it with the same arguments,
// environment and standard streams (on Unix, in its place: exec). When the
// binary is current it says nothing.
//
// It builds the command in the directory it is run in, so that the command
// is compiled in the caller's module with that module's versions (an
// operator's go.mod, which the tool line added ctrlsim to, or ctrlsim's own
// checkout) and the caller's GOFLAGS, as go tool built this launcher. The
// binary is kept under the user's cache directory
// ($XDG_CACHE_HOME/ctrlsim/command/KEY, ~/.cache on Linux), one per module,
// Go version, GOOS/GOARCH, CGO_ENABLED and GOFLAGS (KEY is their hash); the
// go command decides whether it is current (a new ctrlsim version, an edited
// checkout behind a replace directive, another dependency version all make
// it rebuild), and a current binary costs a second of checking and no
// output. Outside a module it says where to run it.
//
// Two launchers may build the same binary at once (make test's catalogue
// step beside a user's run, two CI jobs sharing a cache): the go command
// writes its output in place, so one could run the other's half-written
// binary. A launcher therefore takes a lock on the binary's directory
// (lock_flock.go: flock(2), which the kernel releases when a launcher dies;
// none on other systems) and says, when another holds it, that it waits
// for that one to finish building; it builds into a file beside the binary
// (a hard link to the current binary, so that the go command still finds
// it current) and renames it over the binary only when the go command
// wrote a new one, so a binary runs only when whole, lock or no lock.
//
// go mod tidy keeps the command's modules in an adopter's go.mod and go.sum
// though the launcher imports none of them: tidy.go imports the command
// under a build tag no build sets, and tidy (like go mod vendor) reads every
// tag.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// module and command are ctrlsim's module and the package of its command;
// lockFile is the lock of a built command's directory (lock_flock.go).
const (
	module   = "github.com/ctrlsim/ctrlsim"
	command  = module + "/cmd/ctrlsim/internal/ctrlsim"
	lockFile = "lock"
)

func main() {
	bin, err := build(os.Stderr, "go", cacheDir())
	if err != nil {
		fmt.Fprintf(os.Stderr, "ctrlsim: %v\n", err)
		os.Exit(1)
	}
	os.Exit(execCommand(bin, os.Args[1:]))
}

// cacheDir is where the built commands are kept: $CTRLSIM_COMMAND_CACHE, or
// ctrlsim/command under the user's cache directory.
func cacheDir() string {
	if d := os.Getenv("CTRLSIM_COMMAND_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "ctrlsim", "command")
}

// build builds the command with the go command named gocmd, in the current
// directory, into a directory under cache, and returns the binary's path;
// it tells w what it is doing when it compiles or links.
func build(w io.Writer, gocmd, cache string) (string, error) {
	env, err := exec.Command(gocmd, "env", "GOMOD", "GOWORK", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v%s", err, stderrOf(err))
	}
	gomod, _, _ := strings.Cut(string(env), "\n")
	key := fnv.New64a()
	key.Write(env)
	dir := filepath.Join(cache, fmt.Sprintf("%016x", key.Sum64()))
	bin := filepath.Join(dir, "ctrlsim")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if gomod == "" || gomod == os.DevNull {
		// go run github.com/ctrlsim/ctrlsim/cmd/ctrlsim@VERSION refuses
		// ctrlsim's go.mod (its replace directives pin k8s.io's staging
		// modules), so a launcher outside a module is one built some other
		// way.
		return "", fmt.Errorf("not in a Go module: run it as `go tool ctrlsim` in a module whose go.mod has `tool %s/cmd/ctrlsim`, or as `go run ./cmd/ctrlsim` in ctrlsim's checkout", module)
	}
	p := &progress{w: w, bin: bin, start: time.Now(), now: time.Now}
	unlock, err := lockSlot(dir, p.wait)
	if err != nil {
		return "", err
	}
	defer unlock()
	// The build's output, renamed over bin once whole. Under the lock it is
	// the slot's alone, and one a killed launcher left is removed; without
	// a lock it is this process's.
	tmp := bin + ".new"
	if !locks {
		tmp = fmt.Sprintf("%s.%d.new", bin, os.Getpid())
	}
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	defer os.Remove(tmp)
	before, _ := os.Stat(bin)
	if before != nil {
		// The go command decides from the output file whether it is
		// current: the current binary, under another name. (Where links
		// fail, it builds the binary anew.)
		_ = os.Link(bin, tmp)
	}
	args := []string{"build", "-v", "-o", tmp, command}
	// The count of packages, for "N of M": every package the command
	// imports (on a cold cache each is compiled; on a warm one fewer),
	// asked of go list once a package is compiled (a current binary costs
	// no go list).
	ctx, cancel := context.WithCancel(context.Background())
	var listed sync.WaitGroup
	defer listed.Wait()
	defer cancel()
	count := sync.OnceFunc(func() {
		listed.Go(func() {
			out, err := exec.CommandContext(ctx, gocmd, "list", "-deps", command).Output()
			if err == nil {
				p.setTotal(bytes.Count(out, []byte("\n")))
				totalKnown()
			}
		})
	})
	cmd := exec.Command(gocmd, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	// go build writes nothing on stdout; what it might goes to w, as its
	// stderr does (the command's stdout is the command's alone).
	cmd.Stdout = p
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("go build: %v", err)
	}
	stop := p.tick(3 * time.Second)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if p.line(sc.Text()) {
			count()
		}
	}
	err = cmd.Wait()
	stop()
	if err != nil {
		return "", fmt.Errorf("go build %s failed (%v): the command did not build", command, err)
	}
	// The go command touches a current binary and writes a new one in its
	// place (another file): a new one replaces bin whole.
	after, err := os.Stat(tmp)
	if err != nil {
		return "", fmt.Errorf("go build wrote no command: %v", err)
	}
	written := before == nil || !os.SameFile(before, after)
	if written {
		if err := os.Rename(tmp, bin); err != nil {
			return "", err
		}
	}
	p.done(written)
	return bin, nil
}

// totalKnown is called once a build knows its count of packages (the
// launcher's tests: their go command compiles on only then).
var totalKnown = func() {}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return "\n" + strings.TrimRight(string(ee.Stderr), "\n")
	}
	return ""
}

// progress says what a build is doing from go build -v's stderr: a line
// that is an import path is a package compiled (the go command names only
// those it compiles, not those its cache has); any other line (an error,
// go: downloading) is passed through.
type progress struct {
	w     io.Writer
	bin   string
	start time.Time
	now   func() time.Time

	mu       sync.Mutex
	total    int           // packages the command imports, 0 until known
	compiled int           // packages compiled so far
	said     time.Time     // when a line was last written, zero before the first
	waited   time.Duration // how long it waited for another launcher's build
}

// every and often are how many packages, and how long, between two
// progress lines.
const (
	every = 100
	often = 20 * time.Second
)

// Write writes b to w, between two lines.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.w.Write(b)
}

func (p *progress) setTotal(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = n
}

// line takes one line of the go command's stderr and reports whether it
// was a package compiled.
func (p *progress) line(l string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !isImportPath(l) {
		fmt.Fprintln(p.w, l)
		return false
	}
	p.compiled++
	now := p.now()
	switch {
	case p.compiled == 1:
		p.sayf(now, "ctrlsim: compiling the command into %s (on a cold build cache this takes minutes: it compiles kube-apiserver's code; a line every %d packages)", p.bin, every)
	case p.compiled%every == 0 || now.Sub(p.said) >= often:
		p.sayf(now, "ctrlsim: %s compiled (%s)", p.count(), now.Sub(p.start).Round(time.Second))
	}
	return true
}

// tick says, once, that the go command is at work when it has been for
// after with nothing said (on a cold build cache it names its first
// packages compiled after 20 seconds; a link, or checking that the binary
// is current on a loaded machine, takes seconds too); stop ends it.
func (p *progress) tick(after time.Duration) (stop func()) {
	t := time.AfterFunc(after, p.waiting)
	return func() { t.Stop() }
}

// waiting says that the go command is at work, unless a line was said.
func (p *progress) waiting() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.said.IsZero() {
		p.sayf(p.now(), "ctrlsim: building the command into %s (the go command is finding what to compile, or checking the binary is current, or linking it)", p.bin)
	}
}

// wait says that another launcher is building the command into the same
// directory, and returns the function that says the wait is over.
func (p *progress) wait() (over func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := p.now()
	p.sayf(start, "ctrlsim: waiting for another ctrlsim to finish building the command into %s (it holds %s)", filepath.Dir(p.bin), filepath.Join(filepath.Dir(p.bin), lockFile))
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.waited = p.now().Sub(start)
	}
}

// done ends a build (written: the binary was written): a last line when
// the binary was written or a line was said, none when a current binary
// was checked quietly.
func (p *progress) done(written bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.said.IsZero() && !written {
		return
	}
	now := p.now()
	took := now.Sub(p.start).Round(time.Second)
	switch {
	case p.compiled > 0:
		p.sayf(now, "ctrlsim: built the command in %s (%s compiled); running it", took, plural(p.compiled, "package"))
	case written:
		p.sayf(now, "ctrlsim: built the command in %s (linked); running it", took)
	case p.waited > 0:
		p.sayf(now, "ctrlsim: the command is current (another ctrlsim built it; waited %s); running it", p.waited.Round(time.Second))
	default:
		p.sayf(now, "ctrlsim: the command is current (checked in %s); running it", took)
	}
}

func (p *progress) count() string {
	if p.total > 0 {
		return fmt.Sprintf("%d of at most %d packages", p.compiled, p.total)
	}
	return plural(p.compiled, "package")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (p *progress) sayf(now time.Time, format string, args ...any) {
	fmt.Fprintf(p.w, format+"\n", args...)
	p.said = now
}

// isImportPath reports whether l is a line of go build -v naming a
// package: an import path has no space, colon or '#' (an error line and
// "# pkg" headers do).
func isImportPath(l string) bool {
	return l != "" && !strings.ContainsAny(l, " \t:#")
}
