package story

import (
	"fmt"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Faultless reports whether the story's plan has no fault: what happened, the
// violation included, came from the workload and the default timing alone.
func (s *Story) Faultless() bool { return s.in.Plan != nil && len(s.in.Plan.Faults) == 0 }

// HealLabel is the label of the heal's line: where the faults end, or, in a
// plan with none, where the fault phase ends.
func (s *Story) HealLabel() string {
	if s.Faultless() {
		return "fault phase ends (this plan has no fault)"
	}
	return "heal: faults end"
}

// noFaultNote says, for a violating run of a plan with no fault, what the
// run's events came from. When a stale read led to the step a verdict is
// drawn at, the default watch delay alone caused the violation, and the note
// says how long after the change it missed the read came; a stale read among
// the events that led to no such step is named as the delay at work; else the
// workload and the default timing.
func (s *Story) noFaultNote() string {
	if !s.Faultless() || len(s.Verdicts) == 0 {
		return ""
	}
	causes := map[int]bool{} // stale reads that led to a verdict's step
	for _, l := range s.Links {
		for _, v := range s.Verdicts {
			if v.Event >= 0 && l.To == v.Event && s.Events[l.From].Role == RoleCause {
				causes[l.From] = true
			}
		}
	}
	const real = "a real informer gets each change tens of microseconds to milliseconds after its commit (the simulator's " +
		"default delivery delay, measured on envtest), seconds under load, so a read in that window misses it on a real cluster too."
	first := -1
	for n, e := range s.Events {
		if e.Role != RoleCause || !s.in.Steps[e.Step].Stale() {
			continue
		}
		if causes[n] {
			return fmt.Sprintf("No fault in this plan: the default watch delay alone caused it. The stale read %s came%s; %s",
				circled(n+1), s.missedBy(e), real)
		}
		if first < 0 {
			first = n
		}
	}
	if first >= 0 {
		return fmt.Sprintf("No fault in this plan: the workload and the default timing alone led here. The stale read %s is the "+
			"default watch delay at work: it came%s; %s", circled(first+1), s.missedBy(s.Events[first]), real)
	}
	return "No fault in this plan: the workload and the default timing alone (each API call and watch delivery taking " +
		"the time it takes on a real cluster) led to the violation."
}

// missedBy says how long after the change it missed a stale read came.
func (s *Story) missedBy(e Event) string {
	st := s.in.Steps[e.Step]
	if i, ok := s.versions[st.RVCurrent]; ok && st.RVCurrent > st.RVSeen {
		return fmt.Sprintf(" %s after the change it missed (rv=%d) was committed", trace.FormatAt(st.At-s.at(s.in.Log[i])), st.RVCurrent)
	}
	return " while the change it missed was on its way"
}

// RealScale says at what real scale the order of events a fault makes
// happens: a sentence for "why a real cluster can do this" (operatortest's
// report). The order matters, not the size of the fault: a simulated lag of
// milliseconds stands for any lag long enough to put a read before a change
// reaches the cache.
func RealScale(f plan.Fault) string {
	switch f.Kind {
	case plan.Lag:
		return fmt.Sprintf("At real scale: only the order matters (a change reached the cache after a read that needed it); "+
			"a real informer lags tens of microseconds to milliseconds on an idle cluster and seconds under load, so the same order "+
			"happens whenever a read falls in that window; a lag of %s to %s only widens the window", f.Min, f.Max)
	case plan.Hold:
		return fmt.Sprintf("At real scale: the watch delivered nothing for %s; real watches stall for seconds to minutes "+
			"(an apiserver restart or overload, a network partition, a watch that broke and relists), so the same order happens "+
			"at any length of stall longer than the operator's next read", f.Until-f.From)
	case plan.Latency:
		return fmt.Sprintf("At real scale: calls took %s to %s here; real calls take milliseconds on an idle cluster and hundreds of "+
			"milliseconds to seconds under load or across regions, which orders the same calls the same way", f.Min, f.Max)
	case plan.Crash:
		return "At real scale: a process dies between any two instructions (an OOM kill, an eviction, a node lost), so the instant " +
			"of this crash, between two API calls, is as real as any other; only the order of the calls and the crash matters"
	case plan.Stale:
		if f.Rev > 0 {
			return fmt.Sprintf("At real scale: the restarted process listed the past, resourceVersion %d, however long ago that was, "+
				"and saw every later change %s after the restart; a kube-apiserver whose watch cache stopped following etcd (its etcd "+
				"watch broken, or it was partitioned from etcd in a highly available control plane) serves so old a view to the clients "+
				"that list from it until it catches up, which is how the stale-view bugs Sieve found reach real clusters", f.Rev, f.Age)
		}
		return fmt.Sprintf("At real scale: the restarted process read from an apiserver %s behind; a real watch cache lags etcd by "+
			"milliseconds idle and seconds under load, and a pod restarted in that window lists from it", f.Age)
	case plan.Unobserved:
		return "At real scale: real watches break every few minutes (their timeout) or on an apiserver restart, and the relist " +
			"is served from a watch cache that can be milliseconds to seconds behind: the states in between are never seen"
	case plan.API:
		return "At real scale: per request; a real apiserver answers 429 under throttling and 5xx during an etcd leader change or " +
			"overload, for one request or for minutes"
	case plan.Workers:
		return "At real scale: not a matter of timing: any operator deployed with MaxConcurrentReconciles above 1"
	case plan.Stop:
		return "At real scale: every rolling update of the operator's Deployment, and every node drain, stops it so"
	}
	return ""
}

// WorkloadScale says at what real scale the workload's steps come in the same
// order: the closest two steps' distance, against what a user or a GitOps
// tool does. "" for a workload of fewer than two steps at distinct times.
func WorkloadScale(p *plan.Plan) string {
	var ats []time.Duration
	for _, s := range p.Steps {
		ats = append(ats, s.At)
	}
	closest := time.Duration(-1)
	for i := range ats {
		for j := range ats {
			if d := ats[j] - ats[i]; d > 0 && (closest < 0 || d < closest) {
				closest = d
			}
		}
	}
	if closest < 0 {
		return ""
	}
	return fmt.Sprintf("At real scale: two of the workload's steps came %s apart; a user or a GitOps tool acting seconds apart "+
		"gives the same order whenever the operator is still reconciling the first, or its cache has not seen it, when the second comes",
		closest)
}
