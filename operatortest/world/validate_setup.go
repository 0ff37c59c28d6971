package world

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/process"
)

// A manager's Setup that never returns (it waits on a channel nothing will
// send to, or for caches that start only after it) would stop the kernel,
// which runs it, and with it the whole bubble: testing/synctest's deadlock
// dump, naming no manager. The bound is of the bubble's time, which moves
// only when every goroutine of the bubble is durably blocked: a watchdog
// beside Setup wakes after setupBound of it, which happens when, and only
// when, Setup has been blocked that long, whatever the machine's load (a
// bound of wall time would fail a Setup on a busy machine and pass it on an
// idle one). A Setup that waits on the wall clock at all is already
// reported (wallclock); one blocked a minute is blocked for good. The
// watchdog records the manager; the bubble's deadlock that follows is
// recovered and the run ends in an error naming it (the world's goroutines
// stay blocked: the test binary goes on). A Setup that spins without
// blocking never lets the bubble's time move, and a goroutine of the
// bubble that keeps a timer for ever (a ticker that never calls into the
// simulator) keeps the bubble from deadlocking: go test's -timeout ends
// those.

// setupBound is how long, in the bubble's time, a Setup may block.
const setupBound = time.Minute

// blockedSetup is a Setup found blocked past setupBound.
type blockedSetup struct {
	mu               sync.Mutex
	manager, process string
}

// bounded is setup with a watchdog of setupBound (manager's process proc).
func (s *SetupFailures) bounded(manager, proc string, setup func(*process.Process) error) func(*process.Process) error {
	return func(p *process.Process) error {
		done := make(chan struct{})
		go func() {
			tm := time.NewTimer(setupBound)
			defer tm.Stop()
			select {
			case <-done:
				return
			case <-tm.C:
			}
			s.blocked.mu.Lock()
			if s.blocked.manager == "" {
				s.blocked.manager, s.blocked.process = manager, proc
			}
			s.blocked.mu.Unlock()
			// No timer after this one: with Setup blocked for good, the
			// bubble deadlocks, and survive ends the run there.
		}()
		defer close(done)
		return setup(p)
	}
}

// blockedErr is the error of a Setup found blocked, or nil.
func (s *SetupFailures) blockedErr() error {
	s.blocked.mu.Lock()
	defer s.blocked.mu.Unlock()
	if s.blocked.manager == "" {
		return nil
	}
	return fmt.Errorf("manager %s (process %s) cannot start: its Setup did not return within %s of virtual time: it waits for something nothing in the world will send or release (a channel, the manager's caches, which start only after Setup)",
		s.blocked.manager, s.blocked.process, setupBound)
}

// survive, deferred by a run of the world in its bubble, sets *err when a
// Setup was found blocked: the bubble's deadlock is then that run's end
// (recovered), and the error names the manager.
func (s *SetupFailures) survive(err *error) {
	blocked := s.blockedErr()
	if blocked == nil {
		return
	}
	if r := recover(); r != nil && !strings.HasPrefix(fmt.Sprint(r), "deadlock: ") {
		panic(r)
	}
	*err = blocked
}
