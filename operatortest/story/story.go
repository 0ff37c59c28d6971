package story

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Input is what a story is told from: one run's trace, the server's log of every
// committed version, the plan and the verdicts.
type Input struct {
	Title    string
	Steps    []trace.Step
	Log      []apiserver.Event
	Start    time.Time // the run's epoch: Log times are offsets from it
	Plan     *plan.Plan
	Verdicts []check.Verdict
	// Lead names the processes the reader came for (an operator's, among
	// the built-in kube-controller-manager and kubelet): their lanes come
	// first, and the lanes of other processes that did nothing but start
	// (a controller's start-up log lines: no reconcile, write or crash) are
	// left out. Empty: every lane, in order of first appearance.
	Lead []string
	// Compared is the fault-free run of the same workload the verdicts
	// compare this run with (nil: none given): a verdict whose object the
	// compared run made or deleted and this run never did gets that
	// absence told (Story.Absences) and its object a lane.
	Compared *Compared
}

// Story is a run laid out for a reader: lanes of processes and objects with what
// they did and what state they were in, the faults, the events of each violation
// labelled and linked, and where each violation happened.
type Story struct {
	Title    string
	Lanes    []Lane
	Events   []Event
	Links    []Link
	Verdicts []Verdict
	// Notes say what a reader needs besides the events: that a plan with no
	// fault broke the property under the default timing alone (NoFaultNote).
	Notes []string
	// Absences are the writes the compared run made to the objects the
	// verdicts name and this run never made (Input.Compared), each said in
	// words (Absence.Text, among the Notes too) and its object drawn.
	Absences []Absence
	Heal     time.Duration // when the fault phase ended; -1 when the run never healed
	End      time.Duration // the last time drawn
	Scale    Scale

	in       Input
	versions map[uint64]int  // resourceVersion -> index in in.Log
	logKeys  map[string]bool // the objects in in.Log (ObjectKey), made at the first inLog
}

// Lane kinds.
const (
	LaneWorkload  = "workload"
	LaneProcess   = "process"
	LaneObject    = "object"
	LaneAPIServer = "apiserver"
)

// Lane is one row of the picture.
type Lane struct {
	ID    string // unique: "process:<name>/<controller>", "object:<Kind ns/name>", ...
	Name  string
	Kind  string // LaneWorkload, LaneProcess, LaneObject, LaneAPIServer
	Group string // the process of a process lane, the kind of an object lane
	Note  string // e.g. "2 workers"
	Spans []Span
	Marks []Mark
}

// Span kinds.
const (
	SpanReconcile = "reconcile"
	SpanState     = "state"
	SpanFault     = "fault"
)

// Span is something that lasted: a reconcile, an object's state, a fault.
type Span struct {
	From, To time.Duration
	Kind     string // SpanReconcile, SpanState, SpanFault
	Label    string
	Color    string
	Step     int    // the step that started it, or -1
	RV       uint64 // for a state span: the version that started it
}

// Mark shapes.
const (
	ShapeDot     = "dot"
	ShapeCross   = "cross"
	ShapeRestart = "restart"
	ShapeTick    = "tick"
	ShapeDiamond = "diamond"
)

// Mark is something that happened at an instant.
type Mark struct {
	At    time.Duration
	Step  int // index in the input's steps, or -1
	Shape string
	Color string
	Label string // drawn in place when not empty
	Tip   string
}

// Event roles.
const (
	RoleEffect = "effect" // the side effect or state a property judges
	RoleCause  = "cause"  // what led to it (a stale read)
	RoleFault  = "fault"  // a crash or restart on the way
	RoleUser   = "user"   // the workload's step on an object the verdict names
)

// Event is a step of a violation's story, labelled in place.
type Event struct {
	Step    int // index in the input's steps
	Lane    int
	At      time.Duration
	Label   string
	Role    string
	Verdict int // index in Verdicts
}

// Link joins two events (indexes in Events): the cause and what it caused, or the
// first and the second of something that must happen once.
type Link struct {
	From, To int
	Label    string
}

// Verdict is a violated property and where it shows.
type Verdict struct {
	Property, Detail string
	At               time.Duration // where it is drawn
	Judged           time.Duration // when the property was judged (check.Verdict.At)
	Event            int           // the event it is drawn at, or -1
}

// Colours.
const (
	colorOK      = "#2a9d3f"
	colorError   = "#d62828"
	colorRequeue = "#1d6fd6"
	colorCrash   = "#d62828"
	colorRestart = "#e09f00"
	colorStart   = "#888888"
	colorAction  = "#6a4c93"
	colorModel   = "#555555"
	colorFault   = "#f4a261"
	colorWrite   = "#333333"
)

// Steps returns the input's steps.
func (s *Story) Steps() []trace.Step { return s.in.Steps }

// Input returns what the story was told from.
func (s *Story) Input() Input { return s.in }

// Build lays out the story of a run.
func Build(in Input) *Story {
	s := &Story{Title: in.Title, Heal: -1, in: in, versions: map[uint64]int{}}
	for i, ev := range in.Log {
		s.versions[ev.ResourceVersion] = i
	}
	s.processLanes()
	s.faultSpans()
	s.leadLanes()
	// The workload first, then the processes (the lead ones first), then the
	// API server's faults.
	order := map[string]int{LaneWorkload: 0, LaneProcess: 1, LaneAPIServer: 2, LaneObject: 3}
	lead := func(l Lane) int {
		if l.Kind == LaneProcess && len(in.Lead) > 0 && !slices.Contains(in.Lead, l.Group) {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(s.Lanes, func(a, b Lane) int {
		return cmp.Or(cmp.Compare(order[a.Kind], order[b.Kind]), cmp.Compare(lead(a), lead(b)))
	})
	s.explain()
	s.objectLanes()
	s.absenceLanes(s.runEnd())
	s.placeVerdicts()
	if n := s.noFaultNote(); n != "" {
		s.Notes = append(s.Notes, n)
	}
	s.Scale = newScale(s.times())
	s.End = s.Scale.End()
	return s
}

// leadLanes leaves out, when Input.Lead names the processes that matter, the
// lanes of other processes with nothing drawn on them.
func (s *Story) leadLanes() {
	if len(s.in.Lead) == 0 {
		return
	}
	idle := func(l Lane) bool {
		for _, m := range l.Marks {
			if m.Shape != ShapeRestart || m.Color != colorStart {
				return false // more than the process's first start
			}
		}
		return len(l.Spans) == 0
	}
	s.Lanes = slices.DeleteFunc(s.Lanes, func(l Lane) bool {
		return l.Kind == LaneProcess && !slices.Contains(s.in.Lead, l.Group) && idle(l)
	})
}

// lane returns the index of the lane with id, adding it when new.
func (s *Story) lane(id, name, kind, group string) int {
	for i := range s.Lanes {
		if s.Lanes[i].ID == id {
			return i
		}
	}
	s.Lanes = append(s.Lanes, Lane{ID: id, Name: name, Kind: kind, Group: group})
	return len(s.Lanes) - 1
}

// LaneOf returns the lane a step is drawn on, or -1 (the admin's calls, the
// kernel's bookkeeping).
func (s *Story) LaneOf(i int) int {
	st := s.in.Steps[i]
	switch {
	case st.Process == "" && st.Op == "action":
		return s.find("workload")
	case st.Process == "" && st.Op == "fault":
		return s.find("apiserver")
	case st.Process == "" || st.Process == "admin":
		return -1
	case st.Controller != "":
		return s.find("process:" + st.Process + "/" + st.Controller)
	}
	return s.processLane(st.Process)
}

func (s *Story) find(id string) int {
	for i := range s.Lanes {
		if s.Lanes[i].ID == id {
			return i
		}
	}
	return -1
}

// processLane is the first lane of a process (where its crashes are drawn).
func (s *Story) processLane(proc string) int {
	for i := range s.Lanes {
		if s.Lanes[i].Kind == LaneProcess && s.Lanes[i].Group == proc {
			return i
		}
	}
	return -1
}

func isCall(op string) bool {
	switch strings.SplitN(strings.TrimPrefix(op, "cached-"), "/", 2)[0] {
	case "get", "list", "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// resultColor is the colour of a reconcile's outcome.
func resultColor(res string) string {
	switch {
	case strings.HasPrefix(res, "error"), strings.HasPrefix(res, "terminal"), strings.HasPrefix(res, "panic"):
		return colorError
	case strings.HasPrefix(res, "requeue"):
		return colorRequeue
	}
	return colorOK
}

// processLanes draws the workload's actions, the processes' reconciles, writes,
// starts, crashes and restarts, and the models' own steps.
func (s *Story) processLanes() {
	steps := s.in.Steps
	// Lanes in order of first appearance; a process's own lane only when it has
	// no controller lane.
	type open struct{ lane, span int }
	running := map[string]open{} // process/controller#worker -> its reconcile span
	var procMarks []struct {
		proc string
		m    Mark
	}
	hasCtrl := map[string]bool{}
	for _, st := range steps {
		if st.Controller != "" {
			hasCtrl[st.Process] = true
		}
	}
	for i, st := range steps {
		switch {
		case st.Op == "heal":
			if s.Heal < 0 {
				s.Heal = st.At
			}
		case st.Process == "" && st.Op == "action":
			l := s.lane("workload", "workload (plan steps)", LaneWorkload, "")
			s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: st.At, Step: i, Shape: ShapeDiamond, Color: colorAction,
				Label: s.actionLabel(st), Tip: st.String()})
		case st.Process == "" && st.Op == "fault":
			l := s.lane("apiserver", "apiserver (faults)", LaneAPIServer, "")
			s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: st.At, Step: i, Shape: ShapeTick, Color: colorError, Tip: st.String()})
		case st.Process == "" || st.Process == "admin":
		case st.Controller != "":
			l := s.lane("process:"+st.Process+"/"+st.Controller, st.Process+"/"+st.Controller, LaneProcess, st.Process)
			key := fmt.Sprintf("%s/%s#%d", st.Process, st.Controller, st.Worker)
			switch {
			case st.Op == "reconcile":
				s.Lanes[l].Spans = append(s.Lanes[l].Spans, Span{From: st.At, To: st.At, Kind: SpanReconcile, Color: colorOK, Step: i,
					Label: fmt.Sprintf("r%d", st.Reconcile)})
				running[key] = open{l, len(s.Lanes[l].Spans) - 1}
			case st.Op == "result":
				if o, ok := running[key]; ok {
					sp := &s.Lanes[o.lane].Spans[o.span]
					sp.To, sp.Color = st.At, resultColor(st.Result)
					delete(running, key)
				}
				if c := resultColor(st.Result); c != colorOK {
					s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: st.At, Step: i, Shape: ShapeDot, Color: c, Tip: st.String()})
				}
			case st.Op == "crash" || st.Op == "panic":
				if o, ok := running[key]; ok {
					sp := &s.Lanes[o.lane].Spans[o.span]
					sp.To, sp.Color = st.At, colorError
					delete(running, key)
				}
				s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: st.At, Step: i, Shape: ShapeCross, Color: colorCrash, Label: st.Op, Tip: st.String()})
			case trace.IsWrite(st.Op):
				s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: st.At, Step: i, Shape: ShapeTick, Color: colorWrite, Tip: st.String()})
			}
		default:
			switch st.Op {
			case "crash", "restart", "start", "panic", "setup":
				shape, color, label := ShapeCross, colorCrash, st.Op
				switch st.Op {
				case "restart":
					shape, color = ShapeRestart, colorRestart
				case "start":
					shape, color, label = ShapeRestart, colorStart, ""
				}
				if st.Op == "crash" {
					// Close the process's open reconciles: they died with it.
					for _, k := range sortedKeys(running) {
						if strings.HasPrefix(k, st.Process+"/") {
							o := running[k]
							sp := &s.Lanes[o.lane].Spans[o.span]
							sp.To, sp.Color = st.At, colorError
							delete(running, k)
						}
					}
				}
				procMarks = append(procMarks, struct {
					proc string
					m    Mark
				}{st.Process, Mark{At: st.At, Step: i, Shape: shape, Color: color, Label: label, Tip: st.String()}})
				if !hasCtrl[st.Process] {
					s.lane("process:"+st.Process, st.Process, LaneProcess, st.Process)
				}
			case "hold", "release":
				// Drawn from the plan, as a span.
			default:
				if strings.HasPrefix(st.Op, "cached-") || isCall(st.Op) {
					if !hasCtrl[st.Process] && trace.IsWrite(st.Op) {
						l := s.lane("process:"+st.Process, st.Process, LaneProcess, st.Process)
						s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: st.At, Step: i, Shape: ShapeTick, Color: colorWrite, Tip: st.String()})
					}
					continue
				}
				// A model's own step: a promotion system's side effect, say.
				l := s.lane("process:"+st.Process, st.Process, LaneProcess, st.Process)
				s.Lanes[l].Marks = append(s.Lanes[l].Marks, Mark{At: st.At, Step: i, Shape: ShapeDot, Color: colorModel, Tip: st.String()})
			}
		}
	}
	// Reconciles still running at the end run to the end.
	for _, k := range sortedKeys(running) {
		o := running[k]
		sp := &s.Lanes[o.lane].Spans[o.span]
		if n := len(steps); n > 0 {
			sp.To = steps[n-1].At
		}
	}
	for _, pm := range procMarks {
		if l := s.processLane(pm.proc); l >= 0 {
			s.Lanes[l].Marks = append(s.Lanes[l].Marks, pm.m)
		}
	}
}

// actionLabel is a workload step's text: its name and arguments, from the plan.
func (s *Story) actionLabel(st trace.Step) string {
	if s.in.Plan != nil {
		for _, p := range s.in.Plan.Steps {
			if p.At == st.At && p.Action == st.Object {
				return strings.TrimPrefix(p.String(), "at "+p.At.String()+" ")
			}
		}
	}
	return st.Object
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m { // lint:order-independent sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// shortKind is the Kind of a "group/version/Kind" resource, or "every kind".
func shortKind(r string) string {
	if r == "*" || r == "" {
		return "every kind"
	}
	return r[strings.LastIndex(r, "/")+1:]
}

// faultSpans draws the plan's faults: holds, lags and latencies on their
// process's lanes, API faults on the apiserver lane, workers as a lane note.
func (s *Story) faultSpans() {
	if s.in.Plan == nil {
		return
	}
	heal := s.Heal
	if heal < 0 && len(s.in.Steps) > 0 {
		heal = s.in.Steps[len(s.in.Steps)-1].At
	}
	onProcess := func(proc string, sp Span) {
		found := false
		for i := range s.Lanes {
			if s.Lanes[i].Kind == LaneProcess && s.Lanes[i].Group == proc {
				s.Lanes[i].Spans = append(s.Lanes[i].Spans, sp)
				found = true
			}
		}
		if !found {
			l := s.lane("process:"+proc, proc, LaneProcess, proc)
			s.Lanes[l].Spans = append(s.Lanes[l].Spans, sp)
		}
	}
	for _, f := range s.in.Plan.Faults {
		switch f.Kind {
		case plan.Hold:
			onProcess(f.Process, Span{From: f.From, To: f.Until, Kind: SpanFault, Color: colorFault, Step: -1,
				Label: "watch of " + shortKind(f.Resource) + " held"})
		case plan.Lag:
			onProcess(f.Process, Span{From: 0, To: heal, Kind: SpanFault, Color: colorFault, Step: -1,
				Label: fmt.Sprintf("cache lag %s–%s (%s)", f.Min, f.Max, shortKind(f.Resource))})
		case plan.Latency:
			onProcess(f.Process, Span{From: 0, To: heal, Kind: SpanFault, Color: colorFault, Step: -1,
				Label: fmt.Sprintf("call latency %s–%s", f.Min, f.Max)})
		case plan.Workers:
			for i := range s.Lanes {
				if s.Lanes[i].ID == "process:"+f.Process+"/"+f.Controller {
					s.Lanes[i].Note = fmt.Sprintf("%d workers", f.N)
				}
			}
		case plan.API:
			until := f.Until
			if until == 0 {
				until = heal
			}
			l := s.lane("apiserver", "apiserver (faults)", LaneAPIServer, "")
			s.Lanes[l].Spans = append(s.Lanes[l].Spans, Span{From: f.From, To: until, Kind: SpanFault, Color: colorFault, Step: -1,
				Label: apiFaultLabel(f)})
		case plan.Crash:
			// The crash step is in the trace, drawn as a cross.
		case plan.Stale:
			// The crash is in the trace; the span shows how far behind the
			// apiserver it restarts onto is (the trace's "stale" step says
			// exactly when the lag starts and ends).
			label := "restart onto an apiserver " + f.Age.String() + " behind"
			if f.Rev > 0 {
				label = fmt.Sprintf("restart onto an apiserver at resourceVersion %d", f.Rev)
			}
			if f.Resource != "" && f.Resource != "*" {
				label += " (" + f.Resource + " only)"
			}
			onProcess(f.Process, Span{From: f.At, To: f.At + f.Age, Kind: SpanFault, Color: colorFault, Step: -1,
				Label: label})
		}
	}
}

func apiFaultLabel(f plan.Fault) string {
	a := f.API
	var parts []string
	if a.Code != 0 {
		parts = append(parts, fmt.Sprint(a.Code))
	}
	for _, p := range []string{a.Verb, a.Resource, a.Subresource} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if a.Name != "" {
		parts = append(parts, a.Name)
	}
	if len(parts) == 0 {
		return "API fault"
	}
	return strings.Join(parts, " ")
}

// times are the instants the picture must show.
func (s *Story) times() []time.Duration {
	var ts []time.Duration
	for _, l := range s.Lanes {
		for _, sp := range l.Spans {
			ts = append(ts, sp.From, sp.To)
		}
		for _, m := range l.Marks {
			ts = append(ts, m.At)
		}
	}
	for _, v := range s.Verdicts {
		ts = append(ts, v.At)
	}
	if s.Heal >= 0 {
		ts = append(ts, s.Heal)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// placeVerdicts puts each violated verdict where it happened: at its event when
// the story found one, else at the time the property gives.
func (s *Story) placeVerdicts() {
	for i := range s.Verdicts {
		v := &s.Verdicts[i]
		switch {
		case v.Event >= 0:
			v.At = s.Events[v.Event].At
		case v.Judged > s.lastActivity():
			// Judged at the end of the run: the detail may say when it happened.
			if t, ok := lastTimeIn(v.Detail, v.Judged); ok {
				v.At = t
			}
		}
	}
}

// lastActivity is the time of the last step of a process or the workload.
func (s *Story) lastActivity() time.Duration {
	for i := len(s.in.Steps) - 1; i >= 0; i-- {
		if s.LaneOf(i) >= 0 {
			return s.in.Steps[i].At
		}
	}
	return 0
}

// lastTimeIn is the latest time "at <duration>" in a verdict's detail that is not
// after judged.
func lastTimeIn(detail string, judged time.Duration) (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, f := range strings.Fields(detail) {
		f = strings.TrimRight(f, ",;:)")
		d, err := time.ParseDuration(f)
		if err != nil || d > judged || !strings.Contains(detail, "at "+f) {
			continue
		}
		if !found || d > best {
			best, found = d, true
		}
	}
	return best, found
}
