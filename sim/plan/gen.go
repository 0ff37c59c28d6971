package plan

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Space is what plans for one world may contain. Scenarios fill it in; Generator
// draws plans from it.
type Space struct {
	Processes   []string // processes that may lag, hold, crash or be slow
	Kinds       []string // kinds whose caches may lag or hold ("group/version/Kind")
	Controllers []string // "process/controller" names that may run more workers
	// Horizon bounds the times of faults (and is the length of the fault phase).
	Horizon time.Duration
	// MaxLag bounds informer lag and API latency. Default 5s.
	MaxLag time.Duration
	// MaxCall bounds the client call number a crash may happen at. Default 50.
	MaxCall int
	// MaxWrite, if set, also draws crashes right after a process's k-th write
	// for k up to MaxWrite (Sieve's intermediate-state pattern: far fewer
	// points to try than client calls). 0: not drawn.
	MaxWrite int
	// MaxWorkers bounds Workers faults. Default 4.
	MaxWorkers int
	// MaxStale, if set, draws Stale faults (a restart onto an apiserver up to
	// MaxStale behind). 0: not drawn.
	MaxStale time.Duration
	// RestartDelay is how long a crashed process stays down before its
	// first restart (the kubelet's first CrashLoopBackOff, 10s by default;
	// a process's StartDelay adds to it). A stale restart is drawn only
	// where its restart lands before the end of the horizon (the heal,
	// which ends every fault: a view that starts after it is fresh, and
	// the plan would test nothing).
	RestartDelay time.Duration
	// Targets, if set, gives the instants of interest of the fault-free run of
	// a plan's seed and workload (its writes, say; it gets the plan with those
	// drawn and no faults yet): timed faults are then drawn either anywhere
	// or aimed at one of them (a hold starting just before it, a crash just
	// after it, a stale restart after it onto a watch cache just before or
	// just after it), so that few plans reach the windows that matter
	// (Sieve's targeting of the reference run's reads and writes).
	Targets func(p *Plan) Targets
	// Writes, if set, gives for each process the writes of the fault-free
	// run of a plan's seed and workload (their k, counted as a crash after
	// the k-th write counts them) that another write of the same reconcile
	// follows: the intermediate states of that run (Sieve's: a crash after
	// the last write of a reconcile leaves none, the next reconcile starts
	// from what it finished). A crash right after a write is then drawn
	// either after any of the first MaxWrite writes or after one of those.
	Writes func(p *Plan) map[string][]int
	// APIFaults are templates of API faults the world can meet; the generator picks
	// among them (or, as often, Targets' APIFaults) and draws a window (a
	// template's Agent becomes the fault's process=).
	APIFaults []apiserver.Fault
	// Classes restricts the fault classes drawn; nil means every class the space
	// has material for.
	Classes []FaultKind
	// KindsOnly keeps lag faults to Kinds: none is drawn for every kind ("*").
	KindsOnly bool
	// Pods, if set, draws workload faults on pods (NotReady, CrashLoop,
	// PodFail) on the first Pods pods the kubelet model binds; 0: none drawn.
	Pods int
	// Nodes are the nodes a NodeLost fault may lose; nil: none drawn.
	Nodes []string
	// Workload draws the workload. Nil means no steps.
	Workload *rapid.Generator[[]Step]
}

func (sp Space) withDefaults() Space {
	if sp.MaxLag == 0 {
		sp.MaxLag = 5 * time.Second
	}
	if sp.MaxCall == 0 {
		sp.MaxCall = 50
	}
	if sp.MaxWorkers == 0 {
		sp.MaxWorkers = 4
	}
	if sp.Horizon == 0 {
		sp.Horizon = 5 * time.Minute
	}
	if sp.RestartDelay == 0 {
		sp.RestartDelay = 10 * time.Second
	}
	return sp
}

// lagKinds are the kinds a lag fault may name: every kind ("*") first, then
// each of Kinds.
func lagKinds(sp Space) []string {
	if sp.KindsOnly {
		return sp.Kinds
	}
	return append([]string{"*"}, sp.Kinds...)
}

// Allows says whether sp draws faults of kind k (Classes).
func (sp Space) Allows(k FaultKind) bool { return sp.allows(k) }

func (sp Space) allows(k FaultKind) bool {
	if sp.Classes == nil {
		return true
	}
	for _, c := range sp.Classes {
		if c == k {
			return true
		}
	}
	return false
}

// Targets are what a Space's Targets gives: the instants of interest of a
// fault-free run, and its writes.
type Targets struct {
	// Instants are the instants at which something of interest happened
	// (writes, live reads), in time order: timed faults aim at them.
	Instants []time.Duration
	// Writes are its committed writes, in commit order: a stale restart
	// aims its lagging watch cache at one (the state just before or just
	// after it, by resourceVersion) and may scope the lag to its kind.
	Writes []Write
	// Watched are, for each process, the kinds its informers cached in the
	// fault-free run ("group/version/Kind"): a stale restart of a process
	// scoped to one kind, or aimed at a write, draws among these (a lag of
	// a kind the process never caches changes nothing it sees). A process
	// not listed draws among every kind.
	Watched map[string][]string
	// Written is, for each process, how many writes it made in the fault
	// phase (counted as a crash after the k-th write counts them): a
	// systematic sweep crashes it after each (Sweep).
	Written map[string]int
	// APIFaults are API faults drawn from the fault-free run's own
	// requests, each with the instant of the request it was drawn from: the
	// generator picks among them and the Space's APIFaults, and opens the
	// window of one of these just before its request.
	APIFaults []APIFault
	// Acts are the run's actions: each write of a process's reconcile in
	// the fault phase that changed something, with the reads its
	// reconcile made before it. Sweep ranks its stale pairs, holds and
	// unobserved windows by them (rank.go).
	Acts []Act
}

// APIFault is an API fault aimed at a request of a fault-free run, made At.
type APIFault struct {
	At    time.Duration
	Fault apiserver.Fault
	// Before and After: the reconcile that made the request made another
	// write before it, and after it (what an error answer leaves undone:
	// rank.go).
	Before, After bool
}

// watchedOf keeps the kinds of all that proc watches (all when nothing is
// known of it).
func (tg Targets) watchedOf(proc string, all []string) []string {
	w, ok := tg.Watched[proc]
	if !ok {
		return all
	}
	var out []string
	for _, k := range all {
		if slices.Contains(w, k) {
			out = append(out, k)
		}
	}
	return out
}

// Write is one committed write of a fault-free run.
type Write struct {
	At   time.Duration // when it committed
	RV   uint64        // the resourceVersion it made
	Kind string        // "group/version/Kind"; "": a stale fault aimed at it lags every kind
	// Object is the object it changed ("namespace/name", "name" when
	// cluster-scoped); Process the process whose request made it ("": the
	// workload's user, a model, or unknown); Change what it did to it.
	Object  string
	Process string
	Change  Change
}

// Change is what a write did to its object, as its watch event and the
// object's previous version tell.
type Change int

// The changes a write can make; the order is a sweep's order of interest for
// a stale view's frozen point (Sweep): an object starting to be deleted first.
const (
	Updated  Change = iota // a change of spec (its generation moved) or of a kind without generations
	Deleting               // its deletionTimestamp set: a deletion that finalizers hold
	Deleted                // gone from the store
	Status                 // its status or metadata, its generation unchanged
	Created                // created
)

func (c Change) String() string {
	switch c {
	case Deleting:
		return "deleting"
	case Deleted:
		return "deleted"
	case Status:
		return "status"
	case Created:
		return "created"
	}
	return "updated"
}

// Generator draws plans from sp. It is swarm testing: it first draws which fault
// classes this plan uses, then the faults of those classes, so that plans differ
// in their mix and shrink towards fewer classes and fewer faults.
func Generator(sp Space) *rapid.Generator[*Plan] {
	sp = sp.withDefaults()
	return rapid.Custom(func(t *rapid.T) *Plan {
		// The seed drives every draw of the run (lags, interleavings); a small range
		// keeps shrinking cheap (rapid minimises each bit of it) and still gives 4096
		// schedules per fault mix.
		p := &Plan{Seed: rapid.Uint64Range(0, 4095).Draw(t, "seed")}
		if sp.Workload != nil {
			p.Steps = sp.Workload.Draw(t, "workload")
		}
		dur := func(label string, hi time.Duration) time.Duration {
			// Millisecond resolution keeps plans readable and shrinks towards 0.
			return time.Duration(rapid.Int64Range(0, int64(hi/time.Millisecond)).Draw(t, label)) * time.Millisecond
		}
		class := func(k FaultKind, material bool) bool {
			return material && sp.allows(k) && rapid.Bool().Draw(t, "use-"+string(k))
		}
		procs, kinds := len(sp.Processes) > 0, len(sp.Kinds) > 0
		var targets []time.Duration
		var writes []Write
		var tg Targets
		if sp.Targets != nil {
			tg = sp.Targets(p)
			targets, writes = tg.Instants, tg.Writes
		}
		var intermediate map[string][]int // the Writes: crashes after them leave intermediate states
		if sp.Writes != nil {
			intermediate = sp.Writes(p)
		}
		// when draws a fault's time: anywhere in the horizon, or (with targets)
		// offset from one of them. Without targets it draws as it always has.
		when := func(label string, offset time.Duration) time.Duration {
			if len(targets) > 0 && rapid.Bool().Draw(t, label+"-targeted") {
				at := rapid.SampledFrom(targets).Draw(t, label+"-target") + offset
				return max(at, time.Millisecond)
			}
			return time.Millisecond + dur(label, sp.Horizon)
		}
		// Faults of a class are drawn as a slice, which rapid shrinks by deleting
		// elements: a minimal plan keeps only the faults that matter.
		if class(Lag, procs && kinds) {
			lag := rapid.Custom(func(t *rapid.T) Fault {
				lo := dur("lag-min", sp.MaxLag)
				return Fault{Kind: Lag,
					Process:  rapid.SampledFrom(sp.Processes).Draw(t, "lag-process"),
					Resource: rapid.SampledFrom(lagKinds(sp)).Draw(t, "lag-kind"),
					// max is at least 1ms: a lag fault with max 0 adds nothing.
					Min: lo, Max: lo + time.Millisecond + dur("lag-spread", sp.MaxLag)}
			})
			p.Faults = append(p.Faults, rapid.SliceOfN(lag, 1, 3).Draw(t, "lags")...)
		}
		if class(Hold, procs && kinds) {
			var from time.Duration
			if len(targets) > 0 {
				from = when("hold-from", -time.Millisecond) // just before the targeted write
			} else {
				from = dur("hold-from", sp.Horizon)
			}
			p.Faults = append(p.Faults, Fault{Kind: Hold,
				Process:  rapid.SampledFrom(sp.Processes).Draw(t, "hold-process"),
				Resource: rapid.SampledFrom(sp.Kinds).Draw(t, "hold-kind"),
				From:     from, Until: from + time.Millisecond + dur("hold-length", sp.Horizon)})
		}
		if class(Crash, procs) {
			crash := rapid.Custom(func(t *rapid.T) Fault {
				f := Fault{Kind: Crash, Process: rapid.SampledFrom(sp.Processes).Draw(t, "crash-process")}
				switch {
				case sp.MaxWrite > 0 && rapid.Bool().Draw(t, "crash-after-write"):
					if ks := intermediate[f.Process]; len(ks) > 0 && rapid.Bool().Draw(t, "crash-write-targeted") {
						f.Write = rapid.SampledFrom(ks).Draw(t, "crash-write-target")
					} else {
						f.Write = rapid.IntRange(1, sp.MaxWrite).Draw(t, "crash-write")
					}
				case rapid.Bool().Draw(t, "crash-at-time"):
					f.At = when("crash-at", time.Millisecond)
				default:
					f.Call = rapid.IntRange(1, sp.MaxCall).Draw(t, "crash-call")
				}
				return f
			})
			p.Faults = append(p.Faults, rapid.SliceOfN(crash, 1, 2).Draw(t, "crashes")...)
		}
		if class(API, len(sp.APIFaults)+len(tg.APIFaults) > 0) {
			// The author's templates, or (as often, whatever their number)
			// one of the reference run's own requests, aimed: the window
			// opens just before the request.
			var f Fault
			if len(tg.APIFaults) == 0 || len(sp.APIFaults) > 0 && !rapid.Bool().Draw(t, "api-drawn") {
				from := dur("api-from", sp.Horizon)
				f = Fault{Kind: API, API: rapid.SampledFrom(sp.APIFaults).Draw(t, "api-fault"),
					From: from, Until: from + time.Millisecond + dur("api-length", sp.Horizon)}
			} else {
				a := tg.APIFaults[rapid.IntRange(0, len(tg.APIFaults)-1).Draw(t, "api-request")]
				from := max(a.At-time.Millisecond, 0)
				f = Fault{Kind: API, API: a.Fault, From: from, Until: from + time.Millisecond + dur("api-length", sp.Horizon)}
			}
			f.Process, f.API.Agent = f.API.Agent, "" // process= is the fault's Agent (package cluster)
			p.Faults = append(p.Faults, f)
		}
		if class(Latency, procs) {
			lo := dur("latency-min", sp.MaxLag/10)
			p.Faults = append(p.Faults, Fault{Kind: Latency,
				Process: rapid.SampledFrom(sp.Processes).Draw(t, "latency-process"),
				Min:     lo, Max: lo + time.Millisecond + dur("latency-spread", sp.MaxLag/10)}) // never a no-op
		}
		if class(Stale, procs && sp.MaxStale > 0) {
			f := Fault{Kind: Stale, Process: rapid.SampledFrom(sp.Processes).Draw(t, "stale-process")}
			// What the process caches: a write of another kind, or a lag
			// scoped to one, is not seen by it.
			// A restart must land before the heal: a crash at last is down
			// for RestartDelay, then its new incarnation lists.
			last := sp.Horizon - sp.RestartDelay - time.Millisecond
			var seen []Write
			for _, w := range writes {
				if w.At+time.Millisecond <= last && (w.Kind == "" || len(tg.watchedOf(f.Process, []string{w.Kind})) > 0) {
					seen = append(seen, w)
				}
			}
			kinds := tg.watchedOf(f.Process, sp.Kinds)
			if len(seen) > 0 && rapid.Bool().Draw(t, "stale-at-a-write") {
				writes := seen
				// Aimed: the lagging watch cache is at the state just before or
				// just after a write of the reference run (by resourceVersion:
				// exact, and the same in this run as long as nothing before the
				// restart differs), and the restart comes after that write, at a
				// later instant of interest or anywhere later (Sieve's stale
				// state: the view paused before or after a chosen event).
				w := rapid.SampledFrom(writes).Draw(t, "stale-write")
				f.Rev = w.RV - 1
				if rapid.Bool().Draw(t, "stale-after-the-write") || f.Rev == 0 {
					f.Rev = w.RV
				}
				// Scoped to the write's kind unless drawn otherwise: the lag of
				// one watch cache is the smaller fault (it shrinks towards it).
				if w.Kind == "" || rapid.Bool().Draw(t, "stale-every-kind") {
					f.Resource = ""
				} else {
					f.Resource = w.Kind
				}
				var later []time.Duration
				for _, at := range targets {
					if at >= w.At && at+time.Millisecond <= last {
						later = append(later, at)
					}
				}
				if len(later) > 0 && rapid.Bool().Draw(t, "stale-at-targeted") {
					f.At = rapid.SampledFrom(later).Draw(t, "stale-at-target") + time.Millisecond
				} else {
					f.At = w.At + time.Millisecond + dur("stale-at", max(last-w.At-time.Millisecond, 0))
				}
			} else {
				f.At = min(when("stale-at", time.Millisecond), max(last, time.Millisecond))
				if len(kinds) > 0 && !rapid.Bool().Draw(t, "stale-every-kind") {
					f.Resource = rapid.SampledFrom(kinds).Draw(t, "stale-kind")
				}
			}
			f.Age = time.Millisecond + dur("stale-age", sp.MaxStale)
			p.Faults = append(p.Faults, f)
		}
		// Unobserved windows are enumerated by Sweep; the random plans draw
		// them only where the profile asks for the class, so that adding it
		// left every other profile's random sequence as it was.
		if procs && slices.Contains(sp.Classes, Unobserved) && rapid.Bool().Draw(t, "use-unobserved") {
			proc := rapid.SampledFrom(sp.Processes).Draw(t, "unobserved-process")
			if f := drawUnobserved(t, sp, tg, proc); f.Kind != "" {
				p.Faults = append(p.Faults, f)
			}
		}
		if class(Workers, len(sp.Controllers) > 0) {
			c := rapid.SampledFrom(sp.Controllers).Draw(t, "workers-controller")
			proc, ctrl := splitController(c)
			p.Faults = append(p.Faults, Fault{Kind: Workers, Process: proc, Controller: ctrl,
				N: rapid.IntRange(2, max(2, sp.MaxWorkers)).Draw(t, "workers-n")})
		}
		var podKinds []FaultKind
		for _, k := range []FaultKind{NotReady, CrashLoop, PodFail} {
			if sp.allows(k) {
				podKinds = append(podKinds, k)
			}
		}
		if sp.Pods > 0 && len(podKinds) > 0 && rapid.Bool().Draw(t, "use-pod-faults") {
			pod := rapid.Custom(func(t *rapid.T) Fault {
				return Fault{Kind: rapid.SampledFrom(podKinds).Draw(t, "pod-fault"),
					Pod: rapid.IntRange(1, sp.Pods).Draw(t, "pod")}
			})
			p.Faults = append(p.Faults, rapid.SliceOfN(pod, 1, 2).Draw(t, "pod-faults")...)
		}
		if class(NodeLost, len(sp.Nodes) > 0) {
			p.Faults = append(p.Faults, Fault{Kind: NodeLost,
				Node: rapid.SampledFrom(sp.Nodes).Draw(t, "node"),
				At:   dur("node-lost-at", sp.Horizon)})
		}
		return p
	})
}

func splitController(s string) (process, controller string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:]
		}
	}
	return "", s
}

// Fuzz adapts a property over plans of sp to a `go test -fuzz` target: the fuzz
// bytes drive the same generator rapid uses, so a fuzz input decodes to a plan.
func Fuzz(sp Space, prop func(t *rapid.T, p *Plan)) func(*testing.T, []byte) {
	gen := Generator(sp)
	return rapid.MakeFuzz(func(t *rapid.T) {
		prop(t, gen.Draw(t, "plan"))
	})
}
