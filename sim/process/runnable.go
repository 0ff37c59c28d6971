package process

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// addRunnable runs a Runnable other than a controller (mgr.Add of a
// RunnableFunc, a cache warmer, a leader-election runnable): its Start runs as
// a task of the process, picked by the kernel like any other, with the
// process's client calls as its yield points, until it returns or blocks on
// something the scheduler does not see (its context's Done, a channel of its
// own), where it stays, or on a timer, which wakes it at its instant of
// virtual time: the scheduler's GoOutside, which needs a
// testing/synctest bubble (package wallclock, as operatortest runs every
// plan). One that needs leader election (every Runnable but a
// LeaderElectionRunnable that says no) waits until the incarnation leads. A Start that returns an error stops the manager, and the
// process exits 1 and restarts, as a main that returns mgr.Start's error.
func (m *Manager) addRunnable(r manager.Runnable) error {
	p := m.p
	if !m.leading && needsLeader(r) {
		m.waiting = append(m.waiting, r)
		return nil
	}
	m.runnables++
	name := fmt.Sprintf("%s/runnable#%d", p.spec.Name, m.runnables)
	what := fmt.Sprintf("%T", r)
	_, err := p.env.Scheduler.GoOutside(p.spec.Name, name, func(ctx context.Context) {
		p.record(trace.Step{Op: "runnable", Object: name, Result: "start " + what})
		err := r.Start(ctx)
		if p.env.Scheduler.Killed() || m.stopped.Load() {
			return
		}
		if err != nil {
			p.record(trace.Step{Op: "runnable", Object: name, Result: "error: " + err.Error()})
			p.Exit(1)
			return
		}
		p.record(trace.Step{Op: "runnable", Object: name, Result: "returned"})
	})
	if err != nil {
		return fmt.Errorf("ctrlsim: process %s: manager.Add(%s): %w", p.spec.Name, what, err)
	}
	return nil
}
