package cluster_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// controller-runtime's own controller runs its workers on goroutines it starts
// itself; the scheduler adopts them in arrival order, which differs between
// runs. They are interchangeable, so a run's trace must not depend on it: three
// workers under informer lag and a crash (which kills and re-adopts them) give
// one trace hash in every run and at every GOMAXPROCS.
func TestHostedWorkersDeterminismAcrossGOMAXPROCS(t *testing.T) {
	p, err := plan.Parse("seed 3\nworkers process=op controller=widget n=3\nlag process=op kind=* min=0s max=5ms\ncrash process=op at=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first string
	for i, procs := range []int{1, 2, 4, 1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		c, err := cluster.New(p, stampWorld(func() string { return "v" })())
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
		h := c.Trace.Hash()
		c.Close()
		if i == 0 {
			first = h
			ops := map[string]int{}
			workers := map[int]bool{}
			for _, s := range c.Trace.Steps() {
				ops[s.Op]++
				if s.Op == "reconcile" {
					workers[s.Worker] = true
				}
			}
			if ops["crash"] != 1 || ops["restart"] != 1 || ops["reconcile"] < 3 || len(workers) < 2 {
				t.Fatalf("the run should crash and restart once and reconcile on several workers: ops %v, workers %v", ops, workers)
			}
			continue
		}
		if h != first {
			t.Fatalf("run %d (GOMAXPROCS=%d): trace hash %s, want %s", i, procs, h, first)
		}
	}
}

// The same, as the determinism check runs it.
func TestHostedWorkersPassTheDeterminismCheck(t *testing.T) {
	p, err := plan.Parse("seed 5\nworkers process=op controller=widget n=2\ncrash process=op call=3\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.CheckDeterminism(p, stampWorld(func() string { return "v" }), func(c *cluster.Cluster) { c.RunFor(time.Minute) }); err != nil {
		t.Fatal(err)
	}
}
