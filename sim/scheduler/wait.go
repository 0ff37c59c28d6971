package scheduler

import "time"

// Waits of code under test on the bubble's clock.
//
// Inside a testing/synctest bubble (SetSettle), any task, not only a manager
// Runnable, may block outside the scheduler: a reconcile that calls
// time.Sleep, waits on a time.Timer or time.After, or polls with client-go's
// wait and retry helpers (retry.RetryOnConflict sleeps between tries,
// wait.PollUntilContextTimeout waits on a timer and a context deadline). The
// kernel resumes every task the same way: it lets the bubble settle, and a task
// that has neither parked with the scheduler nor ended has blocked outside
// (resumeOutside). The run goes on without it: other tasks run, the virtual
// clock moves, and the clock's follower sleeps in the bubble, so the bubble's
// clock moves with virtual time and the task's timer falls due at its instant
// of virtual time. There the follower stops short, the task (woken by its
// timer) calls into the simulator, announces itself and parks (checkCaller),
// and the kernel runs it at that instant as a runnable task: the wait took
// exactly its virtual duration, and it is a function of the plan, since the
// bubble's clock is.
//
// A task killed while it waits (its process crashed) never runs again: when
// its timer wakes it, its first call into the simulator parks it, and the
// kernel unwinds it at once (endDying), before any other task runs: its
// deferred calls run as a killed task's do, refused by the simulator. The
// waits still pending at Close are ended the same way: the kernel sleeps in
// the bubble until they wake, and unwinds them (closeWaiting).

// endDying unwinds the tasks that were killed while blocked outside and have
// just rejoined (see follow).
func (s *Scheduler) endDying() {
	for len(s.dying) > 0 {
		t := s.dying[0]
		s.dying = s.dying[1:]
		if t.state != done {
			s.switchTo(t, false)
		}
	}
}

// closeForever bounds the kernel's last sleep at Close, in the bubble's
// time: a task still blocked outside after that waits on something no
// timer of that reach will end (a channel of its own), and is left where it
// is, with the world (package wallclock names it). The bound is short
// enough that a goroutine ticking through it for ever (a cache's janitor,
// every 10ms) costs a fraction of a second of wall time, where a hundred
// years of ticks never ended; long enough for the waits of a reconcile
// (time.Sleep, a retry's backoff, a poll's interval) to end and unwind.
const closeForever = 10 * time.Minute

// closeWaiting ends the tasks blocked outside that have no context to cancel
// (a reconcile in time.Sleep): they are killed, the kernel sleeps in the bubble
// until their timers wake them, and each unwinds at its first call into the
// simulator. Tasks of GoOutside have been closed before (closeOutside).
func (s *Scheduler) closeWaiting() {
	s.endDying()
	if s.settle == nil || s.wallSleep == nil {
		return
	}
	for s.out.blocked.Load() > 0 {
		for _, t := range s.tasks {
			if t.state == blockedOutside {
				t.killed = true
			}
		}
		s.out.sleeping.Store(true)
		s.wallSleep(closeForever, s.out.wake)
		s.settle()
		s.out.sleeping.Store(false)
		select {
		case <-s.out.wake:
		default:
		}
		if !s.collect() {
			return
		}
		s.endDying()
	}
}
