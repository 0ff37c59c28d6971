package operatortest

import (
	"flag"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

// Run tests the operator: it explores plans of faults (informer lag and holds,
// crashes at any client call, API errors and latency, more workers) over
// Options.Checks plans, each run as a fault phase, a heal and a heal budget and
// judged by the generic oracles and the test's properties. A violation is
// shrunk to a minimal plan, saved under testdata/ctrlsim/<test>.plan, replayed
// (it must give the same trace hash, else the test fails with both hashes
// and the first step where the runs differ), and reported with the property,
// what it saw, a replay command and the timeline (controllers' log lines and
// Events included); the test fails, unless Options.Expect expects it. A saved
// plan is replayed first on every later run, as a regression test, until it
// holds (then delete it). With -ctrlsim.plan=FILE, Run replays that plan only.
// Options are validated first: a bad one fails the test with one line naming
// it.
func Run(t *testing.T, o Options) {
	t.Helper()
	sayTimeout(os.Stderr, t, o)
	search.Run(t, o)
}

// Result is what an exploration found (search.Result).
type Result = search.Result

// Explore explores as Run does and returns what it found, without saving,
// replaying or failing the test (for measurements: checks to catch a bug).
// An error is a world that cannot run (the test's setup, bad Options), not a
// finding. With -ctrlsim.plan=FILE it runs that plan only.
func Explore(t *testing.T, o Options) (Result, error) {
	sayTimeout(os.Stderr, t, o)
	return search.Explore(t, o)
}

// longRun is how many plans make a run long enough that Run says, in one
// line on stderr as it starts, when go test's -timeout (default 10m) ends
// the test binary and what to pass: a 1,000-plan run of an operator took
// 22 minutes on 2 cores, and a binary ended by -timeout names no plan.
const longRun = 300

func sayTimeout(w io.Writer, t *testing.T, o Options) {
	deadline, ok := t.Deadline()
	if line := timeoutLine(o.WithDefaults().Checks, deadline, ok, time.Now()); line != "" && !replaying() {
		fmt.Fprintln(w, line)
	}
}

// timeoutLine is what sayTimeout says of a run of checks plans in a test
// binary that ends at deadline (ok: one is set), "" for nothing.
func timeoutLine(checks int, deadline time.Time, ok bool, now time.Time) string {
	if checks < longRun || !ok {
		return ""
	}
	return fmt.Sprintf("operatortest: %d plans to explore, and go test's -timeout ends this test binary %s from now: a run of hundreds of plans may take longer (one of 1,000 took 22 minutes on 2 cores); pass -timeout=0 (or a bound above the run's) to go test",
		checks, deadline.Sub(now).Round(time.Second))
}

// replaying reports whether -ctrlsim.plan runs one plan.
func replaying() bool {
	f := flag.Lookup("ctrlsim.plan")
	return f != nil && f.Value.String() != ""
}

// Fuzz makes f a fuzz test of o's operator: each input of the fuzzing
// engine decodes to a plan, as Explore's plans are drawn, which is run and
// judged as Run judges it; a violation fails the input with the properties
// violated and the plan. The seed corpus holds inputs long enough to draw a
// plan from. Bad Options fail the test with one line naming them.
//
//	func FuzzMyOperator(f *testing.F) { operatortest.Fuzz(f, myOptions()) }
func Fuzz(f *testing.F, o Options) {
	f.Helper()
	target, err := search.FuzzTarget(o)
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range search.FuzzSeeds() {
		f.Add(in)
	}
	f.Fuzz(target)
}
