package scheduler

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// outsideState is what a goroutine that is not the running one may read:
// kept apart from the kernel's state, behind a lock and atomics, so that the
// detection of a task that woke on its own is itself free of data races.
type outsideState struct {
	blocked  atomic.Int32     // tasks blocked outside
	sleeping atomic.Bool      // the kernel is in a follower's sleep that a rejoin may stop
	wake     chan struct{}    // a rejoin stops that sleep (capacity 1)
	mu       sync.Mutex       // guards byGoid and rejoined
	byGoid   map[uint64]*Task // tasks blocked outside, by goroutine id
	rejoined []*Task          // tasks that woke outside and called in (checkCaller)
	// Goroutines of code under test (adopt.go): every task ever made, by
	// goroutine id (a new goroutine's parent); the goroutines that called
	// in and wait to be adopted; those found to be no task's (not asked
	// again); closing: Close has begun.
	known    map[uint64]*Task
	arrived  []*Task
	foreign  map[uint64]bool
	closing  bool
	helpers  map[uint64]bool  // goroutines that act as whoever waits for them (Host's)
	helpSite string           // Helped: goroutines created there act as the running one
	helpG    map[uintptr]bool // the goroutines found created there, by g, while Helped runs
	kills    map[string]int   // KillGroup calls per group: an arrival killed before its adoption
}

// Tasks that may block outside the scheduler.
//
// A manager's Runnable (mgr.Add of a RunnableFunc, say) runs code the
// simulator cannot change: after its work it typically blocks on its
// context's Done channel, a channel of its own, or a timer, none of which the
// scheduler sees. GoOutside runs such code as a task, inside a
// testing/synctest bubble only: after resuming it the kernel waits until
// every other goroutine of the bubble is durably blocked (Settle, which is
// synctest.Wait), and then knows whether the task parked with the scheduler
// (a client call, a yield) or blocked outside it. A task blocked outside is
// left there: it never runs again in the run (its context is cancelled only
// at Close, and a killed process's Runnable does not get to clean up, as with
// SIGKILL).
//
// A task blocked outside on a timer of the bubble (a ticker loop, wait.Until,
// time.Sleep) rejoins when the timer fires (SetWall): the bubble's clock
// moves only while the kernel sleeps in the clock's follower, so the task
// wakes there, at the instant its timer was due; when it calls into the
// simulator it announces itself and parks. The kernel wakes, lets the bubble
// settle (every task woken at that instant has then parked or blocked
// again), stops the virtual clock at that instant without firing what is due
// later, and the tasks that rejoined run there as runnable tasks, in the
// kernel's order. Their timers are then events of virtual time.
//
// What is not supported is reported, never run silently out of order: a
// blocked task woken by something other than a timer while the kernel sleeps
// (a channel another task sends to) that then calls into the simulator stops
// the run with an error (Err), since it would run alongside the task the
// kernel picked.

// ErrNoSettle is GoOutside's error outside a testing/synctest bubble.
var ErrNoSettle = errors.New("a task that may block outside the scheduler (a manager Runnable) needs a testing/synctest bubble: run the world with package wallclock (operatortest does)")

// SetSettle installs the function that waits until every other goroutine of
// the bubble is durably blocked (synctest.Wait); GoOutside needs it.
func (s *Scheduler) SetSettle(settle func()) { s.settle = settle }

// InBubble reports whether the scheduler runs in a testing/synctest bubble
// (SetSettle): whether its tasks may block outside it (on a channel, a
// timer) and rejoin when woken.
func (s *Scheduler) InBubble() bool { return s.settle != nil }

// Closing reports whether Close has begun: a goroutine calling in from now
// on is killed as it arrives.
func (s *Scheduler) Closing() bool {
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	return s.out.closing
}

// SetWall makes sleep the clock's follower: it sleeps d in the bubble, or
// less if wake is ready first, and returns how long it slept. While a task is
// blocked outside, the follower passes a wake channel that a task rejoining
// from a timer of the bubble signals (see above).
func (s *Scheduler) SetWall(sleep func(d time.Duration, wake <-chan struct{}) time.Duration) {
	s.wallSleep = sleep
	s.out.wake = make(chan struct{}, 1)
	s.clock.SetFollower(s.follow)
}

// follow is the clock's follower: a sleep in the bubble, stopped short when a
// task blocked outside rejoins.
func (s *Scheduler) follow(d time.Duration) (time.Duration, bool) {
	if !s.inClock || s.settle == nil {
		return s.wallSleep(d, nil), false
	}
	// A task woken by kernel code (its context cancelled by a crash) has
	// called in by now: it runs before the clock moves. So has a goroutine
	// of code under test that calls in for the first time (adopt.go), which
	// a timer of the bubble may wake even when no task is blocked outside.
	s.settle()
	if s.collect() {
		return 0, true
	}
	s.out.sleeping.Store(true)
	slept := s.wallSleep(d, s.out.wake)
	s.settle() // every task woken at this instant has now rejoined or blocked again
	s.out.sleeping.Store(false)
	select {
	case <-s.out.wake:
	default:
	}
	return slept, s.collect()
}

// collect makes the tasks that rejoined (woke outside and called into the
// simulator: checkCaller) runnable, in task order; a killed one is put to
// unwind before anything else runs (wait.go). It runs in the kernel right
// after a settle, so which tasks rejoined is a function of the run.
func (s *Scheduler) collect() bool {
	s.out.mu.Lock()
	rejoined, arrived := s.out.rejoined, s.out.arrived
	s.out.rejoined, s.out.arrived = nil, nil
	s.out.mu.Unlock()
	if len(rejoined) == 0 && len(arrived) == 0 {
		return false
	}
	slices.SortFunc(rejoined, func(a, b *Task) int { return a.id - b.id })
	s.canonical(rejoined)
	for _, t := range rejoined {
		s.out.blocked.Add(-1)
		t.state = runnable
		if t.killed {
			if t.user {
				t.state = frozen // it never runs again (adopt.go)
			} else {
				s.dying = append(s.dying, t)
			}
		}
	}
	s.adopt(arrived) // adopt.go
	return true
}

// canonical puts the adopted goroutines that rejoined at one settle, of
// one group and created at one place, and whose hooks said what they ask
// (JoinAsking), in the order of what they ask: each takes the place (its
// position among the tasks, its id and name) that the one asking the
// smallest, then the next, would hold in id order. They run the same code
// from one go statement, so which of them took which piece of work outside
// the simulator (an item of a client-go workqueue, woken at one instant, in
// the order Go's scheduler ran them) is no choice of the plan's; what they
// ask is. rejoined, in id order, stays so.
func (s *Scheduler) canonical(rejoined []*Task) {
	var sites []string
	peers := map[string][]*Task{}
	for _, t := range rejoined {
		if !t.user || t.asking == "" {
			continue
		}
		k := t.group + "\x00" + t.site
		if peers[k] == nil {
			sites = append(sites, k)
		}
		peers[k] = append(peers[k], t)
	}
	moved := false
	for _, k := range sites {
		ts := peers[k]
		if len(ts) < 2 {
			continue
		}
		byAsking := slices.Clone(ts)
		slices.SortStableFunc(byAsking, func(a, b *Task) int { return cmp.Compare(a.asking, b.asking) })
		if slices.Equal(byAsking, ts) {
			continue
		}
		type slot struct {
			pos, id int
			name    string
		}
		slots := make([]slot, len(ts))
		for i, t := range ts {
			slots[i] = slot{slices.Index(s.tasks, t), t.id, t.name}
		}
		for i, t := range byAsking {
			if slots[i].pos >= 0 {
				s.tasks[slots[i].pos] = t
			}
			t.id, t.name = slots[i].id, slots[i].name
		}
		moved = true
	}
	if moved {
		slices.SortFunc(rejoined, func(a, b *Task) int { return a.id - b.id })
	}
}

// GoOutside creates a task running f(ctx) that may block outside the
// scheduler (see above). ctx is cancelled at Close.
func (s *Scheduler) GoOutside(group, name string, f func(ctx context.Context)) (*Task, error) {
	if s.settle == nil {
		return nil, ErrNoSettle
	}
	ctx, cancel := context.WithCancel(context.Background())
	var t *Task
	t = s.Go(group, name, func() { f(ctx) })
	t.outside, t.cancel = true, cancel
	return t, nil
}

// Err is the error that stopped the run, if any. Since a task that wakes
// outside the scheduler rejoins it (checkCaller) there is none left; it stays
// for callers that judge a run by it (cluster.Err).
func (s *Scheduler) Err() error { return nil }

// resumeOutside runs an outside task after its resume: it reports whether the
// task stopped with the scheduler (its yield is then taken) or blocked outside.
func (s *Scheduler) resumeOutside(t *Task) (parked bool) {
	s.settle()
	s.collect() // tasks this one woke (a channel it sent to) join
	select {
	case <-t.yield:
		return true
	default:
		t.state = blockedOutside
		s.out.mu.Lock()
		if s.out.byGoid == nil {
			s.out.byGoid = map[uint64]*Task{}
		}
		s.out.byGoid[t.goid] = t
		s.out.mu.Unlock()
		s.out.blocked.Add(1)
		return false
	}
}

// checkCaller parks a task blocked outside that woke (on a timer of the
// bubble, a channel another task sent to, its context) and calls into the
// simulator: it rejoins, and waits until the kernel, after its next settle,
// makes it runnable (collect) and runs it, or unwinds it if it was killed.
// Until that call it ran its own code only. In a bubble, a goroutine the
// scheduler does not know yet is adopted the same way (adopt.go); the
// running goroutine is told apart by its g, in a nanosecond.
func (s *Scheduler) checkCaller() {
	if s.settle == nil {
		if s.out.blocked.Load() == 0 {
			return
		}
		s.checkCallerID(goid())
		return
	}
	if getg() == s.runningG.Load() {
		return
	}
	s.arrive("", false)
}

// checkCallerID is checkCaller for the goroutine id, for tasks blocked
// outside only (Caller: a goroutine's log line does not adopt it).
func (s *Scheduler) checkCallerID(id uint64) {
	if s.out.blocked.Load() == 0 {
		return
	}
	s.out.mu.Lock()
	t := s.out.byGoid[id]
	if t == nil {
		s.out.mu.Unlock()
		return
	}
	t.asking = ""
	s.rejoinLocked(t)
}

// rejoinLocked parks t, blocked outside and calling in again, until the
// kernel runs or unwinds it; s.out.mu is held and released.
func (s *Scheduler) rejoinLocked(t *Task) {
	delete(s.out.byGoid, t.goid)
	s.out.rejoined = append(s.out.rejoined, t)
	s.out.mu.Unlock()
	s.stopFollower()
	if !<-t.resume {
		t.unwind()
	}
}

// stopFollower stops the follower's sleep at this instant: a goroutine
// has called in and must run there.
func (s *Scheduler) stopFollower() {
	if s.out.sleeping.Load() {
		select {
		case s.out.wake <- struct{}{}:
		default:
		}
	}
}

// closeOutside ends a task blocked outside: its context is cancelled, and it
// runs to its end as a killed task (its calls into the simulator unwind). A
// task still blocked after that (on a channel of its own) is left.
func (s *Scheduler) closeOutside(t *Task) {
	t.killed = true
	prev := s.current
	s.current = t
	running, runningG := s.running.Load(), s.runningG.Load()
	s.running.Store(t.goid)
	s.runningG.Store(t.g)
	defer func() { s.running.Store(running); s.runningG.Store(runningG) }()
	s.out.mu.Lock()
	delete(s.out.byGoid, t.goid)
	s.out.mu.Unlock()
	s.out.blocked.Add(-1)
	t.state = runnable
	// Only now may its goroutine run again: woken by its context.
	t.cancel()
	for {
		s.settle()
		select {
		case <-t.yield:
		default:
			s.current = prev
			return // blocked on something of its own: left
		}
		if t.state == done {
			break
		}
		t.resume <- false
	}
	s.current = prev
}
