package operatortest

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Outside runs f as a test named name in a program that is not a test (a
// command such as `ctrlsim run`), so that it can call Explore and Replay,
// which run every plan in a testing/synctest bubble and need a *testing.T.
// The program must have called testing.Init and flag.Parse. What the test
// prints goes nowhere but into the error: Outside returns nil when f passed,
// and an error holding the test's output when it failed (t.Fatal, t.Error,
// a panic). Runs are sequential (one at a time, as explorations are:
// sim/explore's Known gaps), and an exploration in f runs in this process
// alone: worker processes re-run a test binary's test by name, and this
// program is not one (an explicit Options.Workers above 1 is an error).
func Outside(name string, f func(t *testing.T)) error {
	outsideMu.Lock()
	defer outsideMu.Unlock()
	outside.Store(true)
	defer outside.Store(false)
	out, err := os.CreateTemp("", "operatortest-outside-")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	failed := true
	stdout := os.Stdout
	os.Stdout = out // testing prints to os.Stdout
	defer withoutTestFiles()()
	code := testing.MainStart(outsideDeps{}, []testing.InternalTest{{Name: name, F: func(t *testing.T) {
		f(t)
		failed = t.Failed()
	}}}, nil, nil, nil).Run()
	os.Stdout = stdout
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

// testFiles are the flags of a test binary that name files its own M.Run
// owns (cmd/go's test log, the profiles, the trace, the coverage profile):
// M.Run opens each in its before and closes it in its after, and the file
// is package state of testing, so a nested M.Run (Outside called within a
// test binary: a command's code under test) would close the outer run's
// file, and the outer run fails ("testing: can't write .../testlog.txt:
// file already closed", exit 2) once its tests have passed.
var testFiles = []string{"test.testlogfile", "test.cpuprofile", "test.memprofile", "test.blockprofile",
	"test.mutexprofile", "test.trace", "test.coverprofile"}

// withoutTestFiles clears testFiles' flags for a nested M.Run and returns
// what puts them back.
func withoutTestFiles() (restore func()) {
	var undo []func()
	for _, name := range testFiles {
		f := flag.Lookup(name)
		if f == nil || f.Value.String() == "" {
			continue
		}
		was := f.Value.String()
		_ = f.Value.Set("")
		undo = append(undo, func() { _ = f.Value.Set(was) })
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

// outside is set while Outside runs a test: an exploration then runs in
// this process (every exploration of the process meanwhile, a test's too).
var outside atomic.Bool

// corpusEntry is testing's fuzzing corpus entry (testing/internal/testdeps
// has the same): Outside runs no fuzz target.
type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

// outsideDeps is the least that testing.MainStart needs to run tests in a
// program that is not a test binary: names match (Outside runs one test),
// and there is no profiling, test log, fuzzing or coverage.
type outsideDeps struct{}

var errOutside = errors.New("not supported outside a test binary")

func (outsideDeps) ImportPath() string                        { return "" }
func (outsideDeps) ModulePath() string                        { return "" }
func (outsideDeps) MatchString(pat, str string) (bool, error) { return true, nil }
func (outsideDeps) SetPanicOnExit0(bool)                      {}
func (outsideDeps) StartCPUProfile(io.Writer) error           { return errOutside }
func (outsideDeps) StopCPUProfile()                           {}
func (outsideDeps) StartTestLog(io.Writer)                    {}
func (outsideDeps) StopTestLog() error                        { return nil }
func (outsideDeps) WriteProfileTo(string, io.Writer, int) error {
	return errOutside
}
func (outsideDeps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return errOutside
}
func (outsideDeps) RunFuzzWorker(func(corpusEntry) error) error { return errOutside }
func (outsideDeps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, nil
}
func (outsideDeps) CheckCorpus([]any, []reflect.Type) error { return nil }
func (outsideDeps) ResetCoverage()                          {}
func (outsideDeps) SnapshotCoverage()                       {}
func (outsideDeps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}
