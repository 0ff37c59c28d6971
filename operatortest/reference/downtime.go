package reference

import (
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The fault-free run of the same downtime. A time-driven operator (a
// CronJob-like schedule whose missed runs are skipped by design) does what
// the clock asks when it is up: a fault that takes its process down across a
// scheduled instant legitimately changes what it makes (the run is skipped,
// or starts late), and the faulted run may then end with Jobs, or counts of
// creates and deletes, that neither fault-free schedule shows. The sound
// reference for such a run keeps the downtime and drops the faults: the
// faulted run's process-down windows (from each crash of an operator's
// process to its next start) replayed as clean stops (plan.Stop: the process
// stops between reconciles, as a graceful shutdown does, and starts again
// when the faulted run's process did), with no crash mid-reconcile, no stale
// view, no other fault. A run skipped in the faulted run is skipped there
// too and not blamed; a crash between two writes leaves an intermediate
// state the clean stop does not (the stop comes before the reconcile the
// crash cut, and would wait for the end of one in flight), and is still
// caught; a run created twice is more creates of one name than any
// reference makes. What the reference excuses is the time down, not the
// restart: a difference it shows is forgiven only when the same restarts
// with no time down do not show it too.
//
// A crash that cut a reconcile has two clean stops that bound it: the stop
// before the cut reconcile (none of its writes made) and the stop after it
// (a graceful shutdown lets the reconcile in hand finish, as
// controller-runtime's manager does within its GracefulShutdownTimeout: all
// of its writes made). The writes that committed before the crash are
// committed for good (kube-apiserver does not undo a write whose response
// was lost), and a time-driven operator's restart may then be past the run's
// deadline: the run made just before the crash stays made, and is not redone
// (the schedule's Job created at 30s, its status not yet written, and the
// restart 10 s late with a 10 s deadline: the Job ran, and counts in the
// history the operator trims, so the run ends with one Job more than the
// stop before it). The faulted run may end as either stop's run, and both
// are tried (the stop after only when the stop before does not excuse the
// difference). A crash between two writes whose intermediate state the
// operator never completes ends as neither (the stop before has no write,
// the stop after both), and is still caught.

// DowntimeOf are the process-down windows of the operator's processes in a
// run's steps, as clean stops: from each crash (or exit) to the next start of
// that process (until 0: not within the run). A crash that cut reconciles
// short opens its window where the first of them began: the clean stop
// comes before them, so that none of their writes is made (a correct
// operator's restart makes what the cut reconcile would have, or skips it as
// the stop's restart does); the writes a cut reconcile did make before the
// crash are its intermediate state, which the reference does not share.
//
// With after, each window opens at the crash itself: the clean stop there
// lets every cut reconcile finish (the stop after them, above).
func DowntimeOf(w *world.World, steps []trace.Step, after bool) []plan.Fault {
	type worker struct {
		process, controller string
		n                   int
	}
	var out []plan.Fault
	open := map[string]int{}                  // process -> index in out of its open window
	reconciling := map[worker]time.Duration{} // a reconcile in flight: when it began
	for _, s := range steps {
		if !w.Operators[s.Process] {
			continue
		}
		k := worker{s.Process, s.Controller, s.Worker}
		switch s.Op {
		case "reconcile":
			reconciling[k] = s.At
		case "result":
			delete(reconciling, k)
		case "crash":
			from := s.At
			for k, at := range reconciling { // lint:order-independent the earliest
				if k.process == s.Process {
					if !after {
						from = min(from, at)
					}
					delete(reconciling, k)
				}
			}
			if _, ok := open[s.Process]; !ok {
				open[s.Process] = len(out)
				out = append(out, plan.Fault{Kind: plan.Stop, Process: s.Process, From: from})
			}
		case "start", "restart":
			if i, ok := open[s.Process]; ok {
				out[i].Until = max(s.At, out[i].From+time.Nanosecond)
				delete(open, s.Process)
			}
		}
	}
	return out
}

// DowntimeReference is the fault-free run of p's workload with the
// downtime and the blind time (blind.go) of r, a faulted run of p (nil when
// no operator process was down or blind); with instant, the same stops each
// followed by a start at once and no blind time (the same restarts, no time
// down or blind); with after, each stop comes after the reconciles its crash
// cut rather than before them (downtimeOf). All are cached as the other
// references are, by their plans.
func DowntimeReference(w *world.World, t *testing.T, p *plan.Plan, r *world.RunResult, instant, after bool) (*verdict.Reference, error) {
	stops := DowntimeOf(w, r.Steps, after)
	blind := BlindOf(w, p, r) // blind.go

	if len(stops)+len(blind) == 0 {
		return nil, nil
	}
	if instant {
		for i := range stops {
			stops[i].Until = stops[i].From + time.Nanosecond
		}
		blind = nil
	}
	ref, err := referenceOf(w, t, &plan.Plan{Seed: p.Seed, Steps: p.Steps, Faults: append(stops, blind...)}, 0)
	if err != nil {
		return nil, err
	}
	d := *ref
	d.Downtime = true
	d.Excuses = nil
	if !instant {
		// The cases of the table it stands for: what it replays.
		if len(stops) > 0 {
			d.Excuses = append(d.Excuses, verdict.SameDowntime)
		}
		if len(blind) > 0 {
			d.Excuses = append(d.Excuses, verdict.SameBlindTime)
		}
		if after && len(stops) > 0 {
			d.Excuses = append(d.Excuses, verdict.StopAfterCut)
		}
	}
	return &d, nil
}

// rejudgeWithDowntime judges again, against the fault-free run of the same
// downtime and blind time as well, the converges and update-summaries
// verdicts of r that the other references leave violated: a difference that
// reference shows too is the downtime's or the blindness's doing, which the
// operator is right to show, unless the same restarts with no time down or
// blind show it as well (then the restart itself is the cause: an operator
// that "starts clean" and re-creates what it made, which no downtime
// excuses). It is run only then (most runs end as a schedule does) and only
// when an operator's process was down or blind.
func rejudgeWithDowntime(w *world.World, t *testing.T, p *plan.Plan, r *world.RunResult, refs []*verdict.Reference, late *verdict.Reference, snap *verdict.Snapshot) error {
	judge := func(v check.Verdict, extra *verdict.Reference) check.Verdict {
		all := append(slices.Clip(refs), extra)
		if v.Property == world.Converges {
			if late != nil {
				all = append(all, late)
			}
			return verdict.Converges(w, all, snap, v.At)
		}
		return verdict.UpdateSummaries(w, all, snap, v.At)
	}
	// [after] is the stop before the cut reconciles (false) or after them
	// (true); each is run once, when first needed.
	var down, instant [2]*verdict.Reference
	reference := func(cache *[2]*verdict.Reference, isInstant, after bool) (*verdict.Reference, error) {
		i := 0
		if after {
			i = 1
		}
		if cache[i] == nil {
			ref, err := DowntimeReference(w, t, p, r, isInstant, after)
			if err != nil || ref == nil {
				return nil, err
			}
			cache[i] = ref
		}
		return cache[i], nil
	}
	for i, v := range r.Verdicts {
		if v.Holds || (v.Property != world.Converges && v.Property != world.UpdateSummaries) {
			continue
		}
		var excusedBy *verdict.Reference
		after := false
		for _, a := range []bool{false, true} {
			ref, err := reference(&down, false, a)
			if err != nil || ref == nil {
				return err
			}
			if judge(v, ref).Holds {
				excusedBy, after = ref, a
				break
			}
		}
		if excusedBy == nil {
			continue
		}
		same, err := reference(&instant, true, after)
		if err != nil {
			return err
		}
		if judge(v, same).Holds {
			r.Verdicts[i].Detail += "\n  (the fault-free run of the same downtime and blind time ends so too, and so does the one of the same restarts with no time down or blind: the restart, not the downtime, makes the difference)"
			r.Verdicts[i] = r.Verdicts[i].Excuse(verdict.SameRestarts)
			continue
		}
		nv := judge(v, excusedBy)
		stop := "where this run had it down"
		if after {
			stop = "where this run had it down, after the reconciles the crash cut, whose first writes had landed"
		}
		nv.Detail = joinNote(nv.Detail, "the fault-free run of the same downtime and blind time (the operator stopped cleanly "+stop+", its view behind the world's writes as this run's was, never behind its own) ends so too")
		r.Verdicts[i] = nv.Excuse(excusedBy.Excuses...)
	}
	return nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
