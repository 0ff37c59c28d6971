package story

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Compared is a run the verdicts compare the story's run with: the
// fault-free run of the same workload, named as the verdicts name it ("the
// fault-free run of the same workload"), and its trace.
type Compared struct {
	Name  string
	Steps []trace.Step
}

// Absence is a write the compared run made and the story's run never made:
// the decisive fact of a run that ends without an object the fault-free run
// made (or with one it deleted), which no step of the run itself shows. The
// writes are counted: the compared run's second create of an object this run
// created once is one this run never made (the extra create is the compared
// run's: a fault-free run that made it again from a stale cache, say).
type Absence struct {
	Object string // "Kind namespace/name"
	Verb   string // "create", "delete" or "finalize" (the last finalizer removed)
	// Nth is which of the compared run's writes of Verb to Object this is
	// (1: the first; this run made Nth-1 of them).
	Nth int
	// Theirs is the compared run's write, and TheirReconcile the reconcile
	// it was made in (-1: none), both indexes in Compared.Steps.
	Theirs, TheirReconcile int
	// Last is the story's run's last reconcile, by the controller that made
	// the write in the compared run, of the object that reconcile was of
	// (the last that could have made it): an index in the run's steps, or -1
	// when the controller never reconciled it.
	Last int
	// Text says it in words.
	Text  string
	other Compared
}

// maxAbsences bounds the absences told per verdict.
const maxAbsences = 2

// absences are the writes to objects the verdict's detail names that the
// compared run made (a creation, a deletion, the removal of a deleting
// object's last finalizer: whether the object exists at the end) and this
// run never made, counted (the compared run's n-th create of an object is
// one this run never made when it made fewer than n), up to until: the
// first of each object.
func (s *Story) absences(detail string, until time.Duration) []Absence {
	c := s.in.Compared
	if c == nil {
		return nil
	}
	var out []Absence
	var seen []string
	for i, st := range c.Steps {
		if len(out) == maxAbsences {
			break
		}
		verb := existenceVerb(st)
		if verb == "" || slices.Contains(seen, st.Object) || !mentions(detail, st.Object) {
			continue
		}
		nth := times(c.Steps[:i+1], verb, st.Object)
		if times(s.in.Steps, verb, st.Object) >= nth {
			continue
		}
		seen = append(seen, st.Object)
		a := Absence{Object: st.Object, Verb: verb, Nth: nth, Theirs: i, TheirReconcile: enclosingReconcile(c.Steps, i), Last: -1, other: *c}
		if r := a.TheirReconcile; r >= 0 {
			a.Last = s.lastReconcileOf(c.Steps[r].Process, c.Steps[r].Controller, c.Steps[r].Object, until)
		}
		a.Text = s.absenceText(a)
		out = append(out, a)
	}
	return out
}

// Verbs of the writes an absence tells: those that decide whether an
// object exists.
const (
	verbCreate   = "create"
	verbDelete   = "delete"   // a delete call: gone, or deleting until its finalizers are removed
	verbFinalize = "finalize" // the removal of the last finalizer of a deleting object: gone
)

// existenceVerb is the verb of a process's successful write that made or
// unmade an object (or began to), else "".
func existenceVerb(st trace.Step) string {
	if st.Process == "" || st.Process == "admin" || !trace.IsWrite(st.Op) || (st.Result != "ok" && st.Result != "") {
		return ""
	}
	op, sub, _ := strings.Cut(st.Op, "/")
	switch {
	case op == "create" && sub == "":
		return verbCreate
	case op == "delete" || op == "deletecollection":
		return verbDelete
	case st.Digest == trace.DigestDeleted:
		return verbFinalize
	}
	return ""
}

// pastTense is what the compared run did, in words.
var pastTense = map[string]string{verbCreate: "created it", verbDelete: "deleted it", verbFinalize: "removed its last finalizer"}

// presentTense is what the last reconcile never did, in words.
var presentTense = map[string]string{verbCreate: "creates", verbDelete: "deletes", verbFinalize: "removes the last finalizer of"}

// times is how many of steps are a process's write of verb to object.
func times(steps []trace.Step, verb, object string) int {
	n := 0
	for _, st := range steps {
		if st.Object == object && existenceVerb(st) == verb {
			n++
		}
	}
	return n
}

// again is the words for the n-th time of a write: "" for the first, " a
// 2nd time" for the second.
func again(n int) string {
	if n <= 1 {
		return ""
	}
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf(" a %d%s time", n, suffix)
}

// neverDid is what the story's run did of an absence's write: nothing
// ("this run never did"), or fewer ("this run did so 1 time").
func neverDid(a Absence) string {
	if a.Nth <= 1 {
		return "this run never did"
	}
	return fmt.Sprintf("this run did so %d time%s", a.Nth-1, plural(a.Nth-1))
}

// lastReconcileOf is the last reconcile step, up to until, of process's
// controller of the request req, or -1.
func (s *Story) lastReconcileOf(process, controller, req string, until time.Duration) int {
	last := -1
	for i, st := range s.in.Steps {
		if st.At > until {
			break
		}
		if st.Op == "reconcile" && st.Process == process && st.Controller == controller && st.Object == req {
			last = i
		}
	}
	return last
}

// absenceText says an absence in words: what the compared run did, when and
// in which reconcile, and what this run's last reconcile that could have
// done it read and wrote instead.
func (s *Story) absenceText(a Absence) string {
	theirs := a.other.Steps[a.Theirs]
	past := pastTense[a.Verb]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s%s at %s", a.Object, a.other.Name, past, again(a.Nth), trace.FormatAt(theirs.At))
	r := a.TheirReconcile
	if r < 0 {
		fmt.Fprintf(&b, " (%s); %s", who(theirs), neverDid(a))
		return b.String()
	}
	rs := a.other.Steps[r]
	fmt.Fprintf(&b, " (%s r%d, reconciling %s); %s", who(rs), rs.Reconcile, rs.Object, neverDid(a))
	if a.Last < 0 {
		fmt.Fprintf(&b, ": %s never reconciled %s", who(rs), rs.Object)
		if restart := s.lastRestart(rs.Process, len(s.in.Steps)); restart >= 0 {
			fmt.Fprintf(&b, " after its restart at %s", trace.FormatAt(s.in.Steps[restart].At))
		}
		return b.String()
	}
	ls := s.in.Steps[a.Last]
	fmt.Fprintf(&b, ": its last reconcile of %s (%s r%d at %s", rs.Object, who(ls), ls.Reconcile, trace.FormatAt(ls.At))
	if restart := s.lastRestart(ls.Process, a.Last); restart >= 0 {
		fmt.Fprintf(&b, ", after the restart at %s", trace.FormatAt(s.in.Steps[restart].At))
	}
	b.WriteString(")")
	reads, writes, end := s.reconcileSteps(a.Last)
	if len(reads) > 0 {
		fmt.Fprintf(&b, " read %s,", andList(reads))
	}
	touched := slices.ContainsFunc(writes, func(w string) bool { return mentions(w, a.Object) })
	switch {
	case len(writes) == 0:
		fmt.Fprintf(&b, " wrote nothing")
	case touched:
		fmt.Fprintf(&b, " %s", andList(writes))
	default:
		fmt.Fprintf(&b, " %s, nothing of %s", andList(writes), a.Object)
	}
	if end != "" {
		fmt.Fprintf(&b, ", and %s", end)
	}
	return b.String()
}

// andList joins items as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if n := len(items); n > 1 {
		return strings.Join(items[:n-1], ", ") + " and " + items[n-1]
	}
	return strings.Join(items, "")
}

// who names a step's process and controller: "op/configmap".
func who(st trace.Step) string {
	if st.Controller != "" {
		return st.Process + "/" + st.Controller
	}
	return st.Process
}

// lastRestart is the last restart of process before step i, or -1.
func (s *Story) lastRestart(process string, i int) int {
	for j := min(i, len(s.in.Steps)) - 1; j >= 0; j-- {
		if st := s.in.Steps[j]; st.Process == process && st.Controller == "" && st.Op == "restart" {
			return j
		}
	}
	return -1
}

// reconcileSteps are what the reconcile at step r read (each object once,
// "(not found)" when the read found nothing) and wrote ("wrote create
// Secret a/b", "tried to update ... (Forbidden: ...)"), and how it ended
// ("returned ok", "returned error: ...", "was cut by a crash", or "" when the
// run ended first).
func (s *Story) reconcileSteps(r int) (reads, writes []string, end string) {
	steps := s.in.Steps
	for j := r + 1; j < len(steps); j++ {
		st := steps[j]
		if st.Process == steps[r].Process && st.Controller == "" && (st.Op == "crash" || st.Op == "restart") {
			return reads, writes, "was cut by a crash"
		}
		if !sameReconcile(st, steps[r]) {
			continue
		}
		switch {
		case st.Op == "result":
			return reads, writes, "returned " + st.Result
		case st.Op == "crash" || st.Op == "panic":
			return reads, writes, "was cut by a " + st.Op
		case st.Op == "reconcile":
			return reads, writes, ""
		case trace.IsWrite(st.Op):
			w := fmt.Sprintf("wrote %s %s", strings.SplitN(st.Op, "/", 2)[0], st.Object)
			if st.Result != "ok" && st.Result != "" {
				w = fmt.Sprintf("tried to %s %s (%s)", strings.SplitN(st.Op, "/", 2)[0], st.Object, st.Result)
			}
			if !slices.Contains(writes, w) {
				writes = append(writes, w)
			}
		case isCall(st.Op):
			rd := st.Object
			if strings.HasPrefix(st.Result, "NotFound") {
				rd += " (not found)"
			}
			if !slices.Contains(reads, rd) {
				reads = append(reads, rd)
			}
		}
	}
	return reads, writes, ""
}

// absenceLanes draws each absence's object: a lane (one for an object this
// run never had, its whole run marked "never created in this run") with a
// mark where the compared run made the write this run never made.
func (s *Story) absenceLanes(end time.Duration) {
	for _, a := range s.Absences {
		kind, _, _ := strings.Cut(a.Object, " ")
		l := s.find("object:" + a.Object)
		if l < 0 {
			l = s.lane("object:"+a.Object, a.Object, LaneObject, kind)
		}
		if a.Verb == verbCreate && len(s.Lanes[l].Spans) == 0 {
			s.Lanes[l].Note = noteMissing
			s.Lanes[l].Spans = append(s.Lanes[l].Spans, Span{From: 0, To: end, Kind: SpanState, Label: "never created in this run",
				Color: colorAbsent, Step: -1})
		}
		past := pastTense[a.Verb]
		at := a.other.Steps[a.Theirs].At
		s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: at, Step: -1, Shape: ShapeTick, Color: colorGhost,
			Label: "the fault-free run " + past + again(a.Nth) + " here", Tip: a.Text})
	}
}

// noteMissing marks the lane of an object this run never had.
const noteMissing = "missing"

// Colours of what did not happen.
const (
	colorAbsent = "#eeeeee"
	colorGhost  = "#8a8a8a"
)

// enclosingReconcile is the reconcile step of steps that step i was made in,
// or -1 (Story.enclosingReconcile over any trace).
func enclosingReconcile(steps []trace.Step, i int) int {
	s := &Story{in: Input{Steps: steps}}
	return s.enclosingReconcile(i)
}
