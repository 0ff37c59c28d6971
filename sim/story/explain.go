package story

import (
	"fmt"
	"strings"

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
					sj := steps[j]
					c := addEvent(j, fmt.Sprintf("stale read of %s: saw rv=%d, current %d", sj.Object, sj.RVSeen, sj.RVCurrent), RoleCause, vi)
					link(c, e, "led to")
				}
			}
		}
		// Deletions of the objects the detail names: where "still deleting" began.
		for i, st := range steps {
			if strings.HasPrefix(st.Op, "delete") && st.Object != "" && mentions(v.Detail, st.Object) && (st.Result == "" || st.Result == "ok") {
				who := st.Process
				if st.Controller != "" {
					who = st.Controller
				}
				if who == "" || who == "admin" {
					continue // the workload's deletions are on the workload lane
				}
				addEvent(i, fmt.Sprintf("%s deletes %s", who, st.Object), RoleEffect, vi)
			}
		}
		// The workload's steps that name the objects, and crashes on the way.
		for i, st := range steps {
			switch {
			case st.Op == "crash" && st.At <= v.At:
				addEvent(i, "crash: "+st.Result, RoleFault, vi)
			case st.Op == "restart" && st.At <= v.At:
				addEvent(i, "restart: "+st.Result, RoleFault, vi)
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
	}
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
		read := strings.HasPrefix(strings.TrimPrefix(st.Op, "cached-"), "get") || strings.HasPrefix(strings.TrimPrefix(st.Op, "cached-"), "list")
		if read && st.RVSeen != 0 && st.RVSeen < st.RVCurrent {
			out = append(out, j)
		}
	}
	return out
}
