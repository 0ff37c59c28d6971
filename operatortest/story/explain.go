package story

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// explain finds the events of each violated verdict: the side effects its detail
// names (the first and the second of something that must happen once), the
// reconcile each was done in and the stale reads that reconcile acted on, the
// deletions of the objects it names, and the crashes on the way.
func (s *Story) explain() {
	steps := s.in.Steps
	eventAt := map[int]int{} // step -> event, so a step has one event
	addEvent := func(step int, label, role string, verdict int) int {
		if e, ok := eventAt[step]; ok {
			return e
		}
		l := s.LaneOf(step)
		if l < 0 {
			return -1
		}
		s.Events = append(s.Events, Event{Step: step, Lane: l, At: steps[step].At, Label: label, Role: role, Verdict: verdict})
		eventAt[step] = len(s.Events) - 1
		return len(s.Events) - 1
	}
	link := func(from, to int, label string) {
		if from >= 0 && to >= 0 && from != to {
			s.Links = append(s.Links, Link{From: from, To: to, Label: label})
		}
	}
	for _, v := range s.in.Verdicts {
		if v.Holds {
			continue
		}
		vi := len(s.Verdicts)
		s.Verdicts = append(s.Verdicts, Verdict{Property: v.Property, Detail: v.Detail, At: v.At, Judged: v.At, Event: -1})
		// Side effects the detail names, grouped by what they were.
		type group struct {
			key   string
			steps []int
		}
		var groups []*group
		for i, st := range steps {
			if !isModelStep(st) || st.Object == "" || !mentions(v.Detail, st.Object) {
				continue
			}
			key := st.Op + " " + st.Object
			var g *group
			for _, x := range groups {
				if x.key == key {
					g = x
				}
			}
			if g == nil {
				g = &group{key: key}
				groups = append(groups, g)
			}
			g.steps = append(g.steps, i)
		}
		for _, g := range groups {
			prev := -1
			for n, i := range g.steps {
				st := steps[i]
				label := fmt.Sprintf("%s %s %s", ordinal(n+1), st.Op, st.Object)
				if len(g.steps) == 1 {
					label = fmt.Sprintf("%s %s", st.Op, st.Object)
				}
				if st.Result != "" && st.Result != "ok" {
					label += " → " + st.Result
				}
				r := s.enclosingReconcile(i)
				if r >= 0 {
					label += fmt.Sprintf(" (in %s r%d)", steps[r].Controller, steps[r].Reconcile)
				}
				e := addEvent(i, label, RoleEffect, vi)
				if n == 1 && s.Verdicts[vi].Event < 0 {
					s.Verdicts[vi].Event = e
				}
				if prev >= 0 {
					link(prev, e, "again")
				}
				prev = e
				if r < 0 {
					continue
				}
				// The stale reads the reconcile acted on.
				for _, j := range s.staleReads(r, i) {
					c := addEvent(j, readLabel(steps[j]), RoleCause, vi)
					link(c, e, "led to")
				}
			}
		}
		// The objects the detail names, and their owners.
		named := s.namedObjects(v.Detail)
		concerned := append(slices.Clone(named), s.ownersOf(named)...)
		// Writes to the objects the detail names (every create and
		// deletion, and the last other write of each before the
		// judgement), with the stale reads of the reconcile that made each
		// (a causal slice: what the write acted on).
		// Up to the judgement; a verdict with no time (one judged over
		// the whole run) up to the run's end.
		until := v.At
		if until <= 0 && len(steps) > 0 {
			until = steps[len(steps)-1].At
		}
		lastWrite := -1 // the last write to a named object: where a verdict with no repeat happened
		for _, i := range s.writesTo(named, until) {
			st := steps[i]
			e := addEvent(i, writeLabel(st), RoleEffect, vi)
			if e >= 0 {
				lastWrite = e
			}
			r := s.enclosingReconcile(i)
			if r < 0 {
				continue
			}
			for _, j := range s.staleReads(r, i) {
				c := addEvent(j, readLabel(steps[j]), RoleCause, vi)
				link(c, e, "led to")
			}
		}
		// Reads of the objects (and their owners, and lists of their kind
		// in their namespace) that returned other than the server had: the
		// last few before the judgement.
		for _, i := range s.staleReadsOf(concerned, until, maxStaleReads) {
			addEvent(i, readLabel(steps[i]), RoleCause, vi)
		}
		// The user's steps on the objects or their owners.
		for _, i := range s.userSteps(concerned, until) {
			addEvent(i, "user: "+s.actionLabel(steps[i]), RoleUser, vi)
		}
		// The faults' own steps on the way.
		for i, st := range steps {
			if st.At > until {
				break
			}
			switch st.Op {
			case "crash":
				c := addEvent(i, "crash: "+st.Result, RoleFault, vi)
				if strings.Contains(st.Result, "after write") {
					// The write that committed but whose response never
					// reached the process.
					if w := s.lastWriteBefore(st.Process, i); w >= 0 {
						link(addEvent(w, writeLabel(steps[w]), RoleEffect, vi), c, "then")
					}
				}
			case "restart":
				addEvent(i, "restart: "+st.Result, RoleFault, vi)
			case "fault", "hold", "release", "stale", "unobserved", "catch-up":
				label := st.Op
				if st.Result != "" && st.Result != "ok" {
					label += ": " + st.Result
				} else if st.Object != "" {
					label += " " + st.Object
				}
				addEvent(i, label, RoleFault, vi)
			}
		}
		// What the compared run did to the objects it names and this run
		// never did, at this run's last reconcile that could have done it.
		for _, a := range s.absences(v.Detail, until) {
			if a.Last >= 0 {
				st := steps[a.Last]
				e := addEvent(a.Last, fmt.Sprintf("r%d of %s, the last: never %s %s%s", st.Reconcile, st.Object, presentTense[a.Verb], a.Object, again(a.Nth)), RoleEffect, vi)
				if s.Verdicts[vi].Event < 0 {
					s.Verdicts[vi].Event = e
				}
			}
			s.Absences = append(s.Absences, a)
			s.Notes = append(s.Notes, "what this run never did: "+a.Text)
		}
		if !s.hasEvents(vi) {
			// A verdict that names no object and no side effect: the
			// reconciles it names ("reconcile 17 of /example"), else the
			// lead processes' last failing reconcile before it, and the
			// workload's steps.
			for _, i := range s.namedReconciles(v.Detail, until) {
				if e := addEvent(i, fmt.Sprintf("reconcile %d of %s (the verdict's)", steps[i].Reconcile, steps[i].Object), RoleEffect, vi); e >= 0 {
					lastWrite = e
				}
			}
			if !s.hasEvents(vi) {
				if i := s.lastFailure(until); i >= 0 {
					if e := addEvent(i, fmt.Sprintf("reconcile r%d of %s ends: %s", steps[i].Reconcile, steps[i].Object, steps[i].Result), RoleEffect, vi); e >= 0 {
						lastWrite = e
					}
				}
			}
			for i, st := range steps {
				if st.At > until {
					break
				}
				if st.Process == "" && st.Op == "action" {
					addEvent(i, "user: "+s.actionLabel(st), RoleUser, vi)
				}
			}
		}
		if s.Verdicts[vi].Event < 0 {
			// One effect and no repeat: the verdict is drawn at its judged time.
			for e := range s.Events {
				if s.Events[e].Verdict == vi && s.Events[e].Role == RoleEffect && s.Events[e].At == v.At {
					s.Verdicts[vi].Event = e
				}
			}
		}
		if s.Verdicts[vi].Event < 0 && lastWrite >= 0 && s.Events[lastWrite].Verdict == vi {
			// Else at the last write to an object it names: the state
			// it judges was made there.
			s.Verdicts[vi].Event = lastWrite
		}
	}
	s.numberInTimeOrder()
}

// hasEvents reports whether verdict vi has events other than the faults'.
func (s *Story) hasEvents(vi int) bool {
	for _, e := range s.Events {
		if e.Verdict == vi && e.Role != RoleFault {
			return true
		}
	}
	return false
}

// reconcileRef is how a verdict names a reconcile: "reconcile 17 of /example".
var reconcileRef = regexp.MustCompile(`reconcile (\d+) of (\S+)`)

// namedReconciles are the reconcile steps, up to until, that text names
// ("reconcile N of REQUEST", N counted over the controller's reconciles).
func (s *Story) namedReconciles(text string, until time.Duration) []int {
	var out []int
	for _, m := range reconcileRef.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		for i, st := range s.in.Steps {
			if st.At > until {
				break
			}
			if st.Op == "reconcile" && st.Reconcile == n && st.Object == strings.TrimRight(m[2], ",;:)") {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// lastFailure is the last reconcile result of a lead process (any, when the
// input names none), up to until, that was an error, or -1.
func (s *Story) lastFailure(until time.Duration) int {
	last := -1
	for i, st := range s.in.Steps {
		if st.At > until {
			break
		}
		if st.Op == "result" && resultColor(st.Result) == colorError && (len(s.in.Lead) == 0 || slices.Contains(s.in.Lead, st.Process)) {
			last = i
		}
	}
	return last
}

// maxStaleReads bounds the stale reads of the named objects a verdict's story
// shows besides those of its writes' reconciles: the last ones before it.
const maxStaleReads = 3

// numberInTimeOrder sorts the events by time (then by step), so that their
// numbers follow the run, and renumbers the links and verdicts.
func (s *Story) numberInTimeOrder() {
	order := make([]int, len(s.Events))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(s.Events[a].At, s.Events[b].At), cmp.Compare(s.Events[a].Step, s.Events[b].Step))
	})
	newIndex := make([]int, len(order))
	events := make([]Event, len(order))
	for n, old := range order {
		newIndex[old] = n
		events[n] = s.Events[old]
	}
	s.Events = events
	for i := range s.Links {
		s.Links[i].From, s.Links[i].To = newIndex[s.Links[i].From], newIndex[s.Links[i].To]
	}
	for i := range s.Verdicts {
		if e := s.Verdicts[i].Event; e >= 0 {
			s.Verdicts[i].Event = newIndex[e]
		}
	}
}

// generatedRef is how a verdict names an object of generated name:
// "Kind namespace/prefix-*", "prefix-*2", "prefix-*deleted" (operatortest's
// canonical names, by the object's place among those of its prefix).
var generatedRef = regexp.MustCompile(`\b([A-Z][A-Za-z0-9]*) (?:([a-z0-9][a-z0-9.-]*)/)?([a-z0-9][a-z0-9.-]*)\*(deleted)?[0-9]*`)

// maxGenerated bounds the objects one generated-name reference adds.
const maxGenerated = 3

// namedObjects are the objects (as ObjectKey names them) that text names, in
// the order the server's log first has them. A generated name's canonical
// form ("ConfigMap work/nightly-*2") names every object of that kind,
// namespace and generateName prefix (the last few made; the deleted ones for
// "*deleted"): which of them the place stands for is the judging run's.
func (s *Story) namedObjects(text string) []string {
	var out []string
	for _, ev := range s.in.Log {
		if k := ObjectKey(ev); !slices.Contains(out, k) && mentions(text, k) {
			out = append(out, k)
		}
	}
	for _, m := range generatedRef.FindAllStringSubmatch(text, -1) {
		var made []string
		for _, ev := range s.in.Log {
			o := ev.Object
			if ev.GVK.Kind != m[1] || o.GetNamespace() != m[2] || o.GetGenerateName() != m[3] || ev.Type != watch.Added {
				continue
			}
			if k := ObjectKey(ev); !slices.Contains(made, k) && (m[4] == "") != s.deletedInLog(k) {
				made = append(made, k)
			}
		}
		if len(made) > maxGenerated {
			made = made[len(made)-maxGenerated:]
		}
		for _, k := range made {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// deletedInLog reports whether the object key was deleted by the end.
func (s *Story) deletedInLog(key string) bool {
	gone := false
	for _, ev := range s.in.Log {
		if ObjectKey(ev) == key {
			gone = ev.Type == watch.Deleted
		}
	}
	return gone
}

// ownersOf are the owners of the objects keys (their ownerReferences, in any
// version, that name an object of the log), not already among keys.
func (s *Story) ownersOf(keys []string) []string {
	var out []string
	for _, ev := range s.in.Log {
		if len(ev.Object.GetOwnerReferences()) == 0 || !slices.Contains(keys, ObjectKey(ev)) {
			continue
		}
		for _, ref := range ev.Object.GetOwnerReferences() {
			for _, k := range []string{ref.Kind + " " + ev.Object.GetNamespace() + "/" + ref.Name, ref.Kind + " " + ref.Name} {
				if !slices.Contains(keys, k) && !slices.Contains(out, k) && s.inLog(k) {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// inLog reports whether the log has an event of the object key (the set of
// the log's objects is made once: an object with thousands of versions
// asked once a version made the picture of a hot loop quadratic).
func (s *Story) inLog(key string) bool {
	if s.logKeys == nil {
		s.logKeys = map[string]bool{}
		for _, ev := range s.in.Log {
			s.logKeys[ObjectKey(ev)] = true
		}
	}
	return s.logKeys[key]
}

// writesTo are the successful writes of processes (not the admin's: the
// workload's are its steps) to the objects keys up to until: each create and
// deletion, and the last other write to each object.
func (s *Story) writesTo(keys []string, until time.Duration) []int {
	var out []int
	last := map[string]int{}
	for i, st := range s.in.Steps {
		if st.At > until {
			break
		}
		if st.Process == "" || st.Process == "admin" || !trace.IsWrite(st.Op) || (st.Result != "ok" && st.Result != "") || !slices.Contains(keys, st.Object) {
			continue
		}
		op, _, _ := strings.Cut(st.Op, "/")
		if op == "create" || st.Deletes() {
			out = append(out, i)
			continue
		}
		last[st.Object] = i
	}
	for _, k := range keys {
		if i, ok := last[k]; ok {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// staleReadsOf are reads by processes (the lead ones, when the input names
// them), up to until, that returned other than the server had of one of the
// objects keys, or of a list of the kind of one of them in its namespace (or
// in every namespace): the last of each object or list read, the newest n of
// those. One object read stale over and over does not hide the
// stale read of another.
func (s *Story) staleReadsOf(keys []string, until time.Duration, n int) []int {
	last := map[string]int{} // what was read (an object "Secret a/b", a list "Secret a/*") to its last stale read
	for i, st := range s.in.Steps {
		if st.At > until {
			break
		}
		if st.Process == "" || st.Process == "admin" || !st.Stale() || !readsOneOf(st, keys) {
			continue
		}
		if len(s.in.Lead) > 0 && !slices.Contains(s.in.Lead, st.Process) {
			continue // a built-in controller's reads: the operator's are the story
		}
		last[st.Object] = i
	}
	out := slices.Sorted(maps.Values(last))
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// readsOneOf reports whether the read st is of one of the objects keys, or a
// list that would show one.
func readsOneOf(st trace.Step, keys []string) bool {
	if slices.Contains(keys, st.Object) {
		return true
	}
	if !trace.IsList(st.Op) {
		return false
	}
	kind, where, _ := strings.Cut(st.Object, " ")
	for _, k := range keys {
		kk, obj, _ := strings.Cut(k, " ")
		if kk != kind {
			continue
		}
		ns, _, namespaced := strings.Cut(obj, "/")
		if where == "" || (namespaced && where == ns+"/*") {
			return true
		}
	}
	return false
}

// userSteps are the workload's steps, up to until, whose calls wrote one of
// the objects keys: the admin's writes since the step before it, at its time.
func (s *Story) userSteps(keys []string, until time.Duration) []int {
	steps := s.in.Steps
	var out []int
	for i, st := range steps {
		if st.At > until {
			break
		}
		if st.Process != "" || st.Op != "action" {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			a := steps[j]
			if a.Process != "admin" || a.At != st.At {
				break
			}
			if trace.IsWrite(a.Op) && (a.Result == "ok" || a.Result == "") && slices.Contains(keys, a.Object) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// lastWriteBefore is the last successful write of process before step i, or -1.
func (s *Story) lastWriteBefore(process string, i int) int {
	for j := i - 1; j >= 0; j-- {
		if st := s.in.Steps[j]; st.Process == process && trace.IsWrite(st.Op) && (st.Result == "ok" || st.Result == "") {
			return j
		}
	}
	return -1
}

// writeLabel says who wrote what: "shop/widget creates ConfigMap default/x".
func writeLabel(st trace.Step) string {
	who := st.Process
	if st.Controller != "" {
		who = st.Controller
	}
	verb := map[string]string{"create": "creates", "update": "updates", "patch": "patches", "delete": "deletes", "deletecollection": "deletes"}
	op, sub, _ := strings.Cut(st.Op, "/")
	text := fmt.Sprintf("%s %s %s", who, verb[op], st.Object)
	if sub != "" {
		text += "'s " + sub
	}
	if st.Digest == trace.DigestDeleted {
		text = fmt.Sprintf("%s removes the last finalizer of %s: deleted", who, st.Object)
	}
	if st.Reconcile > 0 {
		text += fmt.Sprintf(" (r%d)", st.Reconcile)
	}
	return text
}

// readLabel says what a stale read returned against what was current.
func readLabel(st trace.Step) string {
	switch {
	case trace.IsList(st.Op):
		return fmt.Sprintf("stale list of %s: %d item%s, cache at rv=%d, current %d", st.Object, st.Items, plural(st.Items), st.RVSeen, st.RVCurrent)
	case st.RVSeen == 0:
		return fmt.Sprintf("stale read of %s: not found, current rv=%d", st.Object, st.RVCurrent)
	case st.RVCurrent == 0:
		return fmt.Sprintf("stale read of %s: saw rv=%d, since deleted", st.Object, st.RVSeen)
	}
	return fmt.Sprintf("stale read of %s: saw rv=%d, current %d", st.Object, st.RVSeen, st.RVCurrent)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// isModelStep reports whether st is a model process's own step (a promotion
// system's side effect), not an API call, a reconcile or the kernel's bookkeeping.
func isModelStep(st trace.Step) bool {
	if st.Process == "" || st.Process == "admin" || st.Controller != "" {
		return false
	}
	switch st.Op {
	case "crash", "restart", "start", "setup", "panic", "hold", "release":
		return false
	}
	return !isCall(st.Op)
}

// mentions reports whether text names obj as a whole word (so that "Namespace
// book" does not match "Namespace bookstore").
func mentions(text, obj string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], obj)
		if i < 0 {
			return false
		}
		end := off + i + len(obj)
		if end == len(text) || !isNameByte(text[end]) {
			start := off + i
			if start == 0 || !isNameByte(text[start-1]) {
				return true
			}
		}
		off += i + 1
	}
}

func isNameByte(b byte) bool {
	return b == '-' || b == '.' || b == '_' || b == '/' || b == '@' ||
		'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return fmt.Sprintf("%dth", n)
}

// enclosingReconcile is the reconcile step that was running when step i
// happened: a model's step is caused by a call made inside a reconcile. It is the
// latest reconcile started before i whose result had not been recorded yet.
func (s *Story) enclosingReconcile(i int) int {
	steps := s.in.Steps
	if steps[i].Controller != "" && steps[i].Reconcile > 0 {
		for j := i; j >= 0; j-- {
			if steps[j].Op == "reconcile" && sameReconcile(steps[j], steps[i]) {
				return j
			}
		}
		return -1
	}
	closed := map[string]bool{}  // reconciles that ended before i
	crashed := map[string]bool{} // processes that crashed before i
	for j := i - 1; j >= 0; j-- {
		st := steps[j]
		if st.Op == "crash" && st.Controller == "" {
			crashed[st.Process] = true
		}
		if st.Controller == "" || st.Reconcile == 0 || crashed[st.Process] {
			continue
		}
		key := fmt.Sprintf("%s/%s#%d r%d", st.Process, st.Controller, st.Worker, st.Reconcile)
		if st.Op == "result" || st.Op == "crash" || st.Op == "panic" {
			closed[key] = true
		}
		if closed[key] {
			continue
		}
		for k := j; k >= 0; k-- {
			if steps[k].Op == "reconcile" && sameReconcile(steps[k], st) {
				return k
			}
		}
		return -1
	}
	return -1
}

func sameReconcile(a, b trace.Step) bool {
	return a.Process == b.Process && a.Controller == b.Controller && a.Worker == b.Worker && a.Reconcile == b.Reconcile
}

// staleReads are the reads of reconcile r, up to step until, that returned an
// older version than the server had.
func (s *Story) staleReads(r, until int) []int {
	steps := s.in.Steps
	var out []int
	for j := r + 1; j <= until && j < len(steps); j++ {
		st := steps[j]
		if !sameReconcile(st, steps[r]) {
			continue
		}
		if st.Op == "result" || st.Op == "reconcile" {
			break
		}
		if st.Stale() {
			out = append(out, j)
		}
	}
	return out
}
