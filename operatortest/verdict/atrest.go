package verdict

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Writes at rest (Kamera's no-op and liveness class): at rest, a correct
// operator writes nothing it would not write on a real cluster at rest.
//
// Rest is the second half of the heal budget, counted from the later of the
// heal, the last start of an operator's process and the end of the run's
// wait for a retry or scheduled work (steps "retries" and "scheduled":
// sim/cluster's Phases): the workload and every fault are over, caches have
// caught up, a restarted incarnation has made its first pass, back-offs of
// the fault phase have run out and the world has made the stops it had
// scheduled. What an
// operator writes then is what its own clock asks for (a schedule, a
// RequeueAfter poll) or nothing.
//
// A write at rest is idle when it stores nothing new: it changes nothing
// stored (kube-apiserver answers an update that changes nothing with the
// stored object, its resourceVersion unchanged, and no watch event: the
// apiserver model does the same), or it changes only times (a lastSyncTime
// refreshed by every reconcile: the API conventions keep heartbeats out of
// status, and a condition's lastTransitionTime moves only with a
// transition), or it sets the object back to what it was two changes
// before, times aside (a condition that flips between two values, a field
// two writers fight over). An idle write that follows a change of another
// object, by another writer, since the controller's last write to this one
// answers that change (provoked), and is not counted; nor is a write of a
// reconcile that ended in an error (a controller still failing is not at
// rest: no-error-at-rest judges it). Two rules, each a clear count:
//
//   - idle: restIdleWrites or more idle writes at rest by one controller to
//     one object violate, in the faulted run or in a fault-free reference
//     of the same workload (there it is a bug with no fault). A correct
//     operator's last real change is followed by at most one idle write (the
//     reconcile its own write's event triggers reads the object back and
//     finds nothing to do, and a careless one writes it again unchanged), and
//     rest begins well after its last change; three are a cadence. A
//     time-driven operator's own writes at rest change what it manages (the
//     schedule's next run, its status's list of active runs) and are not idle.
//   - more: a controller's writes at rest to one object (idle or not) in the
//     faulted run, at least restMoreWrites more than in every fault-free
//     reference over the same window and at least twice as many, and still
//     going on in the window's second half, violate: the faults left it
//     writing. Writes that stop in the first half are work a fault delayed
//     into the window and finished there (a long hold's deletion finalized
//     late: catalogue reposync/rolebinding-revoked, robust), not a cadence. A time-driven operator writes at the
//     clock's pace in both runs; a fault moves the phase of its cadence,
//     putting one write more or less in the window, never a second cadence.
const (
	// restIdleWrites is the idle rule's count: the first idle write after a
	// change can be an echo; three are a cadence.
	restIdleWrites = 3
	// restMoreWrites is the more rule's margin over the fault-free count.
	restMoreWrites = 3
)

// restKind classifies a write at rest.
type restKind int

const (
	restChange restKind = iota // stored something new
	restNoop                   // changed nothing stored
	restTimes                  // changed only times
	restBack                   // set the object back to its state two changes before
)

// restWrite is one successful write of an operator's controller after the
// heal.
type restWrite struct {
	at     time.Duration
	kind   restKind
	fields []string // what it changed (idle ones: the times, or the flip)
	// provoked: another object changed (by another writer) since the
	// writer's last write to this one (provoked).
	provoked bool
}

// restWriter is one controller's writes to one object after the heal.
type restWriter struct {
	by, object string // controller (process/controller), canonical object key
	writes     []restWrite
}

// restWrites are a run's writes after the heal, by controller and object,
// and where its rest begins.
type restWrites struct {
	From, end time.Duration // rest: from .. end (from > end: no rest)
	writers   []*restWriter // in order of first write
}

// writesAtRest collects the operator's writes of r after its heal.
func (s *Snapshot) writesAtRest(r *check.Run) *restWrites {
	w := s.World
	out := &restWrites{From: r.End + 1, end: r.End}
	if r.HealAt == 0 {
		return out // never healed: no rest
	}
	settled := r.HealAt
	for _, st := range r.Steps {
		if w.Operators[st.Process] && (st.Op == "start" || st.Op == "restart") || st.Op == "retries" || st.Op == "scheduled" {
			settled = max(settled, st.At)
		}
	}
	out.From = settled + w.Opts.HealBudget/2
	// The log by resourceVersion, and each object's changes in order.
	byRV := map[uint64]int{}
	seq := map[types.UID][]int{} // uid -> indexes of its events
	place := map[int]int{}       // event index -> its place in seq
	for i, ev := range r.Log {
		byRV[ev.ResourceVersion] = i
		uid := ev.Object.GetUID()
		place[i] = len(seq[uid])
		seq[uid] = append(seq[uid], i)
	}
	contents := map[int]any{}
	content := func(i int) any {
		if c, ok := contents[i]; ok {
			return c
		}
		c := s.restContent(r.Log[i])
		contents[i] = c
		return c
	}
	// Who committed each resourceVersion: the first write that names it;
	// and the reconciles that ended in an error.
	committedBy := map[uint64]string{}
	type reconcileOf struct {
		process, controller string
		incarnation, n      int
	}
	failed := map[reconcileOf]bool{}
	incarnation := map[string]int{} // a restart numbers its reconciles from 1 again
	for _, st := range r.Steps {
		if st.Op == "start" || st.Op == "restart" {
			incarnation[st.Process]++
		}
		if st.Op == "result" && st.Reconcile > 0 && strings.HasPrefix(st.Result, "error:") {
			failed[reconcileOf{st.Process, st.Controller, incarnation[st.Process], st.Reconcile}] = true
		}
		if storedWrite(st) {
			if _, ok := committedBy[st.RVWritten]; !ok {
				committedBy[st.RVWritten] = writerOf(st)
			}
		}
	}
	// The changes after the heal, for provoked.
	var changes []restChangeOf
	for _, ev := range r.Log {
		if at := ev.At.Sub(r.Start); at >= r.HealAt && !slices.Contains(machinery, ev.GVK) {
			changes = append(changes, restChangeOf{at, ev.Object.GetUID(), committedBy[ev.ResourceVersion]})
		}
	}
	claimed := map[uint64]bool{} // resourceVersions a write committed
	writers := map[[2]string]*restWriter{}
	last := map[[2]string]time.Duration{} // each writer's last write to the object
	clear(incarnation)
	for _, st := range r.Steps {
		if st.Op == "start" || st.Op == "restart" {
			incarnation[st.Process]++
		}
		if !storedWrite(st) {
			continue
		}
		i, ok := byRV[st.RVWritten]
		noop := claimed[st.RVWritten] || (st.RVCurrent != 0 && st.RVCurrent == st.RVWritten)
		claimed[st.RVWritten] = true
		if !ok || !w.Operators[st.Process] || st.At < r.HealAt {
			continue
		}
		if st.Reconcile > 0 && failed[reconcileOf{st.Process, st.Controller, incarnation[st.Process], st.Reconcile}] {
			// A controller still failing is not at rest: its retries, and
			// what they write, are no-error-at-rest's to judge.
			continue
		}
		ev := r.Log[i]
		if slices.Contains(machinery, ev.GVK) || w.IsHistory(ev.GVK, ev.Object) {
			continue // the manager's Leases and Events; history records
		}
		rw := restWrite{at: st.At, kind: restChange}
		uid := ev.Object.GetUID()
		p := place[i]
		switch {
		case noop:
			rw.kind = restNoop
		case ev.Type == watch.Modified && p >= 1:
			prev := seq[uid][p-1]
			now, before := content(i), content(prev)
			switch {
			case canon.Encode(now) == canon.Encode(before):
				rw.kind = restTimes
				rw.fields = changedPaths(s.rawContent(r.Log[prev]), s.rawContent(ev), "", nil)
			case p >= 2 && canon.Encode(now) == canon.Encode(content(seq[uid][p-2])):
				rw.kind = restBack
				rw.fields = flips(before, now)
			default:
				rw.fields = changedPaths(before, now, "", nil)
			}
		}
		key := [2]string{writerOf(st), s.Key(ev.GVK, ev.Object)}
		since, ok := last[key]
		if !ok {
			since = r.HealAt
		}
		last[key] = st.At
		rw.provoked = provoked(changes, since, st.At, uid, key[0])
		wr := writers[key]
		if wr == nil {
			wr = &restWriter{by: key[0], object: key[1]}
			writers[key] = wr
			out.writers = append(out.writers, wr)
		}
		wr.writes = append(wr.writes, rw)
	}
	return out
}

// storedWrite is a write that stored (or would have stored) an object:
// create, update or patch, of the object or a subresource, that succeeded.
func storedWrite(st trace.Step) bool {
	op, _, _ := strings.Cut(st.Op, "/")
	return st.RVWritten != 0 && st.Result == "ok" && (op == "create" || op == "update" || op == "patch")
}

// restChangeOf is a change after the heal: when, of what, by whom ("":
// a write the trace does not show).
type restChangeOf struct {
	at     time.Duration
	uid    types.UID
	writer string
}

// provoked reports whether another object changed, by another writer than
// by, after since and up to at: a write then answers a change (the
// kubebuilder CronJob tutorial writes its status, unchanged, at every event
// of its Jobs), and is not one the operator's clock alone made.
func provoked(changes []restChangeOf, since, at time.Duration, uid types.UID, by string) bool {
	i, _ := slices.BinarySearchFunc(changes, since, func(c restChangeOf, t time.Duration) int {
		if c.at <= t {
			return -1
		}
		return 1
	})
	for ; i < len(changes) && changes[i].at <= at; i++ {
		if c := changes[i]; c.uid != uid && c.writer != by {
			return true
		}
	}
	return false
}

// writerOf names a step's writer: its controller, or its process outside
// one.
func writerOf(st trace.Step) string {
	if st.Controller != "" {
		return st.Controller
	}
	return st.Process
}

// rawContent is an event's object as stored, but what every write moves
// (resourceVersion, managedFields) and what counts spec writes
// (generation).
func (s *Snapshot) rawContent(ev apiserver.Event) any {
	b, err := json.Marshal(ev.Object)
	if err != nil {
		return "unencodable"
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, f := range []string{"resourceVersion", "managedFields", "generation"} {
			delete(md, f)
		}
	}
	return m
}

// restContent is rawContent with times masked (and uids and generated
// names as tokens: equivalence.go).
func (s *Snapshot) restContent(ev apiserver.Event) any {
	return s.Canon.Value(s.rawContent(ev))
}

// changedPaths appends the paths (status.lastSyncTime) at which a and b
// differ.
func changedPaths(a, b any, path string, out []string) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		var keys []string
		for k := range am { // lint:order-independent sorted below
			keys = append(keys, k)
		}
		for k := range bm { // lint:order-independent sorted below
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = changedPaths(am[k], bm[k], joinPath(path, k), out)
		}
		return out
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			out = changedPaths(al[i], bl[i], fmt.Sprintf("%s[%d]", path, i), out)
		}
		return out
	}
	if canon.Encode(a) != canon.Encode(b) {
		out = append(out, path)
	}
	return out
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// flips names what a write that set the object back changed: each path
// with the two values it moves between, in either direction
// (`status.conditions[0].status between "False" and "True"`).
func flips(before, now any) []string {
	var out []string
	for _, p := range changedPaths(before, now, "", nil) {
		a, b := valueAt(before, p), valueAt(now, p)
		if b < a {
			a, b = b, a
		}
		out = append(out, fmt.Sprintf("%s between %s and %s", p, a, b))
	}
	return out
}

// valueAt is the JSON of v at path (as changedPaths writes it), or absent.
func valueAt(v any, path string) string {
	for path != "" {
		var step string
		if strings.HasPrefix(path, "[") {
			end := strings.Index(path, "]")
			step, path = path[:end+1], strings.TrimPrefix(path[end+1:], ".")
			var i int
			_, _ = fmt.Sscanf(step, "[%d]", &i)
			l, ok := v.([]any)
			if !ok || i >= len(l) {
				return "absent"
			}
			v = l[i]
			continue
		}
		cut := strings.IndexAny(path, ".[")
		if cut < 0 {
			step, path = path, ""
		} else {
			step, path = path[:cut], strings.TrimPrefix(path[cut:], ".")
		}
		m, ok := v.(map[string]any)
		if !ok {
			return "absent"
		}
		if v, ok = m[step]; !ok {
			return "absent"
		}
	}
	return canon.Encode(v)
}

// at are a writer's writes from from on.
func (wr *restWriter) at(from time.Duration) []restWrite {
	i, _ := slices.BinarySearchFunc(wr.writes, from, func(w restWrite, t time.Duration) int { return int(w.at - t) })
	return wr.writes[i:]
}

// idle is the first writer of rw whose idle writes at rest reach
// restIdleWrites, with what they were.
func (rw *restWrites) idle() (string, time.Duration) {
	if rw == nil || rw.From > rw.end {
		return "", 0
	}
	for _, wr := range rw.writers {
		ws := wr.at(rw.From)
		var noop, times, back int
		var fields []string
		var kth time.Duration
		for _, w := range ws {
			if w.provoked {
				continue
			}
			switch w.kind {
			case restNoop:
				noop++
			case restTimes:
				times++
			case restBack:
				back++
			default:
				continue
			}
			if noop+times+back == restIdleWrites {
				kth = w.at
			}
			for _, f := range w.fields {
				if !slices.Contains(fields, f) && len(fields) < 4 {
					fields = append(fields, f)
				}
			}
		}
		if noop+times+back < restIdleWrites {
			continue
		}
		var what []string
		if noop > 0 {
			what = append(what, fmt.Sprintf("%d that changed nothing stored (the same resourceVersion back)", noop))
		}
		if times > 0 {
			what = append(what, fmt.Sprintf("%d that changed only times", times))
		}
		if back > 0 {
			what = append(what, fmt.Sprintf("%d that set it back to what it was two changes before", back))
		}
		d := fmt.Sprintf("%s wrote %s %d times at rest (the last %v of the heal budget, from %v to %v), %s",
			wr.by, wr.object, len(ws), rw.end-rw.From, rw.From, rw.end, strings.Join(what, ", "))
		if len(fields) > 0 {
			d += " (" + strings.Join(fields, "; ") + ")"
		}
		return d + ": a correct operator at rest writes only what its clock asks for, and a write that stores nothing new is not that", kth
	}
	return "", 0
}

// writesAtRest judges got's writes at rest, and its fault-free references'
// (refs: none for a reference run itself).
func JudgeWritesAtRest(w *world.World, refs []*Reference, got *Snapshot) check.Verdict {
	v := check.Verdict{Property: world.WritesAtRest, Holds: true}
	if d, at := got.Rest.idle(); d != "" {
		return check.Verdict{Property: world.WritesAtRest, At: at, Detail: d}
	}
	for _, ref := range refs {
		if ref.Late || ref.Downtime || ref.Draws || ref.Snap == nil {
			continue
		}
		if d, at := ref.Snap.Rest.idle(); d != "" {
			return check.Verdict{Property: world.WritesAtRest, At: at,
				Detail: fmt.Sprintf("in the fault-free run of the same workload (seed %d), %s (a bug with no fault)", ref.Seed, d)}
		}
	}
	rw := got.Rest
	if len(refs) == 0 || rw == nil || rw.From > rw.end {
		return v
	}
	for _, wr := range rw.writers {
		from := rw.From
		most, compared := 0, 0
		for _, ref := range refs {
			if ref.Snap == nil || ref.Snap.Rest == nil || ref.Snap.Rest.From > ref.Snap.Rest.end {
				continue
			}
			compared++
			from = max(from, ref.Snap.Rest.From)
		}
		if compared == 0 || from > rw.end {
			continue
		}
		for _, ref := range refs {
			if ref.Snap == nil || ref.Snap.Rest == nil || ref.Snap.Rest.From > ref.Snap.Rest.end {
				continue
			}
			for _, o := range ref.Snap.Rest.writers {
				if o.by == wr.by && o.object == wr.object {
					most = max(most, len(o.at(from)))
				}
			}
		}
		ws := wr.at(from)
		if len(ws) < most+restMoreWrites || len(ws) < 2*most {
			continue
		}
		if ws[len(ws)-1].at < from+(rw.end-from)/2 {
			// It stopped in the window's first half: work a fault delayed
			// into the window and finished there (a deletion's finalizer
			// run late), not an operator left writing, which goes on.
			v = v.Excuse(DelayedWork)
			continue
		}
		var fields []string
		for _, w := range ws {
			for _, f := range w.fields {
				if !slices.Contains(fields, f) && len(fields) < 4 {
					fields = append(fields, f)
				}
			}
		}
		d := fmt.Sprintf("%s wrote %s %d times at rest (from %v to %v), the fault-free runs of the same workload at most %d times over the same window: the faults left it writing", wr.by, wr.object, len(ws), from, rw.end, most)
		if len(fields) > 0 {
			d += " (it changed " + strings.Join(fields, "; ") + ")"
		}
		return check.Verdict{Property: world.WritesAtRest, At: ws[most+restMoreWrites-1].at, Detail: d}
	}
	return v
}
