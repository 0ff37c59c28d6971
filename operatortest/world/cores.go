package world

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// One core per simulation. A world runs one task at a time (sim/scheduler):
// every switch hands the one running goroutine's turn to the next over a
// channel. With more than one P the Go runtime wakes an idle P's thread at
// each hand-off (wakep), which finds nothing to run and sleeps again (futex):
// a third of a small operator's plan was that (twowrites fixed, 300 plans:
// 89 plans/s with GOMAXPROCS=2, 135 with 1, same machine, same run). And a
// simulated cluster allocates fast and keeps little: collecting four times
// less often takes a quarter off a CronJob-sized shrink (the tutorial design's
// bug, explorer seed 1: 47 s at GOGC 100, 35 s at 400, with GOMAXPROCS=1;
// resident memory 250 MB and 670 MB). Every core is still used: by worker
// processes (parallel.go), each with its own P.
//
// So while a test simulates (Run, Explore, Replay, a fuzz input), this
// process runs on one P and with GOGC=400; both are put back when the last
// simulation ends. Two simulations at once (parallel tests) share the P: a P
// each would let a goroutine that code under test starts take a goroutine id
// out of its creation order, and the scheduler numbers such goroutines by
// their ids (wallclock's oneproc.go, which pins every run's bubble to one P
// whatever the environment says). A GOGC set in the environment is left
// alone, and a GOMAXPROCS between runs (that is how to measure at another
// setting).

// SimulatingGOGC is the garbage collector's percentage while simulating.
const SimulatingGOGC = 400

type coreShare struct {
	sync.Mutex
	active    int  // simulations in progress
	procs     int  // GOMAXPROCS before the first
	setProcs  bool // GOMAXPROCS is not in the environment
	setGC     bool // GOGC is not in the environment
	gcPercent int  // the percentage before the first
}

var cores coreShare

// Simulating notes a simulation in progress until the function it returns
// is called.
func Simulating() (done func()) {
	c := &cores
	c.Lock()
	defer c.Unlock()
	if c.active == 0 {
		c.procs = runtime.GOMAXPROCS(0)
		c.setProcs = os.Getenv("GOMAXPROCS") == ""
		c.setGC = os.Getenv("GOGC") == ""
		if c.setGC {
			c.gcPercent = debug.SetGCPercent(SimulatingGOGC)
		}
	}
	c.active++
	c.fitProcs()
	return sync.OnceFunc(func() {
		c.Lock()
		defer c.Unlock()
		c.active--
		if c.active > 0 {
			c.fitProcs()
			return
		}
		if c.setProcs {
			runtime.GOMAXPROCS(c.procs)
		}
		if c.setGC {
			debug.SetGCPercent(c.gcPercent)
		}
	})
}

// fitProcs gives the simulations in progress one P.
func (c *coreShare) fitProcs() {
	if c.setProcs {
		runtime.GOMAXPROCS(1)
	}
}

// testCores is the GOMAXPROCS the test runs with (not the one a simulation
// in progress set): the default number of workers.
func CoresOfTest() int {
	c := &cores
	c.Lock()
	defer c.Unlock()
	if c.active > 0 {
		return c.procs
	}
	return runtime.GOMAXPROCS(0)
}
