package plan

import (
	"cmp"
	"slices"
	"sort"
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
	// SweepAPIErrors: an error answer to each write of the fault phase, a
	// 500 (the write not made) and a lost response (the write made, its
	// answer an error), one plan each (the API errors a world draws by
	// default: Targets.APIFaults).
	SweepAPIErrors SweepClass = "error answers to a write"
)

// SweepClasses are the classes in the order Sweep interleaves them.
var SweepClasses = []SweepClass{SweepCrashes, SweepStale, SweepHolds, SweepUnobserved, SweepAPIErrors}

// Targeted is one plan of a sweep: the faults to add to its workload, and
// whether the fault-free run ranks it (rank.go: it can matter by the run's
// own history).
type Targeted struct {
	Class  SweepClass
	Faults []Fault
	Ranked bool
}

// Sweep enumerates the targeted plans of one workload, from the fault-free
// run of it that gave tg (and its intermediate writes, as Space.Writes gives
// them): systematic, where Generator is random. Each plan adds one fault to
// the workload:
//
//   - a crash right after each write of each process of sp (its
//     intermediate states first: a crash after a reconcile's last write
//     leaves none);
//
//   - first, a stale restart onto the past of each object that changed
//     (objectPasts): right after its change B, a view of it frozen at each
//     earlier version A, the most interesting frozen point first (as the
//     pairs' A below: a deletion starting first), then the latest first (a
//     deletion done first, then a creation, a deletion starting, a spec
//     change);
//
//   - then a stale restart for each pair of changes (A, B) of kinds the process
//     caches, B after A: its watch cache of A's kind frozen just after A
//     (then just before it; then every kind's), the crash 1 ms after B, so
//     that its new incarnation, up RestartDelay later and before the heal,
//     lists A's past while B is done. A is a change of an object the
//     process reads, most interesting first (a deletion starting, a
//     deletion, a status write, a spec change, a creation); B a creation or
//     a deletion of an object of a kind it caches (what changes what it
//     would do if it saw A's past), a creation first. A pair whose restart
//     would come after the heal is left out: its view would be fresh. Each
//     of the four views takes at most the first maxStalePairs pairs in this
//     order (a hot loop's thousands of writes make millions of pairs; no
//     budget takes more than a few hundred);
//
//   - a hold of a kind the process caches, from just before each change of
//     that kind until the heal (creations first, then deletions, then the
//     rest);
//
//   - the unobserved windows of each object the process caches
//     (UnobservedWindows: from each change until the next, and from its
//     creation until each later change and over its whole life), so that
//     an object whose creation and first updates were never seen, and that
//     is first seen in a later state, is one plan.
//
//   - an error answer to each write of an operator process
//     (tg.APIFaults): a 500, then a lost response, in the order the run
//     made them (a 429 is left to the random plans: the write is retried
//     after a second, as after a 500); those that leave an intermediate
//     state are ranked (rank.go).
//
// The plans the fault-free run ranks (rank.go) come first, then the rest;
// within each, the classes are interleaved, one plan of each in turn, so
// that a budget smaller than the sweep covers the most interesting plans of
// every class; classes sp does not allow, or has no material for, are left
// out.
func Sweep(sp Space, tg Targets, intermediate map[string][]int) []Targeted {
	sp = sp.withDefaults()
	lists := map[SweepClass][]Targeted{}
	if sp.allows(Crash) && sp.MaxWrite > 0 {
		lists[SweepCrashes] = sweepCrashes(sp, tg, intermediate)
	}
	if sp.allows(API) {
		lists[SweepAPIErrors] = sweepAPIErrors(sp, tg)
	}
	c := newCausality(tg)
	if sp.allows(Stale) && sp.MaxStale > 0 {
		lists[SweepStale] = sweepStale(sp, tg, c)
	}
	if sp.allows(Hold) {
		lists[SweepHolds] = sweepHolds(sp, tg, c)
	}
	if sp.allows(Unobserved) {
		for _, proc := range sp.Processes {
			seen := map[Fault]bool{}
			for _, f := range UnobservedWindows(tg, proc) {
				if seen[f] || sp.KindsOnly && !slices.Contains(sp.Kinds, f.Resource) {
					continue
				}
				seen[f] = true
				a, ok := firstHidden(tg, f)
				ranked := ok && c.actedOn(proc, a)
				lists[SweepUnobserved] = append(lists[SweepUnobserved], Targeted{Class: SweepUnobserved, Faults: []Fault{f}, Ranked: ranked})
			}
		}
	}
	var out []Targeted
	for _, ranked := range []bool{true, false} {
		tier := map[SweepClass][]Targeted{}
		for _, c := range SweepClasses {
			for _, tp := range lists[c] {
				if tp.Ranked == ranked {
					tier[c] = append(tier[c], tp)
				}
			}
		}
		out = append(out, interleave(tier)...)
	}
	return out
}

// interleave takes one plan of each class in turn, in SweepClasses' order.
func interleave(lists map[SweepClass][]Targeted) []Targeted {
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

// sweepAPIErrors are the error answers to each write of tg.APIFaults: a
// 500, then a lost response, each in a window that opens just before the
// write's request and meets it once (count=1).
func sweepAPIErrors(sp Space, tg Targets) []Targeted {
	var out []Targeted
	seen := map[Fault]bool{}
	for _, a := range tg.APIFaults {
		if a.Fault.Code != 500 && !a.Fault.Ambiguous {
			continue
		}
		from := max(a.At-time.Millisecond, 0)
		if from >= sp.Horizon {
			continue
		}
		f := Fault{Kind: API, API: a.Fault, From: from, Until: sp.Horizon}
		f.Process, f.API.Agent = f.API.Agent, "" // process= is the fault's Agent (package cluster)
		if f.API.Count == 0 {
			f.API.Count = 1
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, Targeted{Class: SweepAPIErrors, Faults: []Fault{f}, Ranked: a.leavesIntermediate()})
	}
	return out
}

func sweepCrashes(sp Space, tg Targets, intermediate map[string][]int) []Targeted {
	var out []Targeted
	for _, proc := range sp.Processes {
		n := tg.Written[proc]
		done := map[int]bool{}
		add := func(k int, ranked bool) {
			if k < 1 || k > n || done[k] {
				return
			}
			done[k] = true
			out = append(out, Targeted{Class: SweepCrashes, Faults: []Fault{{Kind: Crash, Process: proc, Write: k}}, Ranked: ranked})
		}
		for _, k := range intermediate[proc] {
			add(k, true) // an intermediate state (rank.go)
		}
		for k := 1; k <= n; k++ {
			add(k, false)
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

// maxStalePairs bounds the pairs of two changes each of the stale views
// (frozen just after A or just before it, of A's kind or of every kind)
// examines, in the sweep's order: a hot loop of thousands of writes makes
// millions of pairs, and ranking each (causality over the writes between)
// ran past 15 minutes on one run (examples/patterns' key-pair twin); no
// budget takes more than a few hundred of them. The objects' pasts come
// before and are not bounded (one pair for each earlier version of an
// object).
const maxStalePairs = 10_000

func sweepStale(sp Space, tg Targets, c *causality) []Targeted {
	last := sp.Horizon - sp.RestartDelay - time.Millisecond // the last crash whose restart comes before the heal
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
			out = append(out, Targeted{Class: SweepStale, Faults: []Fault{f}, Ranked: c.causal(pr.proc, pr.a, pr.b)})
		}
	}
	for _, v := range []variant{{false, false}, {true, false}, {false, true}, {true, true}} {
		stalePairs(sp, tg, last, maxStalePairs, func(pr pastPair) {
			f := Fault{Kind: Stale, Process: pr.proc, At: pr.b.At + time.Millisecond, Age: age, Rev: pr.a.RV, Resource: pr.a.Kind}
			if v.before {
				if pr.a.RV <= 1 {
					return
				}
				f.Rev = pr.a.RV - 1
			}
			if v.every {
				f.Resource = ""
			}
			if seen[f] {
				return
			}
			seen[f] = true
			// Ranked: the view frozen just after A, of A's kind, when
			// the pair is causal (rank.go).
			ranked := !v.before && !v.every && c.causal(pr.proc, pr.a, pr.b)
			out = append(out, Targeted{Class: SweepStale, Faults: []Fault{f}, Ranked: ranked})
		})
	}
	return out
}

// stalePairs calls each with the first n pairs of two changes (A, B) of
// kinds a process caches, B a creation or deletion after A whose restart
// comes before the heal (B.At+1ms <= last), in the sweep's order: A's
// interest first (frozenInterest), then B a creation before B a deletion,
// then each process in turn, A in commit order, B in commit order. It
// enumerates lazily: a run's millions of pairs are never all made.
func stalePairs(sp Space, tg Targets, last time.Duration, n int, each func(pastPair)) {
	type writes struct {
		proc    string
		ws      []Write
		created []int // the indexes in ws of the creations B may be, then of the deletions
		deleted []int
	}
	var procs []writes
	for _, proc := range sp.Processes {
		pw := writes{proc: proc, ws: cachedWrites(sp, tg, proc, false)}
		for j, b := range pw.ws {
			switch {
			case b.At+time.Millisecond > last:
			case b.Change == Created:
				pw.created = append(pw.created, j)
			case b.Change == Deleted || b.Change == Deleting:
				pw.deleted = append(pw.deleted, j)
			}
		}
		procs = append(procs, pw)
	}
	made := 0
	for interest := range 5 {
		for _, creation := range []bool{true, false} {
			for _, pw := range procs {
				bs := pw.deleted
				if creation {
					bs = pw.created
				}
				for i, a := range pw.ws {
					if frozenInterest(a.Change) != interest || sp.KindsOnly && !slices.Contains(sp.Kinds, a.Kind) {
						continue // the profile narrows the kinds a view may lag
					}
					for _, j := range bs[sort.SearchInts(bs, i+1):] {
						if pw.ws[j].At <= a.At {
							continue
						}
						if made == n {
							return
						}
						made++
						each(pastPair{pw.proc, a, pw.ws[j]})
					}
				}
			}
		}
	}
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
// contradicts what it did), and A each earlier version of it. A view frozen
// at a deletion starting comes first, then one frozen at a deletion, a
// status write, a spec change, a creation (frozenInterest: the pairs'
// order; on an operator that writes a Cluster's status six times a
// lifetime, the view of the old Cluster being deleted came after every
// other past of every other object, at plan 74 of 6,050 stale pairs, and
// comes at plan 2 to 14 with it: examples/bigcluster). Then the objects
// come by what their last change did (a deletion first, then a creation,
// a deletion starting, a spec change, a status write), in the order of
// their last change, and each object's A the latest first, then the
// earliest (the object as it was created, before anything the operator
// did to it), then the rest, for each process in turn. Each view catches up 1ms after the
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
			cmp.Compare(frozenInterest(x.a.Change), frozenInterest(y.a.Change)),
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

func sweepHolds(sp Space, tg Targets, c *causality) []Targeted {
	type hold struct {
		w      Write
		f      Fault
		ranked bool
	}
	var holds []hold
	seen := map[Fault]int{} // each hold's index in holds
	for _, proc := range sp.Processes {
		for _, w := range cachedWrites(sp, tg, proc, true) {
			from := max(w.At-time.Millisecond, 0)
			if from >= sp.Horizon {
				continue
			}
			f := Fault{Kind: Hold, Process: proc, Resource: w.Kind, From: from, Until: sp.Horizon}
			acted := c.actedOn(proc, w)
			if i, ok := seen[f]; ok {
				holds[i].ranked = holds[i].ranked || acted // it keeps w from proc too
				continue
			}
			seen[f] = len(holds)
			holds = append(holds, hold{w, f, acted})
		}
	}
	slices.SortStableFunc(holds, func(x, y hold) int { return cmp.Compare(holdInterest(x.w.Change), holdInterest(y.w.Change)) })
	out := make([]Targeted, len(holds))
	for i, h := range holds {
		out[i] = Targeted{Class: SweepHolds, Faults: []Fault{h.f}, Ranked: h.ranked}
	}
	return out
}
