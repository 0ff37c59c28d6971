package scheduler

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	kclock "k8s.io/utils/clock"

	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// Picker chooses which of n runnable tasks runs next. sim/rng streams satisfy it.
type Picker interface {
	IntN(n int) int
}

type state int

const (
	runnable state = iota
	sleeping
	waiting
	done
	blockedOutside // an outside task blocked on something the scheduler does not see (outside.go)
	frozen         // a goroutine of code under test killed with its process: never resumed until Close (adopt.go)
)

// Task is one cooperative thread of control: a worker of a controller, a model's
// loop. Its goroutine runs only while the kernel has handed control to it.
type Task struct {
	id     int
	name   string
	group  string
	s      *Scheduler
	resume chan bool     // whoever resumes it -> task: true to run, false to die
	yield  chan struct{} // task -> whoever resumed it: "I have stopped"
	state  state
	cond   func() bool
	timer  kclock.Timer
	killed bool
	fault  any // a panic the task's function did not recover (a harness bug)
	// adopted: a goroutine started by hosted code (Host), not by Go; killed,
	// it leaves with runtime.Goexit and ends at EndIfKilled.
	adopted bool
	// outside: a task of GoOutside (outside.go), whose context cancel
	// cancels. Any task may block outside the scheduler in a bubble (a sleep
	// in a reconcile): goid is its goroutine's id (caller.go, outside.go).
	outside bool
	goid    uint64
	cancel  func()
	// user: a goroutine that code under test started itself, adopted at
	// its first call into the simulator (adopt.go); g is its runtime g
	// (getg), site where it was created.
	user   bool
	g      uintptr
	site   string
	asking string // what its call into the simulator asks, where its hook says (JoinAsking)
	parent *Task  // the task that created it, when Join named no group
	kills  int    // its group's KillGroup count when it arrived (adopt.go)
}

// Name is the task's name, as given to Go.
func (t *Task) Name() string { return t.name }

// Group is the task's group (the process it belongs to).
func (t *Task) Group() string { return t.group }

// Done reports whether the task has ended (returned or killed).
func (t *Task) Done() bool { return t.state == done }

// Killed reports whether the task was killed.
func (t *Task) Killed() bool { return t.killed }

// errKilled unwinds the stack of a killed task.
var errKilled = errors.New("ctrlsim: task killed")

// IsKilled reports whether a recovered panic value is the unwinding of a killed
// task. Code that recovers panics (such as controller-runtime's reconcile handler)
// must re-panic such values.
func IsKilled(r any) bool { return r == errKilled }

// Scheduler runs tasks one at a time on the virtual clock. Which runnable task
// runs next is the Picker's choice; when none can run, the clock advances to the
// next timer. Exactly one goroutine (the kernel's or one task's) runs at any moment.
type Scheduler struct {
	clock   *clock.Clock
	pick    Picker
	tasks   []*Task // live tasks in creation order
	current *Task
	nextID  int
	steps   uint64
	// OnStep, if set, is called in the kernel after every task step.
	OnStep func(t *Task)
	// MaxStepsPerInstant bounds the task steps at one virtual instant; past it the
	// run is livelocked (see Livelock). Default 200,000.
	MaxStepsPerInstant int
	// MaxSteps bounds the task steps of the whole run; past it the run is cut
	// (see Cut). 0: no bound.
	MaxSteps  uint64
	cut       *Cut
	instant   time.Time
	atInstant int
	livelock  *Livelock
	dying     []*Task // killed while blocked outside, rejoined: they unwind next (wait.go)
	stop      bool
	adopting  *adoption // a Host waiting for its goroutines
	settle    func()    // synctest.Wait, in a bubble (outside.go)
	wallSleep func(d time.Duration, wake <-chan struct{}) time.Duration
	inClock   bool // RunUntil is moving the clock: the follower may stop short (outside.go)
	out       outsideState
	running   atomic.Uint64  // the goroutine that runs now, kernel's or task's (caller.go)
	runningG  atomic.Uintptr // its runtime g (getg): the fast test of checkCaller
	hostG     atomic.Uintptr // Host's start goroutine while Host waits for it (host.go)
	goNames   map[string]int // goroutines adopted per group, for their names (adopt.go)
}

// Livelock is a run that stopped because tasks kept running without virtual time
// advancing. API calls take virtual time (sim/cluster's Timing), so a controller
// whose writes requeue it spends time and is judged by its rate (a hot loop, in
// sim/cluster); a livelock is the harness's guard against tasks that spin without
// ever waiting: a real process would spin at wall-clock speed, the simulator
// cannot advance, so it stops the run and reports it.
type Livelock struct {
	At    time.Time
	Steps int
	Tasks []string // the tasks runnable at that instant, in creation order
}

func (l *Livelock) String() string {
	return fmt.Sprintf("livelock: %d task steps at one virtual instant without time advancing (tasks %v): they spin without waiting", l.Steps, l.Tasks)
}

// New returns a scheduler on clock c choosing with pick, and installs itself as
// c's sleeper: a Sleep inside a task waits in virtual time.
func New(c *clock.Clock, pick Picker) *Scheduler {
	s := &Scheduler{clock: c, pick: pick}
	s.running.Store(goid()) // the kernel's goroutine (caller.go)
	s.runningG.Store(getg())
	c.SetTaskCheck(func() bool { return s.current != nil })
	c.SetSleeper(func(d time.Duration) {
		if s.current == nil {
			c.Step(d) // the kernel itself sleeping: just move time
			return
		}
		s.Sleep(d)
	})
	return s
}

// Clock is the scheduler's clock.
func (s *Scheduler) Clock() *clock.Clock { return s.clock }

// Current is the running task, or nil in the kernel.
func (s *Scheduler) Current() *Task { s.checkCaller(); return s.current }

// Steps is how many times a task has been run.
func (s *Scheduler) Steps() uint64 { return s.steps }

// Go creates a task running f. It is runnable at once but starts only when the
// kernel picks it. group names the process the task belongs to (see KillGroup).
func (s *Scheduler) Go(group, name string, f func()) *Task {
	s.nextID++
	t := &Task{id: s.nextID, name: name, group: group, s: s, resume: make(chan bool), yield: make(chan struct{}), state: runnable}
	s.tasks = append(s.tasks, t)
	go t.run(f)
	<-t.yield // its goroutine id is known
	s.know(t)
	return t
}

func (t *Task) run(f func()) {
	defer func() {
		r := recover()
		if r != nil && r != errKilled {
			t.fault = r
		}
		t.state = done
		t.yield <- struct{}{}
	}()
	t.goid, t.g = goid(), getg() // (caller.go, outside.go)
	t.yield <- struct{}{}        // started: Go returns
	if !<-t.resume {
		panic(errKilled)
	}
	f()
}

// switchTo runs t until it stops (yields, blocks, ends or dies). It is called
// from whichever goroutine currently runs: the kernel, or a task killing another.
// Each task signals on its own channel, so a nested switch (a task resuming
// another to kill it) cannot take the signal meant for the kernel.
func (s *Scheduler) switchTo(t *Task, alive bool) {
	if t.state == done {
		panic(fmt.Sprintf("ctrlsim: resuming task %s, which has ended (killed=%v)", t.name, t.killed))
	}
	prev := s.current
	s.current = t
	running, runningG := s.running.Load(), s.runningG.Load()
	defer func() { s.running.Store(running); s.runningG.Store(runningG) }()
	s.running.Store(t.goid)
	s.runningG.Store(t.g)
	t.resume <- alive
	if alive && s.settle != nil {
		// In a bubble, the kernel resuming a task tells a task that parked
		// from one that blocked outside (a sleep, a timer, a poll: outside.go).
		if !s.resumeOutside(t) {
			s.current = prev
			return
		}
	} else {
		<-t.yield
	}
	s.current = prev
	if t.state == done {
		s.remove(t)
		if t.fault != nil {
			panic(fmt.Sprintf("ctrlsim: task %s panicked: %v", t.name, t.fault))
		}
	}
}

func (s *Scheduler) remove(t *Task) {
	for i, x := range s.tasks {
		if x == t {
			s.tasks = append(s.tasks[:i:i], s.tasks[i+1:]...)
			return
		}
	}
}

// park gives control back to whoever resumed the current task and waits to be
// resumed. It panics (unwinding the task) if the task is killed meanwhile.
func (s *Scheduler) park() {
	t := s.current
	if t == nil {
		panic("ctrlsim: a blocking call outside a task (kernel code must not block)")
	}
	if t.adopted && t.killed {
		return // unwinding: its deferred calls do not wait (see Host)
	}
	t.yield <- struct{}{}
	if !<-t.resume {
		if t.adopted {
			runtime.Goexit() // deferred calls run; EndIfKilled hands control back
		}
		t.unwind()
	}
}

// unwind ends a killed task from inside it: a panic that its run recovers, or
// for a task running code of its own outside the simulator (a manager
// Runnable) runtime.Goexit, which that code's recover() (client-go's
// HandleCrash in wait.Until) does not see and log as a crash. An adopted task
// (a worker, killed while it waited outside: outside.go) leaves with Goexit
// too, as in park.
func (t *Task) unwind() {
	if t.outside || t.adopted {
		runtime.Goexit()
	}
	panic(errKilled)
}

// CheckAlive panics with the kill signal if the current task has been killed. Hooks
// call it so that a killed task's deferred calls never take effect.
func (s *Scheduler) CheckAlive() {
	s.checkCaller()
	if t := s.current; t != nil && t.killed && !t.adopted {
		t.unwind()
	}
}

// Yield lets the kernel run other tasks; the current task stays runnable.
func (s *Scheduler) Yield() {
	s.checkCaller()
	if s.unwinding() {
		return
	}
	s.CheckAlive()
	s.park()
}

// Sleep blocks the current task for d of virtual time.
func (s *Scheduler) Sleep(d time.Duration) {
	s.checkCaller()
	if s.unwinding() {
		return
	}
	s.CheckAlive()
	t := s.current
	if t == nil {
		panic("ctrlsim: Sleep outside a task")
	}
	t.state = sleeping
	t.timer = s.clock.AfterFunc(d, func() {
		if t.state == sleeping {
			t.state = runnable
		}
	})
	s.park()
}

// WaitUntil blocks the current task until ready() is true, and returns only when it
// is true at the moment the task resumes. Conditions are evaluated by the kernel
// between steps, so ready must only read kernel state.
func (s *Scheduler) WaitUntil(ready func() bool) {
	s.checkCaller()
	if s.unwinding() {
		return
	}
	s.CheckAlive()
	if ready() {
		return
	}
	t := s.current
	if t == nil {
		panic("ctrlsim: WaitUntil outside a task")
	}
	t.state = waiting
	t.cond = ready
	s.park()
}

// Kill ends t: it never runs again; its deferred functions run now, and any
// kernel call they make (client calls, sleeps) unwinds instead of taking effect.
// Killing the current task unwinds the caller.
func (s *Scheduler) Kill(t *Task) {
	if t.state == done || t.killed {
		return
	}
	t.killed = true
	if t.state == blockedOutside {
		return // it never runs again; Close ends its goroutine
	}
	if t.user {
		s.freeze(t) // adopt.go
		return
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	if t == s.current {
		if t.adopted {
			runtime.Goexit()
		}
		t.unwind()
	}
	s.switchTo(t, false)
}

// KillGroup kills every task of group, the current one last.
func (s *Scheduler) KillGroup(group string) {
	s.out.mu.Lock()
	if s.out.kills == nil {
		s.out.kills = map[string]int{}
	}
	s.out.kills[group]++ // goroutines that arrived and are not adopted yet die too (adopt.go)
	s.out.mu.Unlock()
	var self *Task
	for _, t := range append([]*Task(nil), s.tasks...) {
		if t.group != group {
			continue
		}
		if t == s.current {
			self = t
			continue
		}
		s.Kill(t)
	}
	if self != nil {
		s.Kill(self)
	}
}

// Tasks returns the live tasks in creation order.
func (s *Scheduler) Tasks() []*Task { return append([]*Task(nil), s.tasks...) }

// wake makes waiting tasks whose condition holds runnable. The condition stays
// attached until the task resumes: another task may falsify it first.
func (s *Scheduler) wake() {
	for _, t := range s.tasks {
		if t.state == waiting && t.cond() {
			t.state = runnable
		}
	}
}

// runnable returns the runnable tasks in creation order.
func (s *Scheduler) runnableTasks(buf []*Task) []*Task {
	buf = buf[:0]
	for _, t := range s.tasks {
		if t.state == runnable {
			buf = append(buf, t)
		}
	}
	return buf
}

// Livelock returns the livelock that stopped the run, or nil.
func (s *Scheduler) Livelock() *Livelock { return s.livelock }

// Cut is a run stopped at its work bound (MaxSteps): tasks kept running while
// virtual time advanced, more work than the run is allowed. Unlike a livelock
// it is not a fault of the code under test by itself (a storm driven by a
// stalled watch makes as much work, and a real cluster would do it too); it
// bounds what one run may cost, and the harness says the run was cut rather
// than judging a world that never reached its end.
type Cut struct {
	At    time.Time
	Steps uint64
	// Why is the bound it passed: "" for MaxSteps, else what CutNow was told.
	Why string
}

// Cut returns the work bound that stopped the run, or nil.
func (s *Scheduler) Cut() *Cut { return s.cut }

// CutNow cuts the run at another bound of its work (why says which): it stops
// before its next step, as at MaxSteps, and does not run again. A harness
// calls it from OnStep or a callback.
func (s *Scheduler) CutNow(why string) {
	if s.cut == nil {
		s.cut = &Cut{At: s.clock.Now(), Steps: s.steps, Why: why}
	}
}

// RunUntil runs tasks and fires timers until virtual time reaches until with no
// task runnable, then sets the clock to until. It must be called from the kernel.
// A livelocked or cut run does not run again.
func (s *Scheduler) RunUntil(until time.Time) {
	if s.current != nil {
		panic("ctrlsim: RunUntil inside a task")
	}
	if s.livelock != nil || s.cut != nil {
		return
	}
	s.running.Store(goid()) // whichever goroutine runs the kernel (caller.go)
	s.runningG.Store(getg())
	limit := s.MaxStepsPerInstant
	if limit == 0 {
		limit = 200_000
	}
	var buf []*Task
	for {
		if s.stop {
			s.stop = false
			return
		}
		if s.cut != nil {
			return
		}
		s.endDying()
		s.wake()
		buf = s.runnableTasks(buf)
		if len(buf) > 0 {
			t := buf[0]
			if len(buf) > 1 {
				t = buf[s.pick.IntN(len(buf))]
			}
			if t.cond != nil {
				if !t.cond() {
					t.state = waiting // another task took what it waited for
					continue
				}
				t.cond = nil
			}
			if s.MaxSteps > 0 && s.steps >= s.MaxSteps {
				s.cut = &Cut{At: s.clock.Now(), Steps: s.steps}
				return
			}
			s.steps++
			if now := s.clock.Now(); now.Equal(s.instant) {
				s.atInstant++
				if s.atInstant > limit {
					s.livelock = &Livelock{At: now, Steps: s.atInstant}
					for _, x := range s.tasks {
						if x.state == runnable {
							s.livelock.Tasks = append(s.livelock.Tasks, x.name)
						}
					}
					return
				}
			} else {
				s.instant, s.atInstant = now, 1
			}
			s.switchTo(t, true)
			if s.OnStep != nil {
				s.OnStep(t)
			}
			continue
		}
		next, ok := s.clock.Next()
		if !ok || next.After(until) {
			if s.clock.Now().Before(until) {
				s.moveClock(func() { s.clock.AdvanceTo(until) })
				if s.clock.Now().Before(until) {
					continue // stopped short: the tasks that rejoined run first (outside.go)
				}
			}
			return
		}
		s.moveClock(func() { s.clock.FireNext() })
	}
}

// moveClock runs move (a step of the clock) as the only place where the
// follower may stop short for tasks rejoining from outside (outside.go).
func (s *Scheduler) moveClock(move func()) {
	s.inClock = true
	move()
	s.inClock = false
}

// Stop makes the running RunUntil return before its next step or timer, with the
// clock where it is; a harness calls it from a callback to end a run at an event.
// Outside RunUntil it stops the next one at once.
func (s *Scheduler) Stop() { s.stop = true }

// RunFor runs for d of virtual time from now.
func (s *Scheduler) RunFor(d time.Duration) { s.RunUntil(s.clock.Now().Add(d)) }

// Close kills every remaining task so that no goroutine outlives the run.
func (s *Scheduler) Close() {
	s.out.mu.Lock()
	s.out.closing = true // goroutines calling in from now on are killed as they arrive (adopt.go)
	s.out.mu.Unlock()
	if s.settle != nil {
		s.settle()
		s.collect() // woken and waiting to rejoin: killed below
		s.endDying()
	}
	for _, t := range append([]*Task(nil), s.tasks...) {
		if t.state == blockedOutside && t.cancel != nil {
			s.closeOutside(t)
			s.remove(t)
		}
	}
	s.closeWaiting()
	s.closeUser() // adopt.go
	for len(s.tasks) > 0 {
		s.Kill(s.tasks[0])
		if len(s.tasks) > 0 && s.tasks[0].killed {
			s.remove(s.tasks[0])
		}
	}
}
