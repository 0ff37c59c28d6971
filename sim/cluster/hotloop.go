package cluster

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The hot-loop bound: a controller that reconciles one object, or a writer that
// writes one object (successful or not), at least HotLoopRate times in every
// virtual second for HotLoopSeconds seconds in a row is in a hot loop. A second in
// which the workload wrote the object does not count: a storm the workload drives
// (a user editing an object ten times a second) is the controller keeping up, not
// a loop that sustains itself. Nor does a second in which a watch of the cluster
// is stalled (a hold) or behind (a stale view: a process restarted onto a
// lagging watch cache, until it catches up): a controller whose cache lacks a deletion re-creates a
// dependent that the garbage collector deletes again, as fast as
// kube-controller-manager's client rate lets it (20 calls a second: a storm
// only with several dependents), until the watch delivers the deletion; a
// real cluster does the same with correct code. Such a storm is a note (StallStorms), and a hot loop only if it
// goes on for HotLoopSeconds after the stall ended (at the heal at the latest). A
// real
// controller settles an object in a handful of reconciles; retries under a
// persistent failure back off (client-go's limiter: 5 ms doubling; kopf: 1 s
// and up) and soon fall under the bound. A status write that re-triggers its own
// reconcile forever runs at the rate of API latency (hundreds per second).
const (
	HotLoopRate    = 20
	HotLoopSeconds = 10
)

// HotLoop is a sustained storm of reconciles or writes on one object, named with
// the objects and the writer.
type HotLoop struct {
	At     time.Duration // when the rate had stayed above the bound for the whole window
	Kind   string        // "reconciles" or "writes"
	By     string        // process/controller
	Object string        // the object, as the trace names it
	Count  int           // events in the window
	Recent []string      // the last trace lines of the loop, for the report
}

func (h *HotLoop) String() string {
	return fmt.Sprintf("hot loop: %s made %d %s of %s in %ds (bound: %d per second for %d s in a row)",
		h.By, h.Count, h.Kind, h.Object, HotLoopSeconds, HotLoopRate, HotLoopSeconds)
}

// hotLoops watches the trace for hot loops. Each (kind, by, object) key keeps the
// count of its current one-second bucket and how many buckets in a row reached the
// bound: O(1) per step.
type hotLoops struct {
	keys     map[hotKey]*hotCount
	workload map[string]int64 // object (namespace/name) -> last second the workload wrote it
	found    *HotLoop
	// stalled reports whether a watch of the cluster is stalled now (nil:
	// never); notes are the storms seen while one was, in the order they
	// reached the bound.
	stalled func() bool
	notes   []*HotLoop
}

type hotKey struct{ kind, process, controller, object string }

type hotCount struct {
	bucket  int64 // virtual second of the current count
	n       int   // events in that second
	run     int   // consecutive seconds at or above the bound, ending at lastHot
	lastHot int64
	total   int // events in the run's seconds
	// stall counts the seconds at or above the bound in which a watch was
	// stalled, as run counts the others; note is the storm's note once it
	// has lasted HotLoopSeconds.
	stall hotRun
	note  *HotLoop
}

// hotRun is a run of consecutive seconds at or above the bound.
type hotRun struct {
	run     int
	lastHot int64
	total   int
}

// add counts the n-th event of second sec (n at or above the bound) into the
// run: it starts the run, extends it, or adds to a second already counted.
func (r *hotRun) add(sec int64, n int) {
	switch {
	case r.lastHot == sec:
		r.total++
		return
	case r.lastHot == sec-1:
		r.run++
		r.total += n
	default:
		r.run, r.total = 1, n
	}
	r.lastHot = sec
}

func newHotLoops() *hotLoops {
	return &hotLoops{keys: map[hotKey]*hotCount{}, workload: map[string]int64{}}
}

// objectKey is the namespace/name of a step's object: write steps name the kind
// first ("Widget default/w"), reconcile steps do not ("default/w"; "/n" when
// cluster-scoped).
func objectKey(s *trace.Step) string {
	o := s.Object
	if s.Op != "reconcile" {
		if _, after, ok := strings.Cut(o, " "); ok {
			o = after
		}
	}
	return strings.TrimPrefix(o, "/")
}

// observe counts one step; it returns the hot loop when this step completes one.
func (h *hotLoops) observe(s *trace.Step) *HotLoop {
	if h.found != nil || s.Process == "" {
		return nil
	}
	kind := stormKind(s)
	if kind == "" {
		return nil
	}
	sec := int64(s.At / time.Second)
	if s.Process == "admin" {
		if kind == "writes" {
			h.workload[objectKey(s)] = sec
		}
		return nil
	}
	k := hotKey{kind, s.Process, s.Controller, s.Object}
	c := h.keys[k]
	if c == nil {
		c = &hotCount{bucket: -1, lastHot: -2, stall: hotRun{lastHot: -2}}
		h.keys[k] = c
	}
	if sec != c.bucket {
		c.bucket, c.n = sec, 0
	}
	c.n++
	if last, ok := h.workload[objectKey(s)]; ok && last == sec {
		return nil // the workload drives this second
	}
	if h.stalled != nil && h.stalled() {
		// A stalled watch drives this second: a note, not a loop.
		if c.n >= HotLoopRate {
			c.stall.add(sec, c.n)
			switch {
			case c.note != nil:
				c.note.Count, c.note.At = c.stall.total, s.At
			case c.stall.run >= HotLoopSeconds:
				c.note = &HotLoop{At: s.At, Kind: kind, By: by(s), Object: s.Object, Count: c.stall.total}
				h.notes = append(h.notes, c.note)
			}
		}
		return nil
	}
	switch {
	case c.n < HotLoopRate:
		return nil
	case c.lastHot == sec: // this second has reached the bound already
		c.total++
		return nil
	case c.lastHot == sec-1: // the run goes on
		c.run++
		c.total += c.n
	default: // a run starts
		c.run, c.total = 1, c.n
	}
	c.lastHot = sec
	if c.run < HotLoopSeconds {
		return nil
	}
	h.found = &HotLoop{At: s.At, Kind: kind, By: by(s), Object: s.Object, Count: c.total}
	return h.found
}

// by names the step's process and controller.
func by(s *trace.Step) string {
	if s.Controller != "" {
		return s.Process + "/" + s.Controller
	}
	return s.Process
}

// StallString is a stall storm's note.
func (h *HotLoop) StallString() string {
	return fmt.Sprintf("%s made %d %s of %s while a watch was stalled, and stopped within %d s of the stall's end (a note, not a hot loop)",
		h.By, h.Count, h.Kind, h.Object, HotLoopSeconds)
}
