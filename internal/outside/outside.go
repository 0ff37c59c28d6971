package outside

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Run runs f as a test named name in a program that is not a test (a
// command such as `ctrlsim run`), so that it can call Explore and Replay,
// which run every plan in a testing/synctest bubble and need a *testing.T.
// The program must have called testing.Init and flag.Parse. What the test
// prints goes nowhere but into the error: Run returns nil when f passed,
// and an error holding the test's output when it failed (t.Fatal, t.Error,
// a panic). Runs are sequential (one at a time, as explorations are:
// sim/explore's Known gaps), and an exploration in f runs in this process
// alone: worker processes re-run a test binary's test by name, and this
// program is not one (an explicit Options.Workers above 1 is an error).
func Run(name string, f func(t *testing.T)) error {
	outsideMu.Lock()
	defer outsideMu.Unlock()
	running.Store(true)
	defer running.Store(false)
	out, err := os.CreateTemp("", "operatortest-outside-")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	failed, ran := true, 0
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout = out // testing prints to os.Stdout (and, under -test.v=test2json, sets os.Stderr to it)
	defer nestedFlags()()
	code := testing.MainStart(outsideDeps{}, []testing.InternalTest{{Name: name, F: func(t *testing.T) {
		ran++
		f(t)
		failed = t.Failed()
	}}}, nil, nil, nil).Run()
	os.Stdout, os.Stderr = stdout, stderr
	if ran != 1 && code == 0 {
		// nestedFlags runs the one test once; a flag of testing it does
		// not know (a newer Go's) could still select otherwise.
		return fmt.Errorf("%s failed: testing ran it %d times, not once", name, ran)
	}
	if !failed && code == 0 {
		return nil
	}
	b, _ := os.ReadFile(out.Name())
	text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(b)), "FAIL"))
	if text == "" {
		text = fmt.Sprintf("exit code %d", code)
	}
	return fmt.Errorf("%s failed:\n%s", name, text)
}

var outsideMu sync.Mutex

// nestedFlag is a flag of a test binary that testing's M.Run reads from
// package state, with the value a nested M.Run (Run called within a
// test binary: a command's code under test) must see instead.
type nestedFlag struct{ name, value string }

// nestedValues are the flags of the test binary that a nested M.Run must not
// inherit. The selection (-test.run, -test.skip, -test.list, -test.count,
// -test.cpu, -test.shuffle, -test.bench, -test.fuzz) chose the outer tests:
// the nested run runs exactly the one test Run made, once (inherited,
// `go test -skip X` skipped it and Run failed with "no tests to run").
// The files (cmd/go's test log, the profiles, the trace, the coverage
// profile) are the outer run's: M.Run opens each in its before and closes
// it in its after, and the file is package state of testing, so a nested
// M.Run would close the outer run's file, and the outer run fails
// ("testing: can't write .../testlog.txt: file already closed", exit 2)
// once its tests have passed. (testing rebuilds its list of -test.cpu
// values in every M.Run: after Run, the outer binary's benchmarks run
// at the GOMAXPROCS of that moment, not at its -test.cpu list.)
var nestedValues = []nestedFlag{
	{"test.run", ""}, {"test.skip", ""}, {"test.list", ""}, {"test.count", "1"}, {"test.cpu", ""},
	{"test.shuffle", "off"}, {"test.bench", ""}, {"test.fuzz", ""},
	{"test.testlogfile", ""}, {"test.cpuprofile", ""}, {"test.memprofile", ""}, {"test.blockprofile", ""},
	{"test.mutexprofile", ""}, {"test.trace", ""}, {"test.coverprofile", ""},
}

// nestedFlags sets nestedValues' flags for a nested M.Run and returns what puts
// the test binary's values back.
func nestedFlags() (restore func()) {
	var undo []func()
	for _, n := range nestedValues {
		f := flag.Lookup(n.name)
		if f == nil || f.Value.String() == n.value {
			continue
		}
		was := f.Value.String()
		_ = f.Value.Set(n.value)
		undo = append(undo, func() { _ = f.Value.Set(was) })
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

// running is set while Run runs a test: an exploration then runs in
// this process (every exploration of the process meanwhile, a test's too).
var running atomic.Bool

// Running reports whether Run is running a test in this process.
func Running() bool { return running.Load() }

// corpusEntry is testing's fuzzing corpus entry (testing/internal/testdeps
// has the same): Run runs no fuzz target.
type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

// outsideDeps is the least that testing.MainStart needs to run tests in a
// program that is not a test binary: names match as a test binary's do
// (regular expressions; nestedFlags leaves no pattern to match, so the one
// test runs), and there is no profiling, test log, fuzzing or coverage.
type outsideDeps struct{}

var errNotATest = errors.New("not supported outside a test binary")

func (outsideDeps) ImportPath() string { return "" }
func (outsideDeps) ModulePath() string { return "" }
func (outsideDeps) MatchString(pat, str string) (bool, error) {
	return regexp.MatchString(pat, str)
}
func (outsideDeps) SetPanicOnExit0(bool)            {}
func (outsideDeps) StartCPUProfile(io.Writer) error { return errNotATest }
func (outsideDeps) StopCPUProfile()                 {}
func (outsideDeps) StartTestLog(io.Writer)          {}
func (outsideDeps) StopTestLog() error              { return nil }
func (outsideDeps) WriteProfileTo(string, io.Writer, int) error {
	return errNotATest
}
func (outsideDeps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return errNotATest
}
func (outsideDeps) RunFuzzWorker(func(corpusEntry) error) error { return errNotATest }
func (outsideDeps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, nil
}
func (outsideDeps) CheckCorpus([]any, []reflect.Type) error { return nil }
func (outsideDeps) ResetCoverage()                          {}
func (outsideDeps) SnapshotCoverage()                       {}
func (outsideDeps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}
