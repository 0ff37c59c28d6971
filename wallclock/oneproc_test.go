package wallclock_test

import (
	"runtime"
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// Goroutines created at one site are ordered by goroutine id, which follows
// creation order only on one P (sim/scheduler's Known gaps): a bubble of
// Run runs the process on one P.
func TestABubbleOfRunRunsOnOneP(t *testing.T) {
	var procs int
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) { procs = runtime.GOMAXPROCS(0) })
	if procs != 1 {
		t.Fatalf("GOMAXPROCS inside Run is %d, want 1", procs)
	}
}
