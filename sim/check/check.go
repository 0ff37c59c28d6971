package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Run is what a property judges: the steps of the trace, the phases, the watch
// log (every committed version of every object) and the final state.
type Run struct {
	Steps  []trace.Step
	HealAt time.Duration // when the heal phase began; 0 if the run never healed
	End    time.Duration // when the run ended
	Log    []apiserver.Event
	Start  time.Time // the run's start instant, to turn log timestamps into offsets
	// Objects returns the final objects of a kind (nil if none).
	Objects func(gvk schema.GroupVersionKind) []client.Object
	// Kinds lists the served kinds.
	Kinds []schema.GroupVersionKind
	// Plan is the plan the run ran (its workload steps tell a property what the
	// user asked for, and when).
	Plan *plan.Plan
	// Backoffs are the keys the cluster's own controllers (those whose
	// queues a process names: kube-controller-manager's) hold in back-off
	// when the run ends: a sync that failed, its retry due after the end.
	Backoffs []Backoff
	// Scheduled is the work the cluster's controllers have scheduled for
	// after the end (the kubelet's kill of a deleted pod's containers at its
	// grace period's end): a real cluster does it then.
	Scheduled []Scheduled
}

// Scheduled is work a controller has scheduled: What to do to the object
// Key ("namespace/name", or "name") of Kind, due at Due (virtual time since
// the run's start).
type Scheduled struct {
	Process, Controller, Kind, Key, What string
	Due                                  time.Duration
}

// Backoff is a key a controller holds in back-off: its last sync failed
// Requeues times in a row and the next is due at Due (virtual time since
// the run's start). Keys are "namespace/name" (or "name") of Kind.
type Backoff struct {
	Process, Controller string
	Kind                schema.GroupKind
	Key                 string
	Requeues            int
	Due                 time.Duration
}

// Verdict is a property's judgement of one run.
type Verdict struct {
	Property string
	Holds    bool
	// Detail says why it was violated (or, when it holds, a short measurement).
	Detail string
	// At is where the violation shows in the trace (virtual time), if it has a place.
	At time.Duration
	// Where is the code a violation points at, if any (a panic's function
	// and file:line): with the property and the kinds it names, what tells
	// two violations apart (operatortest's signatures).
	Where string
	// Excused names the excuses the verdict applied (sorted, unique): on a
	// verdict that holds, the cases of operatortest/verdict's Excuses table
	// it holds by, a difference from the fault-free run that one of them
	// forgave or left uncounted; on a violated one, the table's principle-3
	// cases that withdrew an excuse. It is neither part of the verdict's
	// text nor of a trace's hash (the trace hashes steps only).
	Excused []string
}

// Excuse returns v with names added to its Excused, kept sorted and unique.
func (v Verdict) Excuse(names ...string) Verdict {
	if len(names) == 0 {
		return v
	}
	out := append(slices.Clone(v.Excused), names...)
	slices.Sort(out)
	v.Excused = slices.Compact(out)
	return v
}

func (v Verdict) String() string {
	if v.Holds {
		return v.Property + ": holds"
	}
	return fmt.Sprintf("%s: violated at %s: %s", v.Property, v.At, v.Detail)
}

// Property is a check over a run.
type Property interface {
	Name() string
	Check(r *Run) Verdict
}

func holds(name, detail string) Verdict { return Verdict{Property: name, Holds: true, Detail: detail} }
func violated(name string, at time.Duration, format string, args ...any) Verdict {
	return Verdict{Property: name, At: at, Detail: fmt.Sprintf(format, args...)}
}

// FaultPhaseEnd is when the fault phase ended: the heal, or the end of a run
// that never healed.
func (r *Run) FaultPhaseEnd() time.Duration {
	if r.HealAt > 0 {
		return r.HealAt
	}
	return r.End
}

// reconciles returns the reconcile steps of controller for object, with their results.
type attempt struct {
	at, end time.Duration
	result  string
}

func (r *Run) attempts(controller, object string) []attempt {
	var out []attempt
	open := map[int]int{} // worker -> index in out of its open reconcile
	for _, s := range r.Steps {
		if s.Controller != controller || s.Object != object {
			continue
		}
		switch s.Op {
		case "reconcile":
			open[s.Worker] = len(out)
			out = append(out, attempt{at: s.At})
		case "result":
			if i, ok := open[s.Worker]; ok {
				out[i].result, out[i].end = s.Result, s.At
				delete(open, s.Worker)
			}
		}
	}
	return out
}

// SettledBackoff: while a reconcile keeps failing, the controller reconciles at
// most once per rate-limiter backoff firing, after a first burst of at most
// FirstBurst (default 2). The k-th failure (counting from the first) schedules a
// firing Base*2^k (Base default 5ms, client-go's per-item exponential limiter)
// after that reconcile ended; the j-th failing reconcile (from 0) is allowed when
// j+1 <= FirstBurst + the firings due by its start. A firing that lands while a
// reconcile is running (a reconcile that blocks longer than the backoff) marks the
// key dirty and is consumed by the next reconcile, which therefore starts at once
// and is still within the bound; an event that requeues the key with no firing
// due is what breaks it. Limiters with longer delays only make the bound lenient.
// Judged over the fault phase, from the first failed reconcile of the object to
// its first success.
type SettledBackoff struct {
	Controller string // controller name
	Object     string // "namespace/name" (or "/name" for cluster-scoped), as reconcile steps name it
	Base       time.Duration
	FirstBurst int
}

func (p SettledBackoff) Name() string { return "settled-backoff" }

func (p SettledBackoff) Check(r *Run) Verdict {
	base, first := p.Base, p.FirstBurst
	if base == 0 {
		base = 5 * time.Millisecond
	}
	if first == 0 {
		first = 2
	}
	var failing []attempt
	for _, a := range r.attempts(p.Controller, p.Object) {
		if a.at > r.FaultPhaseEnd() || a.result == "" {
			break
		}
		failed := strings.HasPrefix(a.result, "error")
		if !failed {
			if len(failing) > 0 {
				break // the failure is over
			}
			continue
		}
		failing = append(failing, a)
	}
	firing := func(k int) time.Duration {
		d := base << min(k, 40)
		if d > 1000*time.Second || d <= 0 {
			d = 1000 * time.Second
		}
		return failing[k].end + d
	}
	for j := 1; j < len(failing); j++ {
		due := 0
		for k := 0; k < j; k++ {
			if firing(k) <= failing[j].at {
				due++
			}
		}
		if j+1 > first+due {
			return violated(p.Name(), failing[j].at, "failing reconcile %d of %s started with %d backoff firings due (at most %d reconciles allowed, a first burst of %d plus one per firing)",
				j+1, p.Object, due, first+due, first)
		}
	}
	return holds(p.Name(), fmt.Sprintf("%d failing reconciles within the backoff", len(failing)))
}

// RootCauseVisible: while a failure persists, the object's status shows the root
// cause at least MinFraction (default 0.95) of the virtual time. Message extracts
// the status message from a version of the object; the window runs from the first
// version whose message is non-empty to the end of the fault phase.
type RootCauseVisible struct {
	GVK         schema.GroupVersionKind
	Key         client.ObjectKey
	Message     func(obj client.Object) string
	RootCause   string // a substring of the root-cause message
	MinFraction float64
}

func (p RootCauseVisible) Name() string { return "root-cause-visible" }

func (p RootCauseVisible) Check(r *Run) Verdict {
	min := p.MinFraction
	if min == 0 {
		min = 0.95
	}
	end := r.FaultPhaseEnd()
	var since time.Duration = -1
	var visible, total time.Duration
	var last time.Duration
	showing := false
	worst := time.Duration(-1)
	for _, ev := range r.Log {
		if ev.GVK != p.GVK || ev.Object.GetNamespace() != p.Key.Namespace || ev.Object.GetName() != p.Key.Name {
			continue
		}
		at := r.eventTime(ev)
		if at > end {
			break
		}
		msg := p.Message(ev.Object)
		if since < 0 {
			if msg == "" {
				continue
			}
			since, last = at, at
		} else {
			total += at - last
			if showing {
				visible += at - last
			}
			last = at
		}
		showing = strings.Contains(msg, p.RootCause)
		if !showing && worst < 0 {
			worst = at
		}
	}
	if since < 0 {
		return holds(p.Name(), "no failure shown")
	}
	total += end - last
	if showing {
		visible += end - last
	}
	if total == 0 {
		return holds(p.Name(), "no time elapsed")
	}
	frac := float64(visible) / float64(total)
	if frac < min {
		return violated(p.Name(), worst, "root cause %q shown %.1f%% of the time since %s (want at least %.0f%%)", p.RootCause, 100*frac, since, 100*min)
	}
	return holds(p.Name(), fmt.Sprintf("root cause shown %.1f%% of the time", 100*frac))
}

// eventTime is the virtual time of a watch event since the start of the run.
func (r *Run) eventTime(ev apiserver.Event) time.Duration { return ev.At.Sub(r.Start) }

// BoundedRetryRate: successive attempts of Op on Object are at least Envelope(i)
// apart (minus Tolerance), i counting gaps from 0: the retry schedule of a
// throttle (kopf's 1,1,2,3,5,...,610 s) or a rate limiter (5ms*2^i).
type BoundedRetryRate struct {
	Process   string
	Op        string // e.g. "patch"
	Object    string // e.g. "KopfExample default/x"
	Envelope  func(i int) time.Duration
	Tolerance time.Duration
	// OnlyFailed counts only attempts whose result is not "ok".
	OnlyFailed bool
}

func (p BoundedRetryRate) Name() string { return "bounded-retry-rate" }

func (p BoundedRetryRate) Check(r *Run) Verdict {
	var at []time.Duration
	for _, s := range r.Steps {
		if s.At > r.FaultPhaseEnd() {
			break
		}
		if (p.Process == "" || s.Process == p.Process) && s.Op == p.Op && s.Object == p.Object && (!p.OnlyFailed || s.Result != "ok") {
			at = append(at, s.At)
		}
	}
	for i := 1; i < len(at); i++ {
		gap, want := at[i]-at[i-1], p.Envelope(i-1)-p.Tolerance
		if gap < want {
			return violated(p.Name(), at[i], "attempt %d of %s %s came %s after the previous one, the envelope allows no sooner than %s", i+1, p.Op, p.Object, gap, want)
		}
	}
	return holds(p.Name(), fmt.Sprintf("%d attempts within the envelope", len(at)))
}

// KopfDelays is kopf's default throttling schedule (seconds), repeating the last.
var KopfDelays = []time.Duration{1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610}

// Terminates: at the end of the run no object (of Kinds, or of every served kind)
// still has a deletionTimestamp: no stuck finalizer, no namespace stuck
// Terminating.
type Terminates struct {
	Kinds []schema.GroupVersionKind // nil: every served kind
}

func (p Terminates) Name() string { return "terminates" }

func (p Terminates) Check(r *Run) Verdict {
	kinds := p.Kinds
	if kinds == nil {
		kinds = r.Kinds
	}
	var stuck []string
	for _, gvk := range kinds {
		for _, o := range r.Objects(gvk) {
			if o.GetDeletionTimestamp() != nil {
				stuck = append(stuck, fmt.Sprintf("%s %s (finalizers %v)", gvk.Kind, key(o), o.GetFinalizers()))
			}
		}
	}
	if len(stuck) > 0 {
		slices.Sort(stuck)
		return violated(p.Name(), r.End, "still deleting at the end of the heal budget: %s", strings.Join(stuck, "; "))
	}
	return holds(p.Name(), "nothing left deleting")
}

func key(o client.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// AtMostOnce: each side-effect key happens at most once. Effects lists the keys
// of the side effects that took effect (e.g. from a ledger), in order.
type AtMostOnce struct {
	Effects func(r *Run) []string
}

func (p AtMostOnce) Name() string { return "at-most-once" }

func (p AtMostOnce) Check(r *Run) Verdict {
	seen := map[string]int{}
	for _, k := range p.Effects(r) {
		seen[k]++
		if seen[k] == 2 {
			return violated(p.Name(), r.End, "side effect %s happened twice", k)
		}
	}
	return holds(p.Name(), fmt.Sprintf("%d distinct side effects", len(seen)))
}

// Eventually: at the end of the heal budget, Desired holds. It is the form of the
// liveness properties (converges, release-settles, retried-after-failure ...).
type Eventually struct {
	Property string
	Desired  func(r *Run) error
}

func (p Eventually) Name() string { return p.Property }

func (p Eventually) Check(r *Run) Verdict {
	if err := p.Desired(r); err != nil {
		return violated(p.Property, r.End, "%v", err)
	}
	return holds(p.Property, "")
}

// Converges: after inputs and faults stop, the desired state is reached and stays:
// Desired holds at the end and no process wrote anything in the last Window.
type Converges struct {
	Desired func(r *Run) error
	Window  time.Duration
}

func (p Converges) Name() string { return "converges" }

func (p Converges) Check(r *Run) Verdict {
	if err := p.Desired(r); err != nil {
		return violated(p.Name(), r.End, "desired state not reached: %v", err)
	}
	if v := (Quiescent{Window: p.Window}).Check(r); !v.Holds {
		return violated(p.Name(), v.At, "desired state reached but not stable: %s", v.Detail)
	}
	return holds(p.Name(), "")
}

// Quiescent: at rest (the last Window of the run) no process makes a write.
type Quiescent struct {
	Window time.Duration
}

func (p Quiescent) Name() string { return "quiescent" }

// writes are the trace ops that change the cluster.
var writes = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true,
	"update/status": true, "patch/status": true, "update/finalize": true}

func (p Quiescent) Check(r *Run) Verdict {
	from := r.End - p.Window
	n := 0
	var first trace.Step
	for _, s := range r.Steps {
		if s.At < from || s.Process == "" || s.Process == "admin" || !writes[s.Op] {
			continue
		}
		if n == 0 {
			first = s
		}
		n++
	}
	if n > 0 {
		return violated(p.Name(), first.At, "%d writes in the last %s, first %s %s by %s/%s", n, p.Window, first.Op, first.Object, first.Process, first.Controller)
	}
	return holds(p.Name(), "")
}

// Violated returns the verdicts that do not hold, in order.
func Violated(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if !v.Holds {
			out = append(out, v)
		}
	}
	return out
}

// Violation is the error of a run that violated properties: what an
// explorer's property function returns for it.
type Violation struct{ Verdicts []Verdict }

func (v *Violation) Error() string {
	var parts []string
	for _, x := range v.Verdicts {
		parts = append(parts, x.String())
	}
	return strings.Join(parts, "; ")
}

// Properties returns the names of the violated properties.
func (v *Violation) Properties() []string {
	var out []string
	for _, x := range v.Verdicts {
		out = append(out, x.Property)
	}
	return out
}
