package reference

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Blind time is not downtime, and it is not stale data.
//
// A process can be up and still not see the world as it is: its watch is
// held, or lags, or it restarted onto an apiserver whose watch cache is
// behind (a stale restart: its informers list the state as it was some time
// earlier and get each change that much later). An object made after the
// instant its view shows is not there for it; a change made after it has not
// happened. What a correct operator does then is what it would do on a
// cluster whose user made those changes later: nothing for an object it does
// not see (as while it is down), and what the version it sees asks for. A
// time-driven operator misses a scheduled instant so, and by design skips
// that run, or makes it late, or makes it at the interval the version it sees
// has, which changes the Jobs it makes and their counts. That is what a real
// cluster does to correct code, and the fault-free runs do not show it.
//
// The line between blindness and stale data is whose write the view is
// behind on. A view behind the world's writes (the user's, the built-in
// controllers') is blindness: the operator acts on the world as it last saw
// it, and a correct operator may. A view behind the operator's own writes is
// stale data: a correct operator does not trust its cache to show what it
// made or recorded, since nothing on a real cluster promises it (the
// canary's child Secret made twice because the cache does not show the
// first; a schedule's run made again because the cache shows the status from
// before the run was recorded; a restarted incarnation that does not see
// what the one before it did and does it again). Sieve's stale-state bugs
// are of this kind: the new incarnation sees a state from before what the
// operator itself did, and acts on it. Those are findings.
//
// So the reference for blind time keeps the views and drops the rest: the
// fault-free run of the same workload in which each operator process's
// informers are behind the world's writes as the faulted run's were (the
// same stale restarts, as a start onto the same lagging apiserver, without
// the crash; the same held and lagging watches) but show the process each of
// its own writes, every incarnation's, as soon as it has the response
// (plan.Blind), with its process-down windows as clean stops
// (downtime.go), and no crash mid-reconcile, API fault, latency, worker count
// or workload fault. A difference it also shows is the blindness's doing (or
// the downtime's); one that needs the operator to miss its own writes, or a
// crash's intermediate state, is still blamed on the faults; and the same
// reference with neither downtime nor blindness (the same restarts, at once)
// must not show it (downtime.go).
//
// Blindness excuses only what the clock makes of it. An operator that acts
// on events alone (it never asks to be reconciled again after a time) sees
// a change late under a held or lagging watch, or a stale restart, but once
// its view has caught up it reconciles on the world as it is, and a correct
// one ends as the fault-free runs do (or fails by design: frozen.go): the
// order in which it saw the user's writes is no excuse for an output that
// still shows a change the user overwrote (an operator that gives up on a
// missing dependency with no error, having seen the deletion before the
// edit that came first, operatortest/verdict/frozen_test.go). A time-driven operator (a reconcile
// of its process returned "requeue after": it acts at instants the clock
// sets) cannot make up what it did not see at an instant that has passed: a
// scheduled run skipped or made by the version it saw. So the blind time of
// a run is that of its time-driven operator processes only; an operator
// process that acts on events gets the fault-free run of its downtime alone.

// BlindOf are the views of r, a faulted run of p, that were behind the
// world's writes, as the faults of the fault-free run of the same blind
// time: for each stale restart of an operator process (its "stale" step), a
// blind fault that starts it onto the same lagging apiserver; the holds,
// lags and unobserved windows of its watches as they were; and a blind fault for each such process,
// so that it sees its own writes at once; of its time-driven processes
// only (clockDriven).
func BlindOf(w *world.World, p *plan.Plan, r *world.RunResult) []plan.Fault {
	timed := clockDriven(r)
	var out []plan.Fault
	blind := map[string]bool{}
	// Each stale restart step is its process's next stale fault, in time
	// order: the blind start replays its view (age, kind=, rev=).
	stales := map[string][]plan.Fault{}
	for _, f := range p.Faults {
		if f.Kind == plan.Stale {
			stales[f.Process] = append(stales[f.Process], f)
		}
	}
	for _, fs := range stales { // lint:order-independent sorts each list
		slices.SortStableFunc(fs, func(a, b plan.Fault) int { return cmp.Compare(a.At, b.At) })
	}
	for _, s := range r.Steps {
		if s.Op != "stale" || !w.Operators[s.Process] || !timed[s.Process] {
			continue
		}
		fs := stales[s.Process]
		if len(fs) > 0 {
			x := fs[0]
			stales[s.Process] = fs[1:]
			out = append(out, plan.Fault{Kind: plan.Blind, Process: s.Process, At: s.At, Age: x.Age, Resource: x.Resource, Rev: x.Rev})
			blind[s.Process] = true
		} else if age, ok := staleAge(s.Result); ok {
			out = append(out, plan.Fault{Kind: plan.Blind, Process: s.Process, At: s.At, Age: age})
			blind[s.Process] = true
		}
	}
	var views []plan.Fault
	for _, f := range p.Faults {
		if (f.Kind == plan.Hold || f.Kind == plan.Lag || f.Kind == plan.Unobserved) && w.Operators[f.Process] && timed[f.Process] {
			views = append(views, f)
			if !blind[f.Process] {
				blind[f.Process] = true
				out = append(out, plan.Fault{Kind: plan.Blind, Process: f.Process})
			}
		}
	}
	return append(out, views...)
}

// clockDriven are the processes of r that act by the clock: one of their
// reconciles returned "requeue after" a time.
func clockDriven(r *world.RunResult) map[string]bool {
	out := map[string]bool{}
	for _, s := range r.Steps {
		if s.Op == "result" && strings.HasPrefix(s.Result, "requeue after ") {
			out[s.Process] = true
		}
	}
	return out
}

// staleAge reads a stale restart's step ("its informers list and watch
// through an apiserver 30s behind until 30.538s"): the age.
func staleAge(result string) (time.Duration, bool) {
	words := strings.Fields(result)
	for i, w := range words {
		if w == "apiserver" && i+1 < len(words) {
			age, err := time.ParseDuration(words[i+1])
			return age, err == nil && age > 0
		}
	}
	return 0, false
}
