package world_test

import (
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// A world runs one task at a time: while a test simulates, its process runs
// on one P (no thread woken at every hand-off between tasks to find nothing
// to do) with the collector at GOGC=400, and both are put back after. Two
// simulations at once (parallel tests) share it (cores.go says why).
func TestATestSimulatesOnOneCoreAndGetsItsSettingsBack(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" || os.Getenv("GOGC") != "" {
		t.Skip("GOMAXPROCS or GOGC is set in the environment: left alone")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	var during []int
	o := optest.BugOptions(&optest.KnownBugs{TwoWrites: true}, false)
	o.Checks, o.Workers = 3, 1
	o.Properties = append(o.Properties, world.Property{Name: "cores", Check: func(*world.History) error {
		if p := runtime.GOMAXPROCS(0); !slices.Contains(during, p) {
			during = append(during, p)
		}
		return nil
	}})
	if _, err := search.Explore(t, o); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(during, []int{1}) {
		t.Errorf("GOMAXPROCS while exploring: %v, want 1", during)
	}
	if p, gc := runtime.GOMAXPROCS(0), debug.SetGCPercent(100); p != 2 || gc != 100 {
		t.Errorf("after exploring: GOMAXPROCS %d and GOGC %d, want the test's 2 and 100", p, gc)
	}

	first := world.Simulating()
	if p, gc := runtime.GOMAXPROCS(0), debug.SetGCPercent(world.SimulatingGOGC); p != 1 || gc != world.SimulatingGOGC {
		t.Errorf("one simulation: GOMAXPROCS %d and GOGC %d, want 1 and %d", p, gc, world.SimulatingGOGC)
	}
	if n := world.CoresOfTest(); n != 2 {
		t.Errorf("the test's cores (the default workers) while simulating: %d, want 2", n)
	}
	second, third := world.Simulating(), world.Simulating()
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Errorf("three simulations on a test of 2 cores: GOMAXPROCS %d, want 1", p)
	}
	third()
	third() // a second call changes nothing
	second()
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Errorf("one simulation left: GOMAXPROCS %d, want 1", p)
	}
	first()
	if p, gc := runtime.GOMAXPROCS(0), debug.SetGCPercent(100); p != 2 || gc != 100 {
		t.Errorf("after the last: GOMAXPROCS %d and GOGC %d, want the test's 2 and 100", p, gc)
	}
}
