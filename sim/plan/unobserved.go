package plan

import (
	"slices"

	"pgregory.net/rapid"
)

// objectWrites are one object's writes of a reference run, in commit order.
type objectWrites struct {
	kind, object string
	writes       []Write
}

// watchedObjects groups tg's writes of kinds proc caches (and, when kinds is
// not nil, of those kinds) by object, in the order each object was first
// written. Writes without a kind or an object are left out: an unobserved
// fault names both.
func watchedObjects(tg Targets, proc string, kinds []string) []objectWrites {
	var out []objectWrites
	index := map[[2]string]int{}
	for _, w := range tg.Writes {
		if w.Kind == "" || w.Object == "" || len(tg.watchedOf(proc, []string{w.Kind})) == 0 {
			continue
		}
		if kinds != nil && !slices.Contains(kinds, w.Kind) {
			continue
		}
		key := [2]string{w.Kind, w.Object}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, objectWrites{kind: w.Kind, object: w.Object})
		}
		out[i].writes = append(out[i].writes, w)
	}
	return out
}

// window is the unobserved fault of proc over o's writes from its i-th (not
// a deletion) until its j-th (j = len: none; a deletion or none gives
// until=0, its deletion or the heal).
func (o objectWrites) window(proc string, i, j int) Fault {
	f := Fault{Kind: Unobserved, Process: proc, Resource: o.kind, Object: o.object, FromRev: o.writes[i].RV}
	if i == 0 && o.writes[0].Change == Created {
		f.FromRev = 0 // from its creation: the text reads so
	}
	if j < len(o.writes) && o.writes[j].Change != Deleted {
		f.UntilRev = o.writes[j].RV
	}
	return f
}

// UnobservedWindows is the systematic list of unobserved faults of proc
// over the reference run whose Targets tg are: for each object of a kind
// proc caches (tg.Watched) that the run changed, a window from each of its
// changes that is not a deletion until its next change (until=0 when that is
// its deletion, or there is none: then the deletion or the heal ends it), so
// that proc never sees the state that change made (Sieve's unobserved
// state, one per change); and from each creation until each later change of
// that lifetime, so that proc never sees the object's creation and first
// updates and first sees it in a later state (a Pod first seen finished).
// The order finds bugs early: the windows from a creation until the next
// change first (a controller that never sees an object's creation: from=0
// for an object's first creation), then from a creation over its whole
// lifetime (until its deletion or the heal), then from a creation until
// each later change (the nearest first), then from a deletion starting (a
// deletionTimestamp set: a finalizer's work unseen), then the rest; each
// group in commit order.
func UnobservedWindows(tg Targets, proc string) []Fault {
	var created, lifetime, spans, deleting, rest []Fault
	for _, o := range watchedObjects(tg, proc, nil) {
		for i, w := range o.writes {
			f := o.window(proc, i, i+1)
			switch w.Change {
			case Deleted:
				continue
			case Created:
				created = append(created, f)
				end := len(o.writes) // its deletion, or none
				for k := i + 1; k < len(o.writes); k++ {
					if o.writes[k].Change == Deleted {
						end = k
						break
					}
				}
				for j := i + 2; j < end; j++ {
					spans = append(spans, o.window(proc, i, j))
				}
				if i+1 < end {
					lifetime = append(lifetime, o.window(proc, i, end))
				}
			case Deleting:
				deleting = append(deleting, f)
			default:
				rest = append(rest, f)
			}
		}
	}
	// Within each group, commit order (the objects were walked in turn);
	// spans of one creation stay nearest first (a stable sort).
	var out []Fault
	for _, g := range [][]Fault{created, lifetime, spans, deleting, rest} {
		out = append(out, sortByFrom(g, tg)...)
	}
	return out
}

// sortByFrom orders windows by the resourceVersion of their first withheld
// change (an object's creation, from=0, by the first write of it in tg).
func sortByFrom(fs []Fault, tg Targets) []Fault {
	rev := func(f Fault) uint64 {
		if f.FromRev != 0 {
			return f.FromRev
		}
		for _, w := range tg.Writes {
			if w.Kind == f.Resource && w.Object == f.Object {
				return w.RV
			}
		}
		return 0
	}
	out := append([]Fault(nil), fs...)
	// Insertion sort: stable, and the lists are short.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && rev(out[j]) < rev(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// drawUnobserved draws an unobserved fault of proc aimed at the reference
// run's changes (tg): an object of a kind proc caches (and sp may fault:
// sp.Kinds when set), the window from one of its changes (shrinking towards
// the first: its creation) until a later one of its changes (shrinking
// towards the next) or its deletion or the heal (until=0). It returns the
// zero Fault when tg has no change of an object proc caches: the caller
// draws the class only when UnobservedWindows(tg, proc) is not empty, or
// drops a zero Fault.
func drawUnobserved(t *rapid.T, sp Space, tg Targets, proc string) Fault {
	var kinds []string
	if len(sp.Kinds) > 0 {
		kinds = sp.Kinds
	}
	var objs []objectWrites
	for _, o := range watchedObjects(tg, proc, kinds) {
		for _, w := range o.writes {
			if w.Change != Deleted {
				objs = append(objs, o)
				break
			}
		}
	}
	if len(objs) == 0 {
		return Fault{}
	}
	o := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "unobserved-object")]
	var from []int // the writes a window may start at: not a deletion
	for i, w := range o.writes {
		if w.Change != Deleted {
			from = append(from, i)
		}
	}
	i := from[rapid.IntRange(0, len(from)-1).Draw(t, "unobserved-from")]
	// Until a later change: the next (j = i+1) at the most, the object's
	// deletion (which ends the window whatever until= says) or, with none,
	// the heal at the least (j = end: until=0).
	end := len(o.writes)
	for k := i + 1; k < len(o.writes); k++ {
		if o.writes[k].Change == Deleted {
			end = k
			break
		}
	}
	j := rapid.IntRange(i+1, end).Draw(t, "unobserved-until")
	return o.window(proc, i, j)
}
