package scheduler

import (
	"fmt"
	"runtime"
)

// Hosting code that starts its own goroutines.
//
// controller-runtime's controller starts its MaxConcurrentReconciles workers
// with `go` statements the simulator cannot change. Host runs such code and
// adopts the goroutines it starts as tasks: each announces itself, at its first
// call into the simulator (a worker's first Queue.Get), by calling Adopt, which
// makes it a task and parks it until the kernel picks it. Host returns only when
// the expected number of goroutines have been adopted, so the task list is the
// same in every run: the adopted goroutines run identical code, and they are
// numbered in arrival order. Between its start and its Adopt, a hosted goroutine
// must not touch kernel state (a controller-runtime worker only calls Get).
//
// An adopted task ends differently from a task started with Go: it has no
// function of the scheduler at the bottom of its stack. Killed, it leaves with
// runtime.Goexit (its deferred functions run, and no recover stops it: the
// reconcile handler's panic recovery does not turn the kill into an error), and
// its code must call EndIfKilled at its last contact with the simulator (a
// worker's deferred Queue.Done, or the deferred end of a Get it was killed in);
// from then on the goroutine runs no code that touches kernel state. While it
// unwinds, kernel calls of a killed adopted task do nothing: Yield, Sleep and
// WaitUntil return at once, and hooks that ask Killed refuse their calls.

type adoption struct {
	group, name string
	arrived     chan *Task
}

// Host runs start on a goroutine of its own and waits until n goroutines it
// starts have called Adopt (or start returns first: an error); it returns their tasks, numbered name#1..name#n in
// arrival order and belonging to group. It is called from the kernel or from a
// task (which then waits, holding its turn). start itself is not a task: it
// must not touch kernel state after it has started the n goroutines, except
// through code that checks the process is gone (a stopped logger).
func (s *Scheduler) Host(group, name string, n int, start func() error) ([]*Task, error) {
	if s.adopting != nil {
		panic("ctrlsim: Host called while another Host is adopting")
	}
	a := &adoption{group: group, name: name, arrived: make(chan *Task)}
	s.adopting = a
	returned := make(chan error, 1)
	go func() {
		// The caller waits for start: its calls into the simulator
		// (controller-runtime's Start logging) are the caller's own
		// (hostG while Host waits, helper by id after).
		s.hostG.Store(getg())
		s.helper()
		returned <- start()
	}()
	defer s.hostG.Store(0)
	tasks := make([]*Task, 0, n)
	for len(tasks) < n {
		var t *Task
		select {
		case t = <-a.arrived:
		case err := <-returned:
			// It ended before starting its goroutines (an error, or a bug of
			// the hosted code): the ones that arrived are killed.
			s.adopting = nil
			for _, t := range tasks {
				s.Kill(t)
			}
			return nil, fmt.Errorf("%s returned before starting its %d goroutines: %v", name, n, err)
		}
		s.nextID++
		t.id, t.name, t.group, t.s = s.nextID, fmt.Sprintf("%s#%d", name, len(tasks)+1), group, s
		s.tasks = append(s.tasks, t)
		tasks = append(tasks, t)
		s.know(t)
	}
	s.adopting = nil
	return tasks, nil
}

// Adopting reports whether a Host is waiting for goroutines: a caller that is
// not a task yet (a hosted worker's first queue call) must then call Adopt.
func (s *Scheduler) Adopting() bool { return s.adopting != nil }

// Adopt makes the calling goroutine (started by the code a Host runs) a task
// and parks it until the kernel picks it. If the task is killed before it ever
// runs, it leaves with runtime.Goexit (see EndIfKilled).
func (s *Scheduler) Adopt() {
	t := &Task{resume: make(chan bool), yield: make(chan struct{}), state: runnable, adopted: true}
	t.goid, t.g = goid(), getg() // (caller.go, outside.go)
	s.adopting.arrived <- t
	if !<-t.resume {
		runtime.Goexit()
	}
}

// EndIfKilled ends the current task if it is an adopted task that was killed
// and is unwinding: control goes back to whoever killed it, and the goroutine
// must touch no kernel state afterwards. Hosted code calls it, deferred, at its
// last contact with the simulator. It does nothing otherwise, and at most once.
func (s *Scheduler) EndIfKilled() {
	if s.unwinding() {
		s.EndAdopted()
	}
}

// EndAdopted ends the current adopted task: control goes back to whoever ran
// it, for good. Hosted code calls it where its goroutine leaves the simulator
// for good (a worker whose Get reports shutdown).
func (s *Scheduler) EndAdopted() {
	t := s.current
	if t == nil || !t.adopted || t.state == done {
		return
	}
	t.state = done
	t.yield <- struct{}{}
}

// unwinding: the current task is an adopted task that was killed.
func (s *Scheduler) unwinding() bool {
	t := s.current
	return t != nil && t.adopted && t.killed
}

// Killed reports whether the current task has been killed and is unwinding. A
// hook refuses the calls of such a task (an adopted task's deferred calls run
// after its kill; a task started with Go never returns from a kernel call once
// killed).
func (s *Scheduler) Killed() bool { s.checkCaller(); t := s.current; return t != nil && t.killed }
