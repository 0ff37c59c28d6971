package plan

import (
	"cmp"
	"slices"
	"time"
)

// SweepClass names a class of targeted plans (Sweep).
type SweepClass string

// The classes of targeted plans, in the order Sweep interleaves them.
const (
	// SweepCrashes: a crash of a process right after each of its writes in
	// the fault phase, the reference run's intermediate states first
	// (Sieve's intermediate state).
	SweepCrashes SweepClass = "crashes after a write"
	// SweepStale: a restart onto a watch cache frozen just after (or
	// before) a change A, coming right after a later write B (Sieve's
	// stale state with its two targets: the view of the past, and the
	// instant the past is acted on).
	SweepStale SweepClass = "stale pairs"
	// SweepHolds: a process's watch of a kind held from just before each
	// change of that kind until the heal (Sieve's unobserved state, at the
	// grain of a kind).
	SweepHolds SweepClass = "holds across a change"
	// SweepUnobserved: one object's events withheld from one process from
	// its creation or one of its changes (Sieve's unobserved state, at the
	// grain of an object).
	SweepUnobserved SweepClass = "unobserved windows"
)

// SweepClasses are the classes in the order Sweep interleaves them.
var SweepClasses = []SweepClass{SweepCrashes, SweepStale, SweepHolds, SweepUnobserved}

// Targeted is one plan of a sweep: the faults to add to its workload.
type Targeted struct {
	Class  SweepClass
	Faults []Fault
}

// Sweep enumerates the targeted plans of one workload, from the fault-free
// run of it that gave tg (and its intermediate writes, as Space.Writes gives
// them): systematic, where Generator is random. Each plan adds one fault to
// the workload:
//
//   - a crash right after each write of each process of sp (its
//     intermediate states first: a crash after a reconcile's last write
//     leaves none);
//   - first, a stale restart onto the past of each object that changed
//     (objectPasts): right after its change B, a view of it frozen at each
//     earlier version A, the latest first (a deletion done first, then a
//     creation, a deletion starting, a spec change);
//   - then a stale restart for each pair of changes (A, B) of kinds the process
//     caches, B after A: its watch cache of A's kind frozen just after A
//     (then just before it; then every kind's), the crash 1 ms after B, so
//     that its new incarnation, up RestartDelay later and before the heal,
//     lists A's past while B is done. A is a change of an object the
//     process reads, most interesting first (a deletion starting, a
//     deletion, a status write, a spec change, a creation); B a creation or
//     a deletion of an object of a kind it caches (what changes what it
//     would do if it saw A's past), a creation first. A pair whose restart
//     would come after the heal is left out: its view would be fresh;
//   - a hold of a kind the process caches, from just before each change of
//     that kind until the heal (creations first, then deletions, then the
//     rest);
//   - the unobserved windows of each object the process caches
//     (UnobservedWindows: from each change until the next, and from its
//     creation until each later change and over its whole life), so that
//     an object whose creation and first updates were never seen, and that
//     is first seen in a later state, is one plan.
//
// The classes are interleaved, one plan of each in turn, so that a budget
// smaller than the sweep covers the most interesting plans of every class;
// classes sp does not allow, or has no material for, are left out.
func Sweep(sp Space, tg Targets, intermediate map[string][]int) []Targeted {
	sp = sp.withDefaults()
	lists := map[SweepClass][]Targeted{}
	if sp.allows(Crash) && sp.MaxWrite > 0 {
		lists[SweepCrashes] = sweepCrashes(sp, tg, intermediate)
	}
	if sp.allows(Stale) && sp.MaxStale > 0 {
		lists[SweepStale] = sweepStale(sp, tg)
	}
	if sp.allows(Hold) {
		lists[SweepHolds] = sweepHolds(sp, tg)
	}
	if sp.allows(Unobserved) {
		for _, proc := range sp.Processes {
			seen := map[Fault]bool{}
			for _, f := range UnobservedWindows(tg, proc) {
				if seen[f] || sp.KindsOnly && !slices.Contains(sp.Kinds, f.Resource) {
					continue
				}
				seen[f] = true
				lists[SweepUnobserved] = append(lists[SweepUnobserved], Targeted{Class: SweepUnobserved, Faults: []Fault{f}})
			}
		}
	}
	var out []Targeted
	for i := 0; ; i++ {
		more := false
		for _, c := range SweepClasses {
			if l := lists[c]; i < len(l) {
				out = append(out, l[i])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

func sweepCrashes(sp Space, tg Targets, intermediate map[string][]int) []Targeted {
	var out []Targeted
	for _, proc := range sp.Processes {
		n := tg.Written[proc]
		done := map[int]bool{}
		add := func(k int) {
			if k < 1 || k > n || done[k] {
				return
			}
			done[k] = true
			out = append(out, Targeted{Class: SweepCrashes, Faults: []Fault{{Kind: Crash, Process: proc, Write: k}}})
		}
		for _, k := range intermediate[proc] {
			add(k)
		}
		for k := 1; k <= n; k++ {
			add(k)
		}
	}
	return out
}

// cachedWrites are tg's writes of kinds proc caches; with inKinds, of sp's
// Kinds only (the kinds a hold may name).
func cachedWrites(sp Space, tg Targets, proc string, inKinds bool) []Write {
	var out []Write
	for _, w := range tg.Writes {
		if w.Kind != "" && (!inKinds || slices.Contains(sp.Kinds, w.Kind)) && len(tg.watchedOf(proc, []string{w.Kind})) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// frozenInterest orders a stale view's frozen point A: a deletion starting,
// a deletion, a status write, a spec change, a creation.
func frozenInterest(c Change) int {
	switch c {
	case Deleting:
		return 0
	case Deleted:
		return 1
	case Status:
		return 2
	case Updated:
		return 3
	}
	return 4
}

func sweepStale(sp Space, tg Targets) []Targeted {
	last := sp.Horizon - sp.RestartDelay - time.Millisecond // the last crash whose restart comes before the heal
	type pair struct {
		proc string
		a, b Write
	}
	var pairs []pair
	for _, proc := range sp.Processes {
		ws := cachedWrites(sp, tg, proc, false)
		for i, a := range ws {
			if sp.KindsOnly && !slices.Contains(sp.Kinds, a.Kind) {
				continue // the profile narrows the kinds a view may lag
			}
			for _, b := range ws[i+1:] {
				if b.At <= a.At || b.At+time.Millisecond > last {
					continue
				}
				if b.Change != Created && b.Change != Deleted && b.Change != Deleting {
					continue
				}
				pairs = append(pairs, pair{proc, a, b})
			}
		}
	}
	slices.SortStableFunc(pairs, func(x, y pair) int {
		return cmp.Or(
			cmp.Compare(frozenInterest(x.a.Change), frozenInterest(y.a.Change)),
			cmp.Compare(boolRank(x.b.Change != Created), boolRank(y.b.Change != Created)))
	})
	age := max(sp.MaxStale, time.Millisecond)
	type variant struct {
		before, every bool
	}
	var out []Targeted
	seen := map[Fault]bool{}
	// First the past of the object that changed: a restart right after B
	// onto each earlier version A of B's own object, the latest first.
	for _, pr := range objectPasts(sp, tg, last) {
		f := Fault{Kind: Stale, Process: pr.proc, At: pr.b.At + time.Millisecond, Age: time.Millisecond, Rev: pr.a.RV, Resource: pr.a.Kind}
		if !seen[f] {
			seen[f] = true
			out = append(out, Targeted{Class: SweepStale, Faults: []Fault{f}})
		}
	}
	for _, v := range []variant{{false, false}, {true, false}, {false, true}, {true, true}} {
		for _, pr := range pairs {
			f := Fault{Kind: Stale, Process: pr.proc, At: pr.b.At + time.Millisecond, Age: age, Rev: pr.a.RV, Resource: pr.a.Kind}
			if v.before {
				if pr.a.RV <= 1 {
					continue
				}
				f.Rev = pr.a.RV - 1
			}
			if v.every {
				f.Resource = ""
			}
			if seen[f] {
				continue
			}
			seen[f] = true
			out = append(out, Targeted{Class: SweepStale, Faults: []Fault{f}})
		}
	}
	return out
}

// pastPair is a stale restart's two targets: the process, the change A its
// view is frozen just after, and the change B it restarts right after.
type pastPair struct {
	proc string
	a, b Write
}

// objectPasts are the stale pairs whose view is the past of an object
// (Sieve's stale state at its sharpest: a process restarts onto a version of
// an object that has since changed, and acts on it): for each object a
// process caches, B is its last change in the fault phase (when the object
// has settled: the process has answered every change of it, so the past
// contradicts what it did), and A each earlier version of it: the latest
// first, then the earliest (the object as it was created, before anything
// the operator did to it), then the rest, for each process in turn. The
// objects come by what their last change did (a deletion first, then a
// creation, a deletion starting, a spec change, a status write), then in
// the order of their last change. Each view catches up 1ms after the
// restart, so that the catch-up races the process's first acts on the past
// (a view that stays behind for MaxStale is the pairs' that follow). An
// object whose last change would put the restart after the heal is aimed
// at its last change before it.
func objectPasts(sp Space, tg Targets, last time.Duration) []pastPair {
	rank := func(c Change) int {
		switch c {
		case Deleted:
			return 0
		case Created:
			return 1
		case Deleting:
			return 2
		case Updated:
			return 3
		}
		return 4 // a status write
	}
	type ranked struct {
		pastPair
		past, proc int // the past's order (0 the latest, 1 the earliest, then the latest of the rest); the process's
	}
	var all []ranked
	for pi, proc := range sp.Processes {
		ws := cachedWrites(sp, tg, proc, false)
		settled := map[[2]string]Write{} // each object's last change whose restart comes before the heal
		for _, w := range ws {
			if w.Object != "" && w.At+time.Millisecond <= last {
				settled[[2]string{w.Kind, w.Object}] = w
			}
		}
		for _, b := range ws {
			if settled[[2]string{b.Kind, b.Object}] != b {
				continue
			}
			var pasts []Write // B's object before B, the latest first
			for i := len(ws) - 1; i >= 0; i-- {
				a := ws[i]
				if a.RV < b.RV && a.Kind == b.Kind && a.Object == b.Object && a.Change != Deleted &&
					(!sp.KindsOnly || slices.Contains(sp.Kinds, a.Kind)) {
					pasts = append(pasts, a)
				}
			}
			for k, a := range pasts {
				order := k + 1
				switch k {
				case 0:
					order = 0
				case len(pasts) - 1:
					order = 1
				}
				all = append(all, ranked{pastPair{proc, a, b}, order, pi})
			}
		}
	}
	slices.SortStableFunc(all, func(x, y ranked) int {
		return cmp.Or(
			cmp.Compare(rank(x.b.Change), rank(y.b.Change)),
			cmp.Compare(x.b.RV, y.b.RV),
			cmp.Compare(x.past, y.past),
			cmp.Compare(x.proc, y.proc))
	})
	out := make([]pastPair, len(all))
	for i, r := range all {
		out[i] = r.pastPair
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// holdInterest orders the change a hold starts before: a creation, a
// deletion starting, a deletion, the rest.
func holdInterest(c Change) int {
	switch c {
	case Created:
		return 0
	case Deleting:
		return 1
	case Deleted:
		return 2
	}
	return 3
}

func sweepHolds(sp Space, tg Targets) []Targeted {
	type hold struct {
		w Write
		f Fault
	}
	var holds []hold
	seen := map[Fault]bool{}
	for _, proc := range sp.Processes {
		for _, w := range cachedWrites(sp, tg, proc, true) {
			from := max(w.At-time.Millisecond, 0)
			if from >= sp.Horizon {
				continue
			}
			f := Fault{Kind: Hold, Process: proc, Resource: w.Kind, From: from, Until: sp.Horizon}
			if seen[f] {
				continue
			}
			seen[f] = true
			holds = append(holds, hold{w, f})
		}
	}
	slices.SortStableFunc(holds, func(x, y hold) int { return cmp.Compare(holdInterest(x.w.Change), holdInterest(y.w.Change)) })
	out := make([]Targeted, len(holds))
	for i, h := range holds {
		out[i] = Targeted{Class: SweepHolds, Faults: []Fault{h.f}}
	}
	return out
}
