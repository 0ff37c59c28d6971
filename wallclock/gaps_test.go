package wallclock_test

// The tests of this file show Known gaps of doc.go (and of sim/scheduler's
// doc.go), each as it is today: a change that closes a gap breaks its test,
// and the item goes with it.

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/rng"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// In a bubble, a task blocked on a mutex (held here by the test, outside
// the bubble; in a run, by a parked task) is not durably blocked: the
// kernel's settle (synctest.Wait) waits for it for ever, and nothing in the
// bubble can say so. Stuck, called from outside the bubble, names it.
func TestStuckNamesATaskBlockedOnAMutexInABubble(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		synctest.Test(t, func(t *testing.T) {
			s := scheduler.New(clock.New(clock.Epoch), rng.New(1).Stream("scheduler"))
			s.SetSettle(synctest.Wait)
			s.Go("p", "locker", func() {
				mu.Lock()
				mu.Unlock()
			})
			s.RunFor(time.Second)
			s.Close()
		})
	}()
	stuck := wallclock.Stuck()
	for !strings.Contains(stuck, "sync.Mutex.Lock") {
		runtime.Gosched() // until the task has reached the mutex
		stuck = wallclock.Stuck()
	}
	select {
	case <-ran:
		t.Fatal("the world ended while its task waited on the mutex")
	default:
	}
	mu.Unlock()
	<-ran
	if !strings.Contains(stuck, "TestStuckNamesATaskBlockedOnAMutexInABubble") || !strings.Contains(stuck, "scheduler.(*Scheduler).Go") {
		t.Fatalf("Stuck() = %q, want the task's goroutine, started by the scheduler's Go, waiting in this test", stuck)
	}
}
