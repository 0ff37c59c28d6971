package cluster

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// faults is the plan's faults as the processes and the server meet them. It
// implements process.Injector.
type faults struct {
	c      *Cluster
	plan   []plan.Fault
	healed bool
	holds  map[holdKey]int       // active holds (a count: windows may overlap)
	remove []func()              // removers of API faults in force
	stale  map[string]plan.Fault // processes restarted by a stale fault, not yet started again: the fault
	blind  map[int]bool          // the blind faults (by index in plan) whose stale start has happened
	// unobserved are the windows of the plan's unobserved faults, in plan
	// order, each tracking its object from the cluster's creation on.
	unobserved []unobservedWindow
}

type unobservedWindow struct {
	process string
	u       *informer.Unobserved
}

type holdKey struct {
	process string
	kind    string
}

func newFaults(c *Cluster, p *plan.Plan) *faults {
	f := &faults{c: c, plan: p.Faults, holds: map[holdKey]int{}, stale: map[string]plan.Fault{}, blind: map[int]bool{}}
	for _, x := range p.Faults {
		if x.Kind == plan.Unobserved {
			f.unobserved = append(f.unobserved, f.track(x))
		}
	}
	return f
}

// track makes the window of x, an unobserved fault, follow its object from
// now on: before any process starts, so that it sees each change before
// the process's informers do (informer.Unobserved). Its opening and its end
// are in the trace.
func (f *faults) track(x plan.Fault) unobservedWindow {
	group, rest, _ := strings.Cut(x.Resource, "/")
	version, kind, _ := strings.Cut(rest, "/")
	gvk := schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
	u := &informer.Unobserved{GVK: gvk, Key: x.Object, From: x.FromRev, Until: x.UntilRev}
	object := kind + " " + x.Object
	u.Notify = func(what string) {
		f.c.record(trace.Step{Process: x.Process, Op: "unobserved", Object: object, Result: what})
	}
	u.Track(f.c.Server.Watcher())
	return unobservedWindow{x.Process, u}
}

// Unobserved are the windows of process's unobserved faults: every
// incarnation's informers get the same (a restart inside one lists without
// the object's hidden state). After the heal there are none in force.
func (f *faults) Unobserved(process string) []*informer.Unobserved {
	var out []*informer.Unobserved
	for _, w := range f.unobserved {
		if w.process == process && !w.u.Ended() {
			out = append(out, w.u)
		}
	}
	return out
}

func kindMatches(pattern string, gvk schema.GroupVersionKind) bool {
	return pattern == "*" || pattern == KindName(gvk)
}

// Lag draws each event's lag from the first Lag fault for the process and kind,
// from a stream of its own, so that other informers' draws do not shift it.
func (f *faults) Lag(process string, gvk schema.GroupVersionKind) informer.Lag {
	for _, x := range f.plan {
		if x.Kind == plan.Lag && x.Process == process && kindMatches(x.Resource, gvk) {
			s := f.c.Stream("lag/" + process + "/" + KindName(gvk))
			lo, hi := x.Min, x.Max
			return func() time.Duration {
				if f.healed {
					return 0
				}
				return s.Duration(lo, hi)
			}
		}
	}
	return nil
}

// ListOrder shuffles process's lists of what from a stream of their own
// (list-order/<process>/<what>), so that no other site's draws shift them.
func (f *faults) ListOrder(process, what string) informer.Order {
	return f.c.Stream("list-order/" + process + "/" + what).Shuffle
}

// Held reports whether process's cache of gvk is held: by a hold of its kind or
// of every kind (kind=*).
func (f *faults) Held(process string, gvk schema.GroupVersionKind) bool {
	return !f.healed && (f.holds[holdKey{process, KindName(gvk)}] > 0 || f.holds[holdKey{process, "*"}] > 0)
}

func (f *faults) CrashAtCall(process string, call int) bool {
	return f.crash(process, func(x plan.Fault) bool { return x.Call == call })
}

func (f *faults) CrashAfterWrite(process string, write int) bool {
	return f.crash(process, func(x plan.Fault) bool { return x.Write == write })
}

// crash reports whether an unhealed plan crashes process where at says.
func (f *faults) crash(process string, at func(plan.Fault) bool) bool {
	if f.healed {
		return false
	}
	for _, x := range f.plan {
		if x.Kind == plan.Crash && x.Process == process && at(x) {
			return true
		}
	}
	return false
}

func (f *faults) Latency(process string) time.Duration {
	if f.healed {
		return 0
	}
	for _, x := range f.plan {
		if x.Kind == plan.Latency && x.Process == process {
			return f.c.Stream("latency/"+process).Duration(x.Min, x.Max)
		}
	}
	return 0
}

func (f *faults) Workers(process, controller string) int {
	for _, x := range f.plan {
		if x.Kind == plan.Workers && (x.Process == "" || x.Process == process) && x.Controller == controller {
			return x.N
		}
	}
	return 0
}

// Stale is the lagging apiserver of a process that a stale fault restarted:
// from its start, it is the fault's age behind, for that long or until the
// heal, whichever comes first (heal catches it up). A plan healed in between
// gives none.
//
// A fault with rev= puts the lagging watch cache at that resourceVersion; one
// with kind= lags that kind's watch cache only. A blind fault with an age
// gives its process's first start at or after its at the same lagging
// apiserver (it replays another run's stale restart, without the crash),
// until the heal as well: a reference runs its fault phase as long as the
// faulted run's, so its heal ends the replay where the faulted run's heal
// ended the view it replays; a start after the heal is fresh.
func (f *faults) Stale(process string) (informer.Stale, bool) {
	now := f.c.Clock.Now()
	for i, x := range f.plan {
		if x.Kind == plan.Blind && x.Process == process && x.Age > 0 && !f.blind[i] && now.Sub(f.c.start) >= x.At {
			f.blind[i] = true
			if f.healed {
				// The stale view it replays ended at the heal (heal).
				return informer.Stale{}, false
			}
			return staleView(x, now), true
		}
	}
	x, ok := f.stale[process]
	if !ok || f.healed {
		return informer.Stale{}, false
	}
	delete(f.stale, process)
	return staleView(x, now), true
}

// staleView is the view of a stale (or blind) fault's restart at now.
func staleView(x plan.Fault, now time.Time) informer.Stale {
	st := informer.Stale{Age: x.Age, Until: now.Add(x.Age), RV: x.Rev}
	if x.Resource != "" && x.Resource != "*" {
		kind := x.Resource
		st.Kinds = func(gvk schema.GroupVersionKind) bool { return kindMatches(kind, gvk) }
		st.Scope = kind
	}
	return st
}

// SeesOwnWrites reports whether process's informers show it its own writes at
// once (a blind fault names it: plan.Blind).
func (f *faults) SeesOwnWrites(process string) bool {
	for _, x := range f.plan {
		if x.Kind == plan.Blind && x.Process == process {
			return true
		}
	}
	return false
}

// Jitter draws process's next leader-election retry jitter from a stream of
// its own.
func (f *faults) Jitter(process string) float64 {
	return f.c.Stream("leader-election/" + process).Float64()
}

// stalled reports whether some watch of the cluster is held now, or behind:
// a running process's stale view (a lagging watch cache) still in force.
func (f *faults) stalled() bool {
	if f.healed {
		return false
	}
	for _, n := range f.holds { // lint:order-independent any of them
		if n > 0 {
			return true
		}
	}
	for _, p := range f.c.procs {
		if p.Running() && p.GetCache().Behind() {
			return true
		}
	}
	// An object unobserved: a controller that misses its own child re-creates
	// it, as fast as the API answers AlreadyExists, until it sees it.
	for _, w := range f.unobserved {
		if w.u.Open() {
			return true
		}
	}
	return false
}

// schedule puts the timed faults on the clock: holds, crashes at a time, API fault
// windows, clean stops.
func (f *faults) schedule() {
	c := f.c
	for _, x := range f.plan {
		switch x.Kind {
		case plan.Hold:
			key := holdKey{x.Process, x.Resource}
			c.Clock.AfterFunc(x.From, func() {
				if f.healed {
					return
				}
				f.holds[key]++
				f.applyHold(key, true)
			})
			c.Clock.AfterFunc(x.Until, func() {
				if f.healed || f.holds[key] == 0 {
					return
				}
				f.holds[key]--
				if f.holds[key] == 0 {
					f.applyHold(key, false)
				}
			})
		case plan.Crash:
			if x.At > 0 {
				name := x.Process
				c.Clock.AfterFunc(x.At, func() {
					if p := c.Process(name); p != nil && p.Running() && !f.healed {
						p.Crash("planned crash at " + x.At.String())
					}
				})
			}
		case plan.Stop:
			// A clean stop and a start, whatever the heal: the downtime of
			// another run, replayed (plan.Stop).
			name, from, until := x.Process, x.From, x.Until
			c.Clock.AfterFunc(from, func() {
				if p := c.Process(name); p != nil {
					p.StopCleanly("planned clean stop at " + from.String())
				}
			})
			if until > 0 {
				c.Clock.AfterFunc(until, func() {
					if p := c.Process(name); p != nil {
						p.StartAgain()
					}
				})
			}
		case plan.Stale:
			name, age, at, fault := x.Process, x.Age, x.At, x
			c.Clock.AfterFunc(at, func() {
				if p := c.Process(name); p != nil && p.Running() && !f.healed {
					f.stale[name] = fault
					view := "an apiserver " + age.String() + " behind"
					if fault.Rev > 0 { // the past at Rev, however old, until Age after the restart
						view = fmt.Sprintf("an apiserver at resourceVersion %d until %s after the restart", fault.Rev, age)
					}
					p.Crash("planned restart onto " + view + " at " + at.String())
				}
			})
		case plan.API:
			api := x.API
			api.Agent = x.Process // process= limits it to that process's requests; none: every client
			until := x.Until
			var remove func()
			c.Clock.AfterFunc(x.From, func() {
				if f.healed {
					return
				}
				remove = c.Server.InjectFault(api)
				f.remove = append(f.remove, remove)
				c.record(trace.Step{Op: "fault", Result: "api " + api.String()})
			})
			if until > 0 {
				c.Clock.AfterFunc(until, func() {
					if remove != nil && !f.healed {
						remove()
					}
				})
			}
		}
	}
}

// applyHold holds or releases the matching informers of a running process. A
// process that (re)starts while a hold is on is held by the Injector (Held).
// A hold of every kind (kind=*) holds the informers the process has, and those it
// creates while the hold lasts start held (Held); a release leaves held an
// informer that another hold still covers.
func (f *faults) applyHold(key holdKey, hold bool) {
	p := f.c.Process(key.process)
	if p == nil || !p.Running() {
		return
	}
	op := map[bool]string{true: "hold", false: "release"}[hold]
	if key.kind == "*" {
		for _, inf := range p.GetCache().Informers() {
			if !hold && f.Held(key.process, inf.GVK()) {
				continue
			}
			p.Hold(inf.GVK(), hold)
		}
		f.c.record(trace.Step{Process: key.process, Op: op, Object: key.kind})
		return
	}
	for _, k := range f.c.Server.Kinds() {
		if KindName(k.GVK) == key.kind {
			if !hold && f.Held(key.process, k.GVK) {
				return // a hold of every kind still covers it
			}
			p.Hold(k.GVK, hold)
			f.c.record(trace.Step{Process: key.process, Op: op, Object: key.kind})
		}
	}
}

// Healed reports whether the fault phase has ended, and when.
func (f *faults) Healed() (time.Time, bool) {
	if !f.healed {
		return time.Time{}, false
	}
	return f.c.start.Add(f.c.healAt), true
}

// heal ends every fault.
func (f *faults) heal() {
	if f.healed {
		return
	}
	f.healed = true
	for _, r := range f.remove {
		r()
	}
	f.remove = nil
	for key, n := range f.holds { // lint:order-independent releases are independent per informer
		if n > 0 {
			f.holds[key] = 0
		}
	}
	for _, p := range f.c.procs {
		if !p.Running() {
			continue
		}
		for _, inf := range p.GetCache().Informers() {
			if inf.Held() {
				inf.Release()
			}
		}
	}
	// A stale view still in force catches up: its lagging watch cache
	// delivers what it kept back, as one that has caught up would.
	for _, p := range f.c.procs {
		if p.Running() && p.GetCache().CatchUp() {
			f.c.record(trace.Step{Process: p.Name(), Op: "catch-up", Result: "its stale view caught up at the heal"})
		}
	}
	// An unobserved object's window still open ends: the informers that
	// withheld its changes apply its newest state, as a watch that resumes.
	for _, w := range f.unobserved {
		if w.u.End() {
			f.c.record(trace.Step{Process: w.process, Op: "unobserved", Object: w.u.GVK.Kind + " " + w.u.Key, Result: "the window ends at the heal"})
		}
	}
	for _, p := range f.c.procs {
		if p.Running() && p.GetCache().CatchUpUnobserved() {
			f.c.record(trace.Step{Process: p.Name(), Op: "catch-up", Result: "its informers got the newest state of the objects they did not observe, at the heal"})
		}
	}
}
