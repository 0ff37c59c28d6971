package plan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Bounds on a plan. A plan is input (a file, a command line, fuzz bytes), so
// every size and number in it is bounded, and nothing it asks for can hang a run
// or exhaust memory; Parse and Validate refuse what exceeds them.
const (
	MaxPlanBytes = 1 << 20        // the text form
	MaxLineBytes = 64 << 10       // one line of it
	MaxEntries   = 1000           // steps plus faults
	MaxWorkers   = 64             // n= of a workers fault (MaxConcurrentReconciles)
	MaxTime      = 24 * time.Hour // any time or duration: at=, from=, until=, min=, max=
	MaxCount     = 1_000_000      // call= of a crash, count= of an API fault
	MaxArgs      = 32             // arguments of one step
)

// Plan is one run's input: the seed, the workload and the faults. A run is a pure
// function of its plan.
type Plan struct {
	Seed   uint64
	Steps  []Step  // the workload, in the order they were planned (run in time order)
	Faults []Fault // in order; for API faults the first match applies
}

// Step is one timed user action. What an action does is the scenario's: the
// kernel only knows its name and arguments.
type Step struct {
	At     time.Duration
	Action string
	Args   Args
	// Script marks a step the test's author wrote (a scripted workload), as
	// opposed to one a generator drew: the text form starts its line with
	// "script at". A world runs both alike; a scripted step is not a draw, so
	// shrinking keeps it, and a reader of the plan tells the author's steps
	// from the generated ones.
	Script bool
}

// Args are an action's arguments, in order.
type Args []Arg

// Arg is one key=value argument.
type Arg struct{ Key, Value string }

// Get returns the value of key, or "".
func (a Args) Get(key string) string {
	for _, x := range a {
		if x.Key == key {
			return x.Value
		}
	}
	return ""
}

// FaultKind names a class of fault.
type FaultKind string

// The fault classes a plan can hold. Each is a fault a real cluster can produce.
const (
	// Lag: events of Kind reach Process's cache after a lag drawn uniformly from
	// [Min, Max] (informer lag). Kind is "group/version/Kind" ("/v1/Namespace" for
	// core), or "*" for every kind.
	Lag FaultKind = "lag"
	// Hold: Process's cache of Kind receives no events in [From, Until) (a stalled
	// watch), then catches up.
	Hold FaultKind = "hold"
	// Crash: Process dies at its Call-th client call (counted from 1 over the whole
	// run), instead of it; or right after its Write-th write (create, update,
	// patch, delete; counted the same way) has committed, before the response
	// reaches it (Sieve's intermediate state); or at time At.
	Crash FaultKind = "crash"
	// API: requests matching API fail (or are ambiguous) during [From, Until);
	// Until 0 means to the end of the fault phase.
	API FaultKind = "api"
	// Latency: each client call of Process takes a time drawn from [Min, Max].
	Latency FaultKind = "latency"
	// Workers: Controller runs N workers (MaxConcurrentReconciles).
	Workers FaultKind = "workers"
	// Stale: Process restarts at At (a crash), and its new incarnation lists and
	// watches through an apiserver Age behind (a lagging watch cache: client-go's
	// reflector lists with resourceVersion 0): its informers list the state as
	// it was Age earlier and get each event Age after its commit, until the
	// lagging apiserver has caught up, Age after the restart (Sieve's
	// stale-state pattern, "time travel"). With Rev, the lagging apiserver's
	// watch cache is at that resourceVersion instead of Age behind: the
	// informers list the state just after the write that made Rev (exact
	// where writes share an instant) and get every later event Age after the
	// restart, when the cache has caught up. With Resource ("group/version/Kind";
	// "" or "*": every kind), only that kind's watch cache lags: the process's
	// other informers are fresh (kube-apiserver keeps a watch cache per
	// resource). The heal ends it, as every fault: a view still behind then
	// catches up at once.
	Stale FaultKind = "stale"
	// Stop: Process stops cleanly at From, as a graceful shutdown between
	// reconciles (none is cut: it stops once none is in flight), and starts
	// again at Until, or right after the stop if that comes later (Until 0:
	// not within the run), whatever the heal. It is no
	// fault the generator draws: operatortest replays a faulted run's
	// process-down windows so, for the fault-free run of the same downtime.
	Stop FaultKind = "stop"
	// Blind: Process's informers show it each of its own writes as soon as
	// it has the response (every queued event of that object, then), whatever
	// else holds or delays them, in every incarnation; and, with Age, its
	// first start at or after At lists and watches through an apiserver Age
	// behind, as a stale restart's does (without the crash), until the heal
	// at the latest (a start after the heal is fresh). It is no fault
	// the generator draws: operatortest replays a faulted run's blind time so
	// (its stale, held and lagging views, behind the world's writes but never
	// behind the operator's own), for the fault-free run of the same blind
	// time.
	Blind FaultKind = "blind"
	// Unobserved: Process never sees some changes of one object: its
	// informers of Resource ("group/version/Kind") withhold the events of
	// Object ("namespace/name", "name" when cluster-scoped) from the change
	// that made resourceVersion FromRev (0: from its creation, every change)
	// until the change that makes UntilRev (0: until its deletion), and lists
	// made meanwhile (the initial list of a process that starts, a relist)
	// show the object as it was before FromRev (from its creation: not at
	// all). The window ends at the until change, at the object's deletion,
	// or at the heal, as every fault: the process then catches up as a
	// watch does, with the newest state (the until change, the deletion
	// with the object's last state, or at the heal its state then). Like a
	// stale fault's rev=, FromRev and UntilRev are resourceVersions of the
	// reference run: exact, and the same in the faulted run up to the first
	// fault that changes what is written (Sieve's unobserved-state pattern:
	// the controller's view paused over a chosen change of one object).
	Unobserved FaultKind = "unobserved"

	// Workload faults, which the kubelet model (models/kube) meets. Pod counts
	// the pods the kubelet binds, from 1, in the order it binds them. They
	// end with the fault phase, as the others do (kube.PodFault, kube.NodeLoss).

	// NotReady: the Pod-th pod's containers run and never become ready.
	NotReady FaultKind = "notready"
	// CrashLoop: the Pod-th pod's containers exit with code 1 each time they
	// have run; they restart with the kubelet's back-off (CrashLoopBackOff)
	// unless the pod's restartPolicy is Never.
	CrashLoop FaultKind = "crashloop"
	// PodFail: the Pod-th pod's containers exit with code 1 once (a Job pod
	// with restartPolicy Never fails).
	PodFail FaultKind = "podfail"
	// NodeLost: Node stops at time At: its pods are marked not ready after the
	// node monitor grace period and evicted after the not-ready toleration.
	NodeLost FaultKind = "nodelost"
)

// Workload reports whether k is a workload fault (NotReady, CrashLoop,
// PodFail, NodeLost): one the kubelet model meets, with no process.
func (k FaultKind) Workload() bool {
	return k == NotReady || k == CrashLoop || k == PodFail || k == NodeLost
}

// Fault is one fault of a plan; which fields matter depends on Kind.
type Fault struct {
	Kind       FaultKind
	Process    string
	Controller string
	Resource   string // Lag, Hold, Stale: the kind, as "group/version/Kind" or "*" ("" for a stale fault: every kind)
	Min, Max   time.Duration
	From       time.Duration
	Until      time.Duration
	Call       int
	Write      int
	At         time.Duration
	N          int
	Age        time.Duration // Stale: how far behind the apiserver is (with Rev: how long)
	Rev        uint64        // Stale: the resourceVersion the lagging watch cache is at (0: Age behind)
	API        apiserver.Fault
	Pod        int    // NotReady, CrashLoop, PodFail: the pod, counted from 1
	Node       string // NodeLost
	// Unobserved: the object ("namespace/name"; "name" when cluster-scoped),
	// the resourceVersion of the first change withheld (0: its creation) and
	// of the change that ends the window (0: its deletion or the heal).
	Object   string
	FromRev  uint64
	UntilRev uint64
}

// String is the plan's text form: one line per seed, step and fault; Parse reads it
// back to the same plan.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d\n", p.Seed)
	for _, s := range p.Steps {
		b.WriteString(s.String())
		b.WriteByte('\n')
	}
	for _, f := range p.Faults {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Size is the number of steps and faults: what shrinking minimises.
func (p *Plan) Size() int { return len(p.Steps) + len(p.Faults) }

func (s Step) String() string {
	var b strings.Builder
	if s.Script {
		b.WriteString("script ")
	}
	fmt.Fprintf(&b, "at %s %s", s.At, quote(s.Action))
	for _, a := range s.Args {
		fmt.Fprintf(&b, " %s=%s", a.Key, quote(a.Value))
	}
	return b.String()
}

func (f Fault) String() string {
	var kv []string
	add := func(k, v string) {
		if v != "" {
			kv = append(kv, k+"="+quote(v))
		}
	}
	dur := func(k string, d time.Duration) {
		if d != 0 {
			add(k, d.String())
		}
	}
	num := func(k string, n int) {
		if n != 0 {
			add(k, strconv.Itoa(n))
		}
	}
	add("process", f.Process)
	add("controller", f.Controller)
	add("kind", f.Resource)
	switch f.Kind {
	case Lag, Latency:
		add("min", f.Min.String())
		add("max", f.Max.String())
	case Hold:
		add("from", f.From.String())
		add("until", f.Until.String())
	case Stop:
		add("from", f.From.String())
		dur("until", f.Until)
	case Blind:
		dur("at", f.At)
		dur("age", f.Age)
		if f.Rev != 0 {
			add("rev", strconv.FormatUint(f.Rev, 10))
		}
	case Crash:
		num("call", f.Call)
		num("write", f.Write)
		dur("at", f.At)
	case Workers:
		num("n", f.N)
	case Stale:
		dur("at", f.At)
		dur("age", f.Age)
		if f.Rev != 0 {
			add("rev", strconv.FormatUint(f.Rev, 10))
		}
	case Unobserved:
		add("object", f.Object)
		// Both always: from=0 reads "from its creation", until=0 "until
		// its deletion or the heal".
		kv = append(kv, "from="+strconv.FormatUint(f.FromRev, 10), "until="+strconv.FormatUint(f.UntilRev, 10))
	case NotReady, CrashLoop, PodFail:
		num("pod", f.Pod)
	case NodeLost:
		add("node", f.Node)
		dur("at", f.At)
	case API:
		a := f.API
		add("verb", a.Verb)
		add("resource", a.Resource)
		add("subresource", a.Subresource)
		add("namespace", a.Namespace)
		add("name", a.Name)
		num("code", a.Code)
		if a.Ambiguous {
			add("ambiguous", "true")
		}
		add("field", a.Field)
		add("message", a.Message)
		num("count", a.Count)
		dur("from", f.From)
		dur("until", f.Until)
	}
	if len(kv) == 0 {
		return string(f.Kind)
	}
	return string(f.Kind) + " " + strings.Join(kv, " ")
}

// quote leaves plain words alone and Go-quotes anything with spaces, quotes, '='
// or nothing at all.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"=#\\") {
		return strconv.Quote(s)
	}
	return s
}

// ParseError says which line of a plan text is wrong and why.
type ParseError struct {
	Line int
	Text string
	Err  string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return "plan: " + e.Err
	}
	return fmt.Sprintf("plan line %d: %s: %q", e.Line, e.Err, e.Text)
}

// Parse reads a plan's text form. Blank lines and lines starting with # are
// ignored.
func Parse(text string) (*Plan, error) {
	if len(text) > MaxPlanBytes {
		return nil, &ParseError{Err: fmt.Sprintf("the plan is larger than %d bytes", MaxPlanBytes)}
	}
	p := &Plan{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	seenSeed := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fail := func(format string, args ...any) error {
			return &ParseError{Line: n, Text: line, Err: fmt.Sprintf(format, args...)}
		}
		words, err := split(line)
		if err != nil {
			return nil, fail("%v", err)
		}
		script := false
		if words[0] == "script" {
			// script at <duration> <action> ...: a step of the author's script.
			if len(words) < 2 || words[1] != "at" {
				return nil, fail("want: script at <duration> <action> [key=value...]")
			}
			script, words = true, words[1:]
		}
		switch words[0] {
		case "seed":
			if len(words) != 2 {
				return nil, fail("want: seed <number>")
			}
			v, err := strconv.ParseUint(words[1], 0, 64)
			if err != nil {
				return nil, fail("bad seed")
			}
			p.Seed, seenSeed = v, true
		case "at":
			if len(words) < 3 {
				return nil, fail("want: at <duration> <action> [key=value...]")
			}
			at, err := time.ParseDuration(words[1])
			if err != nil || at < 0 || at > MaxTime {
				return nil, fail("bad time %q (want a duration from 0 to %s)", words[1], MaxTime)
			}
			s := Step{At: at, Action: words[2], Script: script}
			for _, w := range words[3:] {
				k, v, ok := strings.Cut(w, "=")
				if !ok || k == "" {
					return nil, fail("argument %q is not key=value", w)
				}
				s.Args = append(s.Args, Arg{Key: k, Value: v})
			}
			p.Steps = append(p.Steps, s)
		default:
			f, err := parseFault(FaultKind(words[0]), words[1:])
			if err != nil {
				return nil, fail("%v", err)
			}
			p.Faults = append(p.Faults, f)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &ParseError{Err: fmt.Sprintf("a line is longer than %d bytes", MaxLineBytes)}
		}
		return nil, err
	}
	if !seenSeed {
		return nil, &ParseError{Line: 0, Err: "no seed line"}
	}
	if err := p.Validate(); err != nil {
		return nil, &ParseError{Err: err.Error()}
	}
	return p, nil
}

// Read parses a plan from r, reading at most MaxPlanBytes (a device or pipe that
// never ends is refused, not read for ever).
func Read(r io.Reader) (*Plan, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxPlanBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxPlanBytes {
		return nil, &ParseError{Err: fmt.Sprintf("the plan is larger than %d bytes", MaxPlanBytes)}
	}
	return Parse(string(b))
}

// Validate checks a plan built in code (or drawn) as Parse checks a text: the
// bounds above, and each fault's own rules.
func (p *Plan) Validate() error {
	if n := p.Size(); n > MaxEntries {
		return fmt.Errorf("%d steps and faults: at most %d", n, MaxEntries)
	}
	for _, s := range p.Steps {
		if s.At < 0 || s.At > MaxTime {
			return fmt.Errorf("step %q: time %s is outside 0..%s", s.String(), s.At, MaxTime)
		}
		if len(s.Args) > MaxArgs {
			return fmt.Errorf("step %q: %d arguments: at most %d", s.Action, len(s.Args), MaxArgs)
		}
	}
	for _, f := range p.Faults {
		if err := f.validate(); err != nil {
			return fmt.Errorf("%q: %v", f.String(), err)
		}
	}
	return nil
}

var faultKeys = map[FaultKind][]string{
	Lag:     {"process", "kind", "min", "max"},
	Hold:    {"process", "kind", "from", "until"},
	Crash:   {"process", "call", "write", "at"},
	Latency: {"process", "min", "max"},
	Workers: {"process", "controller", "n"},
	Stale:   {"process", "at", "age", "kind", "rev"},
	Stop:    {"process", "from", "until"},
	Blind:   {"process", "at", "age", "kind", "rev"},
	// from= and until= of an unobserved fault are resourceVersions, not times.
	Unobserved: {"process", "kind", "object", "from", "until"},
	API:        {"process", "verb", "resource", "subresource", "namespace", "name", "code", "ambiguous", "field", "message", "count", "from", "until"},
	// Workload faults.
	NotReady:  {"pod"},
	CrashLoop: {"pod"},
	PodFail:   {"pod"},
	NodeLost:  {"node", "at"},
}

func parseFault(kind FaultKind, words []string) (Fault, error) {
	allowed, ok := faultKeys[kind]
	if !ok {
		return Fault{}, fmt.Errorf("unknown line kind %q (want seed, at, script at, lag, hold, crash, api, latency, workers, stale, stop, blind, unobserved, notready, crashloop, podfail or nodelost)", kind)
	}
	f := Fault{Kind: kind}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || !slices.Contains(allowed, k) {
			return Fault{}, fmt.Errorf("%s takes %s, not %q", kind, strings.Join(allowed, ", "), w)
		}
		var err error
		dur := func(d *time.Duration) {
			*d, err = time.ParseDuration(v)
			if err == nil && (*d < 0 || *d > MaxTime) {
				err = fmt.Errorf("want a duration from 0 to %s", MaxTime)
			}
		}
		num := func(n *int) {
			*n, err = strconv.Atoi(v)
			if err == nil && (*n < 0 || *n > MaxCount) {
				err = fmt.Errorf("want a number from 0 to %d", MaxCount)
			}
		}
		switch k {
		case "process":
			f.Process = v
		case "controller":
			f.Controller = v
		case "kind":
			f.Resource = v
		case "min":
			dur(&f.Min)
		case "max":
			dur(&f.Max)
		case "from":
			if kind == Unobserved {
				if f.FromRev, err = strconv.ParseUint(v, 10, 64); err != nil {
					err = fmt.Errorf("want a resourceVersion (0: from its creation)")
				}
				break
			}
			dur(&f.From)
		case "until":
			if kind == Unobserved {
				if f.UntilRev, err = strconv.ParseUint(v, 10, 64); err != nil {
					err = fmt.Errorf("want a resourceVersion (0: until its deletion or the heal)")
				}
				break
			}
			dur(&f.Until)
		case "object":
			f.Object = v
		case "at":
			dur(&f.At)
		case "age":
			dur(&f.Age)
		case "rev":
			f.Rev, err = strconv.ParseUint(v, 10, 64)
			if err == nil && f.Rev == 0 {
				err = fmt.Errorf("want a resourceVersion above 0")
			}
		case "call":
			num(&f.Call)
		case "write":
			num(&f.Write)
		case "n":
			num(&f.N)
		case "pod":
			num(&f.Pod)
		case "node":
			f.Node = v
		case "verb":
			f.API.Verb = v
		case "resource":
			f.API.Resource = v
		case "subresource":
			f.API.Subresource = v
		case "namespace":
			f.API.Namespace = v
		case "name":
			f.API.Name = v
		case "code":
			num(&f.API.Code)
		case "ambiguous":
			f.API.Ambiguous, err = strconv.ParseBool(v)
		case "field":
			f.API.Field = v
		case "message":
			f.API.Message = v
		case "count":
			num(&f.API.Count)
		}
		if err != nil {
			return Fault{}, fmt.Errorf("bad %s %q: %v", k, v, err)
		}
	}
	return f, f.validate()
}

func (f Fault) validate() error {
	switch f.Kind {
	case Lag, Latency:
		if f.Max < f.Min {
			return fmt.Errorf("%s: max %s is below min %s", f.Kind, f.Max, f.Min)
		}
	case Hold:
		if f.Until <= f.From {
			return fmt.Errorf("hold: until %s must be after from %s", f.Until, f.From)
		}
	case Crash:
		given := 0
		for _, set := range []bool{f.Call != 0, f.Write != 0, f.At != 0} {
			if set {
				given++
			}
		}
		if given != 1 {
			return fmt.Errorf("crash: give exactly one of call=N, write=N or at=DURATION")
		}
	case API:
		if !f.API.Ambiguous {
			switch f.API.Code {
			case 403, 409, 422, 429, 500, 503, 504:
			default:
				return fmt.Errorf("api: code must be one of 403 409 422 429 500 503 504 (or ambiguous=true), got %d", f.API.Code)
			}
		}
	case Workers:
		if f.N < 1 || f.N > MaxWorkers {
			return fmt.Errorf("workers: n must be from 1 to %d, got %d", MaxWorkers, f.N)
		}
	case Stop:
		if f.Process == "" || (f.Until != 0 && f.Until <= f.From) {
			return fmt.Errorf("stop: give process=NAME, from=DURATION and, if it starts again, until=DURATION after from")
		}
	case Blind:
		if f.Process == "" || (f.At > 0 && f.Age == 0) {
			return fmt.Errorf("blind: give process=NAME and, for a stale start, at=DURATION and age=DURATION")
		}
	case Stale:
		if f.Process == "" || f.At <= 0 || f.Age <= 0 {
			return fmt.Errorf("stale: give process=NAME, at=DURATION and age=DURATION, both above 0")
		}
		if f.Resource != "" && f.Resource != "*" && strings.Count(f.Resource, "/") != 2 {
			return fmt.Errorf("stale: kind must be group/version/Kind (/v1/Pod for a core kind) or *, got %q", f.Resource)
		}
	case Unobserved:
		if f.Process == "" || f.Object == "" || strings.Count(f.Resource, "/") != 2 {
			return fmt.Errorf("unobserved: give process=NAME, kind=group/version/Kind (/v1/Pod for a core kind) and object=NAMESPACE/NAME (NAME when cluster-scoped)")
		}
		if strings.Count(f.Object, "/") > 1 || strings.HasPrefix(f.Object, "/") || strings.HasSuffix(f.Object, "/") {
			return fmt.Errorf("unobserved: object must be namespace/name, or name when cluster-scoped, got %q", f.Object)
		}
		if f.UntilRev != 0 && f.UntilRev <= f.FromRev {
			return fmt.Errorf("unobserved: until=%d must be after from=%d (or 0: its deletion or the heal)", f.UntilRev, f.FromRev)
		}
	case NotReady, CrashLoop, PodFail:
		if f.Pod < 1 || f.Pod > MaxCount {
			return fmt.Errorf("%s: pod must be from 1 to %d, got %d", f.Kind, MaxCount, f.Pod)
		}
	case NodeLost:
		if f.Node == "" {
			return fmt.Errorf("nodelost: node is required")
		}
	}
	for _, d := range []time.Duration{f.Min, f.Max, f.From, f.Until, f.At, f.Age} {
		if d < 0 || d > MaxTime {
			return fmt.Errorf("%s: a time or duration is outside 0..%s", f.Kind, MaxTime)
		}
	}
	if f.Call < 0 || f.Call > MaxCount || f.Write < 0 || f.Write > MaxCount || f.API.Count < 0 || f.API.Count > MaxCount {
		return fmt.Errorf("%s: call, write and count must be from 0 to %d", f.Kind, MaxCount)
	}
	if f.Kind != Workers && f.Kind != API && !f.Kind.Workload() && f.Process == "" {
		return fmt.Errorf("%s: process is required", f.Kind)
	}
	return nil
}

// split breaks a line into words; a word may contain a Go-quoted string after '='
// or be one entirely.
func split(line string) ([]string, error) {
	var words []string
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		start := i
		var b strings.Builder
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			if line[i] == '"' {
				q, err := strconv.QuotedPrefix(line[i:])
				if err != nil {
					return nil, fmt.Errorf("unterminated quote at column %d", i+1)
				}
				u, _ := strconv.Unquote(q)
				b.WriteString(u)
				i += len(q)
				continue
			}
			b.WriteByte(line[i])
			i++
		}
		_ = start
		words = append(words, b.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("empty line")
	}
	return words, nil
}
