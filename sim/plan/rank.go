package plan

import (
	"strings"
	"time"
)

// The ranking of a sweep: which of its targeted plans the fault-free run
// says can matter (Sieve's pruning by causality, kept as an order rather
// than a cut). Process P acted on a change A when, in the fault-free run,
// a reconcile of P read A's version of its object (a get that returned
// it, or a list of its kind made while it was the object's newest) and
// then made a write that changed something (an Act: a no-op write acts on
// nothing). The rule, stated once:
//
//   - A crash is ranked where it leaves an intermediate state: right
//     after a write that another write of the same reconcile follows
//     (Space.Writes).
//   - An error answer to a write is ranked where it leaves an
//     intermediate state too: a 500 (the write not made) to a write after
//     another of its reconcile, which stays while the rest is not made; a
//     lost response (the write made) to a write another of its reconcile
//     follows. A lost response to a create is ranked wherever it is: the
//     retry meets the object it made (AlreadyExists, or a second object
//     under a generated name).
//   - A hold of a kind, or an unobserved window, is ranked when the first
//     change it keeps from P is one P acted on.
//   - A stale view of P frozen just after a change A, restarted right
//     after a later change B, is ranked when P acted on A and B, or a
//     change of A's object between them (the view hides it), conflicts
//     with that action: B creates or deletes the object that write wrote
//     (a child re-created or removed since), or deletes A's object (what
//     the action was made for is gone), creates it again under its name,
//     changes its spec again (a count undone), or is another process's
//     change of its status or metadata (what P may have copied: P's own
//     status writes undo nothing P decided).
//
// Ranked plans come first, in the sweep's order; the rest follow in it.

// An Act is a write of a process's reconcile in a fault-free run that
// changed something (a no-op write commits no new version: it acts on
// nothing), with the reads its reconcile made before it: what the process
// acted on.
type Act struct {
	At      time.Duration // when it was made
	Process string
	// Kind ("group/version/Kind") and Object ("namespace/name", "name"
	// when cluster-scoped) are what it wrote, as a Write names them.
	Kind, Object string
	Reads        []Observed // its reconcile's reads before it, in order
}

// An Observed is a read a reconcile made, and the version it returned.
type Observed struct {
	At   time.Duration
	Kind string // "group/version/Kind"
	// Object is a get's object ("namespace/name", "name" when
	// cluster-scoped), or a list's scope: "namespace/*", or "*" for every
	// namespace (a cluster-scoped kind's too).
	Object string
	// RV is the version it returned: a get's, its object's; a list's, the
	// resourceVersion its cache had applied the kind's changes through
	// (0: a live list, as of At).
	RV uint64
}

// covers reports whether r read o (an object as a Write names it).
func (r Observed) covers(kind, o string) bool {
	if r.Kind != kind {
		return false
	}
	switch {
	case r.Object == "*":
		return true
	case strings.HasSuffix(r.Object, "/*"):
		return strings.HasPrefix(o, strings.TrimSuffix(r.Object, "*"))
	}
	return r.Object == o
}

// saw reports whether r returned what the state change a shows the
// process: a's version, or one a changed only in status or metadata (a
// Status change undoes no decision, so acting on the version before it is
// acting on what it shows). A get, such a version; a list, the kind as of
// such a version and before the next change of a's object.
func (c *causality) saw(r Observed, a Write) bool {
	if !r.covers(a.Kind, a.Object) || a.Change == Deleted {
		return false
	}
	base := c.base[a.RV]
	next, ok := c.next[a.RV]
	if !strings.HasSuffix(r.Object, "*") {
		return base.RV <= r.RV && r.RV <= a.RV
	}
	if r.RV == 0 { // a live list: as of its instant
		return base.At <= r.At && (!ok || next.At > r.At)
	}
	return r.RV >= base.RV && (!ok || next.RV > r.RV)
}

// conflicts reports whether b, a change proc did not make, conflicts with
// act, made having read a: b creates or deletes what act wrote; or b
// changes a's object again: deletes it, creates it again, changes its
// spec, or (another process's write) its status or metadata, which act
// may have copied or decided on.
func conflicts(proc string, act Act, a, b Write) bool {
	if b.Kind == act.Kind && b.Object == act.Object && (b.Change == Created || b.Change == Deleted || b.Change == Deleting) {
		return true
	}
	if b.Kind != a.Kind || b.Object != a.Object || b.RV <= a.RV {
		return false
	}
	return b.Change != Status || b.Process != proc
}

// causality answers, for one Targets, whether a stale pair is causal
// (the rule above), each frozen change's acts found once.
type causality struct {
	tg    Targets
	acted map[causalKey][]int  // the Acts of a process that read a change
	hides map[causalKey]uint64 // causality.hidden's answers
	next  map[uint64]Write     // by a change's resourceVersion, its object's next change
	// base is, by a change's resourceVersion, the latest change of its
	// object at or before it that was not a Status change (itself, when
	// it is not one).
	base map[uint64]Write
}

type causalKey struct {
	proc string
	rv   uint64
	kind string
	obj  string
}

func newCausality(tg Targets) *causality {
	c := &causality{tg: tg, acted: map[causalKey][]int{}, hides: map[causalKey]uint64{}, next: map[uint64]Write{}, base: map[uint64]Write{}}
	last := map[[2]string]uint64{} // each object's latest change so far
	base := map[[2]string]Write{}  // and its latest that was not a Status change
	for _, w := range tg.Writes {  // in commit order
		k := [2]string{w.Kind, w.Object}
		if rv, ok := last[k]; ok {
			c.next[rv] = w
		}
		last[k] = w.RV
		if b, ok := base[k]; !ok || w.Change != Status {
			base[k] = w
		} else {
			w = b
		}
		c.base[last[k]] = w
	}
	return c
}

// actsOn are the indexes (in tg.Acts) of proc's acts that read a.
func (c *causality) actsOn(proc string, a Write) []int {
	k := causalKey{proc, a.RV, a.Kind, a.Object}
	if is, ok := c.acted[k]; ok {
		return is
	}
	is := []int{}
	for i, act := range c.tg.Acts {
		if act.Process != proc {
			continue
		}
		for _, r := range act.Reads {
			if c.saw(r, a) {
				is = append(is, i)
				break
			}
		}
	}
	c.acted[k] = is
	return is
}

// causal reports whether proc's view frozen just after a, restarted right
// after b, is ranked: proc acted on a before b, and a change the view
// hides conflicts with the action: b, or a change of a's object after a
// up to b (the view shows a in their place).
func (c *causality) causal(proc string, a, b Write) bool {
	for _, i := range c.actsOn(proc, a) {
		if act := c.tg.Acts[i]; act.At < b.At && conflicts(proc, act, a, b) {
			return true
		}
	}
	h := c.hidden(proc, a)
	return h != 0 && h < b.RV
}

// hidden is the resourceVersion of the first change of a's object after a
// that conflicts with an act of proc's on a made before it (0: none): a
// view frozen at a and restarted after it hides it. A change of a's own
// object conflicts with every act on a alike (conflicts), so the first one
// after proc's earliest act on a is it: found once for each a, in one walk
// of its object's changes (a hot loop's object has thousands, and every
// act on it and every pair walked them: examples/patterns' key-pair twin).
func (c *causality) hidden(proc string, a Write) uint64 {
	k := causalKey{proc, a.RV, a.Kind, a.Object}
	if rv, ok := c.hides[k]; ok {
		return rv
	}
	var first uint64
	if acts := c.actsOn(proc, a); len(acts) > 0 {
		earliest := c.tg.Acts[acts[0]].At
		for _, i := range acts {
			earliest = min(earliest, c.tg.Acts[i].At)
		}
		for h, ok := c.next[a.RV]; ok; h, ok = c.next[h.RV] {
			if earliest < h.At && (h.Change != Status || h.Process != proc) {
				first = h.RV
				break
			}
		}
	}
	c.hides[k] = first
	return first
}

// actedOn reports whether proc acted on a (the rule above).
func (c *causality) actedOn(proc string, a Write) bool { return len(c.actsOn(proc, a)) > 0 }

// firstHidden is the first change an unobserved window f keeps from its
// process: the change that made f.FromRev, or (from=0) its object's first
// change in tg.
func firstHidden(tg Targets, f Fault) (Write, bool) {
	for _, w := range tg.Writes {
		if w.Kind == f.Resource && w.Object == f.Object && (f.FromRev == 0 || w.RV == f.FromRev) {
			return w, true
		}
	}
	return Write{}, false
}

// leavesIntermediate reports whether the error answer a leaves an
// intermediate state (the rule above).
func (a APIFault) leavesIntermediate() bool {
	switch {
	case a.Fault.Ambiguous:
		return a.After || a.Fault.Verb == "create"
	case a.Fault.Code == 500:
		return a.Before
	}
	return false
}
