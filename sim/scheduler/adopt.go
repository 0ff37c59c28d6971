package scheduler

import (
	"bytes"
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Goroutines that code under test starts itself.
//
// A Runnable that starts a poller with `go poll(ctx)`, a Setup that starts a
// watcher, controller-runtime's source.Channel (a goroutine that reads the
// operator's channel and one that hands its events to the controller's
// queue): none of these goroutines was started by the scheduler, and nothing
// can make Go hand them over at their `go` statement. Inside a
// testing/synctest bubble (SetSettle) the scheduler adopts each one at its
// first call into the simulator, as it takes back a task that woke outside
// (outside.go):
//
//   - Every call into the simulator first asks whether the caller is the
//     goroutine the scheduler runs (its runtime g, read in a nanosecond:
//     getg). A goroutine that is not, and is no task blocked outside,
//     arrives: it parks at once, before touching the kernel's state, and
//     stops the clock's follower at this instant.
//   - It belongs to the group (the process) whose hook it called (Join, from
//     the process's client, queue and REST config), or else to the group of
//     the task that created it (the "created by ... in goroutine N" of its
//     own stack), or, through a hook that names no group (JoinLineage), to
//     the group of its nearest ancestor that is a task. Called through the hook of an incarnation that has ended,
//     or created by a task that was killed, it arrives dead: it never runs
//     (a killed process's goroutines do nothing more, as with SIGKILL).
//   - After its next settle, when every goroutine of the bubble has either
//     called in or blocked, the kernel adopts the goroutines that arrived:
//     sorted by where they were created (function, file and line), then by
//     what their call asks (JoinAsking: a request, a client call, a
//     queue's call naming its queue), then by
//     goroutine id, numbered in that order (<group>/go#N), runnable from
//     then on like any task and picked by the plan. Their calls are traced as
//     their process's. Adopted goroutines of one place and group that rejoin
//     at one settle take their places in the order of what they ask
//     (outside.go's canonical): which of a workqueue's workers woke with
//     which item is Go's scheduler's choice, what they ask is the run's.
//   - Killed with their group (KillGroup: a crash, a stop), they are frozen:
//     parked where they are, never resumed. One blocked outside when killed
//     is frozen when it next calls in. Close unwinds them with
//     runtime.Goexit: their deferred calls run, and the simulator refuses
//     the ones that call into it.
//
// A goroutine that the running one waits for acts as the running one: the
// goroutine Host runs its start function on (controller-runtime's controller
// Start, while Host waits for its workers), and, while Helped runs, the
// goroutines created at the site it names (controller-runtime's Kind source
// registering its handler while the controller waits for it to sync).

// Join is the entry of a hook of group (a process's client, queue, REST
// config): a goroutine that the scheduler does not know is adopted into
// group, or, if dead (the hook's incarnation has ended), frozen at once.
// It costs a comparison for the running goroutine.
func (s *Scheduler) Join(group string, dead bool) {
	if s.settle == nil || getg() == s.runningG.Load() {
		return
	}
	s.arrive(group, dead)
}

// JoinAsking is Join for a hook that knows what the call asks (a request's
// verb, object and body): goroutines of one group created at one place
// that arrive, or rejoin, at one settle are ordered by what they ask, not
// by the order Go's scheduler ran them in. Several workers of a client-go
// workqueue of the operator's own, woken at one instant, take its items in
// the order Go's scheduler runs them (under -race, at random), and the
// worker that asks for the first item is then the first of them in every
// run (collect's canonical order).
func (s *Scheduler) JoinAsking(group string, dead bool, asking string) {
	if !s.Joining() {
		return
	}
	s.arriveFrom(group, dead, asking, false)
}

// Joining reports whether a Join of the calling goroutine would do anything
// (in a bubble, from a goroutine other than the one the scheduler runs): a
// hook whose asking text costs work builds it only then.
func (s *Scheduler) Joining() bool { return s.settle != nil && getg() != s.runningG.Load() }

// JoinLineage is Join for a hook that names no group (a request to the
// server of the kubeconfig a world's bubble names, which the process finds
// from its caller): a goroutine that the scheduler does not know is adopted
// into the group of its nearest ancestor that is a task (its creator, or
// its creator's creator, and so on: client-go's informer starts its
// reflector from a goroutine of its own that never calls in), frozen if that
// task was killed; with no such ancestor it is no task's. Finding an
// ancestor past the creator reads every goroutine's stack, once for each
// goroutine that arrives so. asking is what the call asks, as for
// JoinAsking, and a task blocked outside that calls through such a hook
// rejoins asking it: an informer factory starts its informers (and so their
// reflectors) in Go map order, and the resource each reflector lists first
// tells them apart in every run; several workers of one workqueue woken at
// one instant are told apart by the request each makes for its item.
func (s *Scheduler) JoinLineage(asking string) {
	if s.settle == nil || getg() == s.runningG.Load() {
		return
	}
	s.arriveFrom("", false, asking, true)
}

// Helped runs f, for whose goroutines the calling one waits: the calls into
// the simulator of goroutines created at site (a function name, or its
// prefix: "sigs.k8s.io/controller-runtime/pkg/internal/source.(*Kind") while
// f runs are the caller's own (they run while it is blocked), not goroutines
// to adopt. Other goroutines are adopted as ever.
func (s *Scheduler) Helped(site string, f func()) {
	s.out.mu.Lock()
	prev := s.out.helpSite
	s.out.helpSite = site
	s.out.mu.Unlock()
	defer func() {
		s.out.mu.Lock()
		s.out.helpSite = prev
		clear(s.out.helpG) // a g may be reused once its goroutine ends
		s.out.mu.Unlock()
	}()
	f()
}

// helper marks the calling goroutine as one that acts as whoever waits for
// it (Host's start goroutine): it is never adopted.
func (s *Scheduler) helper() {
	id := goid()
	s.out.mu.Lock()
	if s.out.helpers == nil {
		s.out.helpers = map[uint64]bool{}
	}
	s.out.helpers[id] = true
	s.out.mu.Unlock()
}

// arrive handles a call into the simulator from a goroutine other than the
// running one: a task blocked outside rejoins; a goroutine of code under test
// the scheduler does not know parks until it is adopted (see above).
func (s *Scheduler) arrive(group string, dead bool) { s.arriveFrom(group, dead, "", false) }

// arriveFrom is arrive; with lineage, a goroutine with no group whose
// creator is no task takes its nearest ancestor task as its parent
// (JoinLineage).
func (s *Scheduler) arriveFrom(group string, dead bool, asking string, lineage bool) {
	g := getg()
	if g == s.hostG.Load() {
		return // Host's start goroutine, while Host waits for it
	}
	s.out.mu.Lock()
	if s.out.helpG[g] {
		s.out.mu.Unlock()
		return // a helper of the running goroutine (Helped), already told
	}
	id := goid()
	if t := s.out.byGoid[id]; t != nil {
		t.asking = asking
		s.rejoinLocked(t)
		return
	}
	if s.out.helpers[id] || s.out.foreign[id] || s.out.known[id] != nil {
		// A helper of the running goroutine; a goroutine that is no task's
		// (started by the kernel, another scheduler's, the test's own); a
		// task that runs while not scheduled (Close's unwinding).
		s.out.mu.Unlock()
		return
	}
	site, parentID := creation()
	if s.out.helpSite != "" && strings.HasPrefix(site, s.out.helpSite) {
		if s.out.helpG == nil {
			s.out.helpG = map[uintptr]bool{}
		}
		s.out.helpG[g] = true // (alive while Helped runs: its g is its own)
		s.out.mu.Unlock()
		return // a helper of the running goroutine (Helped)
	}
	var parent *Task
	if group == "" {
		parent = s.out.known[parentID]
		if parent == nil && lineage {
			s.out.mu.Unlock()
			creators := lineages() // (every goroutine's stack: outside the lock)
			s.out.mu.Lock()
			for p, seen := creators[parentID], 0; p != 0 && parent == nil && seen < len(creators); p, seen = creators[p], seen+1 {
				parent = s.out.known[p]
			}
		}
		if parent == nil {
			if s.out.foreign == nil {
				s.out.foreign = map[uint64]bool{}
			}
			s.out.foreign[id] = true
			s.out.mu.Unlock()
			return
		}
		group = parent.group // (whether it was killed, the kernel asks: adopt)
	}
	t := &Task{resume: make(chan bool), yield: make(chan struct{}), state: runnable, adopted: true, user: true,
		group: group, goid: id, g: g, site: site, asking: asking, killed: dead || s.out.closing, parent: parent,
		kills: s.out.kills[group]}
	s.out.arrived = append(s.out.arrived, t)
	s.knowLocked(t)
	s.out.mu.Unlock()
	s.stopFollower()
	if !<-t.resume {
		runtime.Goexit() // killed before it ever ran: its deferred calls run
	}
}

// know records t's goroutine: the parent of goroutines it starts.
func (s *Scheduler) know(t *Task) {
	s.out.mu.Lock()
	s.knowLocked(t)
	s.out.mu.Unlock()
}

func (s *Scheduler) knowLocked(t *Task) {
	if s.out.known == nil {
		s.out.known = map[uint64]*Task{}
	}
	s.out.known[t.goid] = t
}

// adopt makes the goroutines that arrived tasks, in the order of where they
// were created, then of what they first asked (JoinAsking), then of their goroutine ids (which follow creation order
// within one step of their parent). It runs in the kernel after a settle.
func (s *Scheduler) adopt(arrived []*Task) {
	slices.SortFunc(arrived, func(a, b *Task) int {
		return cmp.Or(cmp.Compare(a.site, b.site), cmp.Compare(a.asking, b.asking), cmp.Compare(a.goid, b.goid))
	})
	for _, t := range arrived {
		if s.goNames == nil {
			s.goNames = map[string]int{}
		}
		s.goNames[t.group]++
		s.nextID++
		t.id, t.s = s.nextID, s
		t.name = fmt.Sprintf("%s/go#%d", t.group, s.goNames[t.group])
		if t.parent != nil && t.parent.killed {
			t.killed = true // started by a task of a killed incarnation
		}
		s.out.mu.Lock()
		if s.out.kills[t.group] != t.kills {
			t.killed = true // its group was killed since it arrived
		}
		s.out.mu.Unlock()
		if t.killed {
			t.state = frozen
		}
		s.tasks = append(s.tasks, t)
	}
}

// freeze ends a killed goroutine of code under test: it is never resumed
// (Close unwinds it). Killed by its own call (a crash planned there), it parks
// for good.
func (s *Scheduler) freeze(t *Task) {
	if t.timer != nil {
		t.timer.Stop()
	}
	t.cond = nil
	t.state = frozen
	if t == s.current {
		t.yield <- struct{}{}
		<-t.resume
		runtime.Goexit()
	}
}

// closeUser unwinds the goroutines of code under test that are parked
// (frozen or not), and those that arrive meanwhile, one at a time: each
// leaves with runtime.Goexit, its deferred calls refused by the simulator.
func (s *Scheduler) closeUser() {
	if s.settle == nil {
		return
	}
	for {
		s.settle()
		s.collect()
		s.endDying()
		ended := false
		for _, t := range append([]*Task(nil), s.tasks...) {
			if !t.user || t.state == blockedOutside || t.state == done {
				continue
			}
			t.killed = true
			if t.timer != nil {
				t.timer.Stop()
			}
			prev := s.current
			s.current = t
			running, runningG := s.running.Load(), s.runningG.Load()
			s.running.Store(t.goid)
			s.runningG.Store(t.g)
			t.resume <- false
			s.settle() // it has ended, or blocked on something of its own
			s.current = prev
			s.running.Store(running)
			s.runningG.Store(runningG)
			t.state = done
			s.remove(t)
			ended = true
		}
		if !ended {
			return
		}
	}
}

// lineages maps each goroutine's id to its creator's (0 for none), from
// every goroutine's stack.
func lineages() map[uint64]uint64 {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	creators := map[uint64]uint64{}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		head, _, _ := bytes.Cut(g, []byte(" ["))
		id, err := strconv.ParseUint(string(bytes.TrimPrefix(head, []byte("goroutine "))), 10, 64)
		if err != nil {
			continue
		}
		i := bytes.LastIndex(g, []byte("\ncreated by "))
		if i < 0 {
			creators[id] = 0
			continue
		}
		line, _, _ := bytes.Cut(g[i+1:], []byte("\n"))
		if j := bytes.LastIndex(line, []byte(" in goroutine ")); j >= 0 {
			creators[id], _ = strconv.ParseUint(string(bytes.TrimSpace(line[j+len(" in goroutine "):])), 10, 64)
		}
	}
	return creators
}
