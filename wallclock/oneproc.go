package wallclock

import (
	"runtime"
	"sync"
)

// One P while a bubble runs. The scheduler adopts the goroutines that code
// under test starts itself (sim/scheduler's adopt.go) and numbers those
// created at one site by their goroutine ids, the order in which they were
// created as long as ids rise with creation. The runtime hands ids out in
// batches of 16 to each P: a creator that its P loses in the middle of a loop
// of go statements (a preemption, a collection's stop) and that goes on on
// another P, whose batch is older, gives the next goroutine a smaller id.
// Measured before this: a Runnable's three pollers numbered out of their
// order about once in 500 runs at GOMAXPROCS=4 (TestGoroutinesOfAProcessAreItsTasksDeterminism),
// a trace hash of its own. On one P the ids rise with creation, whatever
// GOMAXPROCS the test was given, so while any bubble runs the process runs
// on one P (the scheduler runs one goroutine at a time anyway), and gets its
// setting back when the last ends.
var oneP struct {
	sync.Mutex
	active int
	procs  int // GOMAXPROCS before the first bubble
}

// onOneP pins the process to one P until the function it returns is called.
func onOneP() (done func()) {
	oneP.Lock()
	defer oneP.Unlock()
	if oneP.active == 0 {
		oneP.procs = runtime.GOMAXPROCS(1)
	}
	oneP.active++
	return sync.OnceFunc(func() {
		oneP.Lock()
		defer oneP.Unlock()
		if oneP.active--; oneP.active == 0 && oneP.procs != 1 {
			runtime.GOMAXPROCS(oneP.procs)
		}
	})
}
