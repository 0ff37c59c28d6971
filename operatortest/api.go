package operatortest

import (
	"testing"

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
	search.Run(t, o)
}

// Result is what an exploration found (search.Result).
type Result = search.Result

// Explore explores as Run does and returns what it found, without saving,
// replaying or failing the test (for measurements: checks to catch a bug).
// An error is a world that cannot run (the test's setup, bad Options), not a
// finding. With -ctrlsim.plan=FILE it runs that plan only.
func Explore(t *testing.T, o Options) (Result, error) { return search.Explore(t, o) }

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
