package outside

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"flag"
	"runtime"
	"testing"
)

func TestANestedRunKeepsNoCPUListAndRunsAtTheGOMAXPROCSOfTheMoment(t *testing.T) {
	f := flag.Lookup("test.cpu")
	if f == nil {
		t.Fatal("no flag test.cpu in a test binary")
	}
	was := f.Value.String()
	if err := f.Value.Set("1,2,4"); err != nil {
		t.Fatal(err)
	}
	defer f.Value.Set(was)
	var cpu string
	procs := 0
	if err := Run("Nested", func(*testing.T) { cpu, procs = f.Value.String(), runtime.GOMAXPROCS(0) }); err != nil {
		t.Fatal(err)
	}
	if cpu != "" || procs != runtime.GOMAXPROCS(0) {
		t.Errorf("within Run -test.cpu is %q at GOMAXPROCS %d; want none, at this process's %d", cpu, procs, runtime.GOMAXPROCS(0))
	}
	if got := f.Value.String(); got != "1,2,4" {
		t.Errorf("after Run -test.cpu is %q, want 1,2,4 back", got)
	}
}

func TestRunningIsSetWhileRunRunsItsTest(t *testing.T) {
	inside := false
	if err := Run("Nested", func(*testing.T) { inside = Running() }); err != nil {
		t.Fatal(err)
	}
	if !inside || Running() {
		t.Errorf("Running within Run: %v, after: %v; want true, then false", inside, Running())
	}
}
