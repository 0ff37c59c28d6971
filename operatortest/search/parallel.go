package search

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/internal/outside"
	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Parallel exploration, on every core. A plan's run seeds process-global
// randomness (wallclock.SeedRandom: crypto/rand, math/rand, util/rand, uuid),
// so two plans cannot run in one process at once. As Go's fuzzing does, the
// test binary re-executes itself: with Options.Workers n, the test's process
// is one worker and n-1 processes are the others, each running the same test
// (-test.run=<its name>) with CTRLSIM_WORKER set, so that the test's first
// exploration in the worker process becomes a worker. The parent hands the
// places of the sequence (those this shard owns) out one at a time, the
// lowest not yet handed out to whichever worker asks (a worker that starts
// late judges fewer; a worker process holds workerWindow places ahead), over
// the worker's stdin; each worker judges its places
// in order and streams each verdict back on a pipe (fd 3). A worker does not
// draw the plans of the places it is not given: rapid seeds each check from
// the explorer's seed and the check's index only (a place whose draw rapid
// rejects renumbers the places after it: then every place is drawn in the
// test's process, with a log line).
//
// The parent collects the verdicts: the first failing plan is the lowest
// place that violates (or that the world cannot run), once every place
// before it has been judged (no place after a known failure is handed out);
// the worker processes are then stopped. It then runs the
// sequential pass itself, recalling the workers' verdicts rather than running
// the plans again (they are functions of their plans): the same place fails
// first, is shrunk by the same runs, and gives the same minimal plan and
// trace hash as a run with one worker. With KeepGoing the workers judge the
// whole budget and every pass recalls their verdicts: a place whose
// signatures are all seen is skipped.

var FlagWorkers = flag.Int("ctrlsim.workers", 0, "operatortest: worker processes exploring plans in parallel (0: Options.Workers, default GOMAXPROCS; 1: in the test's process)")

const (
	// workerWindow is how many places a worker holds: handed out at its
	// hello, one more at each verdict. This process simulates on one P
	// (cores.go), so the goroutine that reads a worker's pipe waits for the
	// runtime's network poller, which a busy P leaves to sysmon's 10 ms
	// round: a worker given one place at a time waited that long between
	// plans of a few milliseconds.
	workerWindow = 4
	// workerEnv marks a worker process: "j/n <test name>".
	WorkerEnv = "CTRLSIM_WORKER"
	// workerFD is the worker's end of the pipe its verdicts go to.
	workerFD = 3
)

// workerMsg is one line a worker sends: first a hello naming the exploration
// it runs, then one verdict per place it judged, then done.
type workerMsg struct {
	Hello *workerHello `json:"hello,omitempty"`
	// Place is a judged place (from 1): Sigs the signatures of what its plan
	// violates (none: it held), Err a world that could not run it, Invalid a
	// draw rapid rejected. Each verdict asks for another place.
	Place   int      `json:"place,omitempty"`
	Sigs    []string `json:"sigs,omitempty"`
	Err     string   `json:"err,omitempty"`
	Invalid bool     `json:"invalid,omitempty"`
	Cut     string   `json:"cut,omitempty"` // the place's plan was cut at the work bound (cut.go)
	Done    bool     `json:"done,omitempty"`
}

// workerHello is what identifies an exploration: a worker whose test explores
// another one (its options depend on something the parent does not pass)
// fails the parent's test.
type workerHello struct {
	Test      string `json:"test"`
	Seed      uint64 `json:"seed"`
	Checks    int    `json:"checks"`
	Shard     string `json:"shard"`
	KeepGoing bool   `json:"keepgoing"`
}

func hello(w *world.World, t *testing.T) workerHello {
	return workerHello{Test: t.Name(), Seed: w.Opts.EffectiveSeed(), Checks: w.Opts.Checks, Shard: w.Opts.Shard.String(), KeepGoing: w.Opts.KeepGoing}
}

// explorations counts the explorations each test has started: only a test's
// first one can be re-run by worker processes (they run the test from its
// start and explore at its first exploration).
var explorations = struct {
	sync.Mutex
	n map[*testing.T]int
}{n: map[*testing.T]int{}}

func nextExploration(t *testing.T) int {
	explorations.Lock()
	defer explorations.Unlock()
	explorations.n[t]++
	return explorations.n[t]
}

// workerRole is this process's role for t's exploration: j of n when it is
// the worker process the parent started for t (j from 2: the parent is
// worker 1), else 0.
func workerRole(t *testing.T, call int) (j, n int) {
	v, ok := os.LookupEnv(WorkerEnv)
	if !ok || call != 1 {
		return 0, 0
	}
	role, test, _ := strings.Cut(v, " ")
	if test != t.Name() {
		return 0, 0
	}
	if _, err := fmt.Sscanf(role, "%d/%d", &j, &n); err != nil || j < 1 || j > n {
		return 0, 0
	}
	return j, n
}

// workers is how many workers explore t's plans, this process included (1:
// this process alone) and, when fewer than asked, why (logged).
func workers(w *world.World, t *testing.T, call int) (int, string, error) {
	n, explicit := w.Opts.Workers, w.Opts.Workers > 0
	if *FlagWorkers > 0 {
		n = *FlagWorkers
	}
	if n == 0 {
		n = world.CoresOfTest()
	}
	switch {
	case n <= 1:
		return 1, "", nil
	case os.Getenv(WorkerEnv) != "":
		return 1, "", nil // a worker's other explorations run in it
	case *world.FlagPlan != "":
		return 1, "", nil
	case outside.Running() && explicit:
		return 0, "", fmt.Errorf("Options.Workers is %d in %s, run outside a test binary (internal/outside): worker processes re-run a test binary's test by name, and this program is not one; leave Workers at 0 (this process alone)", w.Opts.Workers, t.Name())
	case outside.Running():
		return 1, "", nil // no test binary to re-run: this process alone, as asked by default
	case call > 1 && explicit:
		return 0, "", fmt.Errorf("Options.Workers is %d on exploration %d of %s: worker processes re-run the test from its start and explore at its first exploration only; give each exploration its own subtest (t.Run)", w.Opts.Workers, call, t.Name())
	case call > 1:
		return 1, fmt.Sprintf("operatortest: exploration %d of %s runs in this process (worker processes explore a test's first exploration only; give each its own subtest to use every core)", call, t.Name()), nil
	}
	return n, "", nil
}

// places hands out the places of an exploration and gathers their verdicts.
type Places struct {
	mu       sync.Mutex
	Checks   int
	Owns     func(k int) bool
	keep     bool // KeepGoing: every place is judged
	Next     int  // the lowest place not handed out yet
	V        *Verdicts
	prefix   int   // every owned place up to it is judged
	failure  error // a worker that failed the exploration
	invalid  bool  // a draw rapid rejected: the places must all be drawn in one process
	Finished chan struct{}
	closed   bool
	// inflight are, per worker process (from 2), the places handed to it
	// and not judged yet, and since when it has judged the first of them:
	// the progress line names a place judged long (longLines).
	inflight map[int]*inflight
	// announced are the signatures already printed as found (KeepGoing:
	// each distinct violation is printed when first judged).
	announced map[string]bool
	// known are the signatures seen before the random pass (saved plans',
	// the fault-free runs' and the sweep's): without KeepGoing a place
	// that shows only these does not stop the pass (nofault.go).
	known map[string]bool
	// offset is how many places the sweep took: a random place k is plan
	// offset+k wherever a line names it, as the report does.
	offset int
}

type inflight struct {
	places []int
	since  time.Time
}

// handed records place k (0: none) handed to worker j.
func (ps *Places) handed(j, k int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if k == 0 {
		return
	}
	if ps.inflight == nil {
		ps.inflight = map[int]*inflight{}
	}
	in := ps.inflight[j]
	if in == nil {
		in = &inflight{}
		ps.inflight[j] = in
	}
	if len(in.places) == 0 {
		in.since = progressNow()
	}
	in.places = append(in.places, k)
}

// judgedBy records worker j's verdict on place k: it judges its next place
// from now.
func (ps *Places) judgedBy(j, k int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if in := ps.inflight[j]; in != nil {
		in.places = slices.DeleteFunc(in.places, func(p int) bool { return p == k })
		in.since = progressNow()
	}
}

// longLines name, for each worker process that has judged one place for
// longer than two progress periods by now, the worker and the place.
func (ps *Places) longLines(now time.Time) []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var js []int
	for j := range ps.inflight { // lint:order-independent sorted below
		js = append(js, j)
	}
	slices.Sort(js)
	var out []string
	for _, j := range js {
		in := ps.inflight[j]
		if took := now.Sub(in.since); len(in.places) > 0 && took > 2*ProgressEvery {
			out = append(out, fmt.Sprintf("operatortest: worker %d has judged plan %d for %s (its plan is drawn in the worker process; -ctrlsim.workers=1 names it)", j, ps.offset+in.places[0], took.Round(time.Second)))
		}
	}
	return out
}

// announce prints, with KeepGoing, each signature of sigs not seen before
// as found at place k.
func (ps *Places) announce(t *testing.T, k int, sigs []string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.keep {
		return
	}
	if ps.announced == nil {
		ps.announced = map[string]bool{}
	}
	for _, sig := range sigs {
		if !ps.announced[sig] {
			ps.announced[sig] = true
			LogProgress(t, "operatortest: found %s at plan %d (shrunk once the workers have judged every plan)", sig, ps.offset+k)
		}
	}
}

// give is the next place for a worker (0: none left).
func (ps *Places) Give() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return 0
	}
	for ps.Next <= ps.Checks && !ps.Owns(ps.Next) {
		ps.Next++
	}
	if ps.Next > ps.Checks || ps.V.Stop > 0 && ps.Next > ps.V.Stop {
		return 0
	}
	ps.Next++
	return ps.Next - 1
}

// judged records place k's verdict (err: the world could not run it).
func (ps *Places) Judged(k int, sigs []string, err, cut string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	v := ps.V
	v.Judged[k] = true
	if cut != "" {
		v.cuts[k] = cut
	}
	switch {
	case err != "":
		if v.Stop == 0 || k < v.Stop {
			v.Stop = k // the pass runs it again and meets the error itself
		}
	default:
		v.Sigs[k] = sigs
		if pick(sigs, ps.known, "") != "" && !ps.keep && (v.Stop == 0 || k < v.Stop) {
			v.Stop = k
		}
	}
	ps.settleLocked()
}

// settleLocked advances the judged prefix and closes the exploration when it
// is decided: every place judged, or (without KeepGoing) every place up to
// the first stopping one.
func (ps *Places) settleLocked() {
	v := ps.V
	for ps.prefix < ps.Checks && (v.Judged[ps.prefix+1] || !ps.Owns(ps.prefix+1)) {
		ps.prefix++
	}
	if ps.prefix == ps.Checks || !ps.keep && v.Stop > 0 && ps.prefix >= v.Stop {
		ps.closeLocked()
	}
}

// fail ends the exploration with err (the first one wins).
func (ps *Places) fail(err error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.failure == nil && !ps.closed {
		ps.failure = err
	}
	ps.closeLocked()
}

func (ps *Places) closeLocked() {
	if !ps.closed {
		ps.closed = true
		close(ps.Finished)
	}
}

func (ps *Places) count() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.V.Judged)
}

// judge explores the places get hands out, in order, and reports each
// verdict to put; invalid is told of a draw rapid rejected.
func JudgePlace(w *world.World, t *testing.T, get func() int, put func(k int, sigs []string, err, cut string), invalid func(k int)) {
	next, over := 0, false
	explore.RunPlaces(generator(w, t), w.Opts.Checks, w.Opts.Seed, explore.Places{
		Skip: func(k int) bool {
			if !over && next < k {
				if next = get(); next == 0 {
					over = true
				}
			}
			return over || k != next
		},
		Invalid: func(k int) {
			invalid(k)
			over = true
		},
	}, func(k int, p *plan.Plan) error {
		if Judging != nil {
			Judging(k)
		}
		long := longOf(w)
		long.start(fmt.Sprintf("plan %d", k), "judging it against its fault-free runs", p)
		defer long.done()
		w.Phase = world.PhaseFind
		r, err := reference.RunRecalled(w, t, p) // the pass recalls what this process judged
		switch {
		case err != nil:
			put(k, nil, err.Error(), "")
		case len(r.Violated()) == 0:
			put(k, nil, "", world.CutNote(r.Verdicts))
		default:
			put(k, signatures(w, r.Violated()), "", world.CutNote(r.Verdicts))
		}
		return nil
	})
}

// judging, if set, is called as a worker (this process or a worker
// process) starts to judge a place: a test's hook.
var Judging func(place int)

// work is a worker process's exploration: it judges the places the parent
// hands it (one number a line on stdin, 0: none left), sends each verdict,
// and exits (the rest of the test is the parent's).
func work(w *world.World, t *testing.T, j, n int) {
	out := os.NewFile(workerFD, "ctrlsim-worker")
	enc := json.NewEncoder(out)
	send := func(m workerMsg) {
		if err := enc.Encode(m); err != nil {
			fmt.Fprintf(os.Stderr, "operatortest: worker %d/%d: the parent is gone: %v\n", j, n, err)
			os.Exit(3)
		}
	}
	h := hello(w, t)
	send(workerMsg{Hello: &h})
	in := bufio.NewScanner(os.Stdin)
	get := func() int {
		k := 0
		if in.Scan() {
			fmt.Sscanf(in.Text(), "%d", &k)
		}
		return k
	}
	if err := Preflight(w, t); err != nil {
		if k := get(); k > 0 {
			send(workerMsg{Place: k, Err: "preflight: " + err.Error()})
		}
	} else {
		JudgePlace(w, t, get, func(k int, sigs []string, err, cut string) { send(workerMsg{Place: k, Sigs: sigs, Err: err, Cut: cut}) },
			func(k int) { send(workerMsg{Place: k, Invalid: true}) })
	}
	send(workerMsg{Done: true})
	out.Close()
	os.Exit(0)
}

// verdicts are what the workers judged: each place's signatures (nil: it
// held). Stop is the first place that stops a pass without KeepGoing (a
// violation or a world that cannot run it; 0: none), Decided when that was
// known (every place before it judged).
type Verdicts struct {
	Sigs    map[int][]string
	cuts    map[int]string // the places whose plans were cut (cut.go)
	Judged  map[int]bool   // sigs' places and those the world could not run
	Stop    int
	decided time.Duration
}

// workerArgs are the worker's command line: the test, once, and the flags the
// parent was given (but those of output files and of the test's selection).
func workerArgs(test string) []string {
	args := []string{"-test.run=" + failure.RunPattern(test), "-test.count=1", "-test.timeout=0"}
	flag.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == "test.short" || f.Name == "test.v" && f.Value.String() != "false":
			args = append(args, "-"+f.Name+"="+f.Value.String())
		case strings.HasPrefix(f.Name, "test."):
		case f.Name == "ctrlsim.json" || f.Name == "ctrlsim.workers" || f.Name == "ctrlsim.plan":
		default:
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// tail keeps the last bytes a worker wrote (its stdout and stderr), for the
// line that says why it died.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 4096 {
		b.buf = b.buf[len(b.buf)-4096:]
	}
	return len(p), nil
}

func (b *tail) lastLine() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(b.buf)), "\n")
	for i := len(lines) - 1; i >= 0; i-- { // a test's failure first (file.go:line: ...)
		if l := strings.TrimSpace(lines[i]); strings.Contains(l, ".go:") {
			return l
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && l != "FAIL" && !strings.HasPrefix(l, "exit status") {
			return l
		}
	}
	return "(no output)"
}

// errUnreached: a worker never reached the exploration, or reached another
// one (its error says how): the test cannot be explored by worker processes.
var errUnreached = errors.New("a worker never reached the exploration")

// unreachedError is a worker's errUnreached, in words.
type unreachedError struct{ msg string }

func (e unreachedError) Error() string      { return e.msg }
func (unreachedError) Is(target error) bool { return target == errUnreached }

// errInvalidDraw: a worker met a draw rapid rejected; the places after it
// are numbered differently than a worker skipping it would number them.
var errInvalidDraw = errors.New("invalid draw")

// parallel explores t's plans with n workers (this process and n-1 worker
// processes) and returns their verdicts up to the first place that stops a
// sequential pass (all of them with KeepGoing).
func parallel(w *world.World, t *testing.T, n int, seen map[string]bool) (*Verdicts, error) {
	start := time.Now()
	test := t.Name()
	want := hello(w, t)
	ps := &Places{Checks: randomBudget(w), Owns: w.Opts.Shard.Owns, keep: w.Opts.KeepGoing, Next: 1, Finished: make(chan struct{}),
		V: &Verdicts{Sigs: map[int][]string{}, Judged: map[int]bool{}, cuts: map[int]string{}}, announced: maps.Clone(seen), known: maps.Clone(seen),
		offset: w.Opts.Checks - randomBudget(w)}
	ps.mu.Lock()
	ps.settleLocked() // a shard may own no place
	ps.mu.Unlock()
	owned := 0
	for k := 1; k <= randomBudget(w); k++ {
		if w.Opts.Shard.Owns(k) {
			owned++
		}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot re-run the test binary as workers: %v", err)
	}
	var procs []*exec.Cmd
	var greeted []chan struct{} // closed at a worker's hello, or at its end
	var unreached []error       // workers that never reached the exploration
	var unreachedMu sync.Mutex
	var ends sync.WaitGroup
	for j := 2; j <= n; j++ {
		r, wr, err := os.Pipe()
		if err != nil {
			ps.fail(err)
			break
		}
		cmd := exec.Command(self, workerArgs(test)...)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d/%d %s", WorkerEnv, j, n, test))
		out := &tail{}
		cmd.Stdout, cmd.Stderr = out, out
		cmd.ExtraFiles = []*os.File{wr} // fd 3 (workerFD)
		stdin, err := cmd.StdinPipe()
		if err == nil {
			err = cmd.Start()
		}
		wr.Close()
		if err != nil {
			r.Close()
			ps.fail(fmt.Errorf("cannot start worker %d/%d (%s): %v", j, n, self, err))
			break
		}
		procs = append(procs, cmd)
		greet := make(chan struct{})
		greeted = append(greeted, greet)
		ends.Add(1)
		go func(j int) { // reads the worker's verdicts and hands it places
			defer ends.Done()
			hello, done := false, false
			greetOnce := sync.OnceFunc(func() { close(greet) })
			defer greetOnce()
			give := func() {
				k := ps.Give()
				ps.handed(j, k)
				fmt.Fprintf(stdin, "%d\n", k)
			}
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 1<<16), 1<<24)
			for sc.Scan() {
				var m workerMsg
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					continue
				}
				switch {
				case m.Hello != nil:
					if *m.Hello != want {
						ps.fail(unreachedError{fmt.Sprintf("worker %d/%d explored another exploration than %s's (%+v, want %+v): the test's options depend on something its worker processes do not share; set Options.Workers or -ctrlsim.workers to 1", j, n, test, *m.Hello, want)})
					}
					hello = true
					greetOnce()
					for range workerWindow {
						give()
					}
				case m.Done:
					done = true
				case m.Invalid:
					ps.mu.Lock()
					ps.invalid = true
					ps.mu.Unlock()
					ps.fail(errInvalidDraw)
				default:
					ps.judgedBy(j, m.Place)
					ps.Judged(m.Place, m.Sigs, m.Err, m.Cut)
					ps.announce(t, m.Place, m.Sigs)
					give()
				}
			}
			r.Close()
			stdin.Close()
			exit := cmd.Wait()
			switch {
			case !hello:
				unreachedMu.Lock()
				unreached = append(unreached, unreachedError{fmt.Sprintf("worker %d/%d never reached the exploration of %s (re-run as %s -test.run='%s'): a test name -test.run cannot select again, an exploration called from another test, or a crash before it (%v: %s); set Options.Workers or -ctrlsim.workers to 1 to explore in the test's process",
					j, n, test, self, failure.RunPattern(test), exit, out.lastLine())})
				unreachedMu.Unlock()
				ps.fail(errUnreached)
			case !done:
				ps.fail(fmt.Errorf("worker %d/%d of %s died before its last verdict (%v): %s", j, n, test, exit, out.lastLine()))
			}
		}(j)
	}
	progress := make(chan struct{})
	every := cmp.Or(max(ProgressEvery, 0), 5*time.Second)
	go func() { // streams progress while the workers run
		tick, stop := progressTicker(every)
		defer stop()
		for {
			select {
			case <-progress:
				return
			case <-tick:
				k := ps.count()
				now := progressNow()
				LogProgress(t, "operatortest: %d workers: %d of %d plans judged (%.0f plans/s)", n, k, owned, float64(k)/now.Sub(start).Seconds())
				if ProgressEvery <= 0 {
					continue
				}
				// This process's own plan is named by the exploration's
				// watcher (watchLong); the worker processes' here.
				for _, l := range ps.longLines(now) {
					LogProgress(t, "%s", l)
				}
			}
		}
	}()
	// This process is worker 1.
	JudgePlace(w, t, ps.Give, func(k int, sigs []string, err, cut string) {
		ps.Judged(k, sigs, err, cut)
		ps.announce(t, k, sigs)
	}, func(int) {
		ps.mu.Lock()
		ps.invalid = true
		ps.mu.Unlock()
		ps.fail(errInvalidDraw)
	})
	<-ps.Finished
	ps.mu.Lock()
	ps.V.decided = time.Since(start)
	failure, invalid := ps.failure, ps.invalid
	ps.mu.Unlock()
	for i, cmd := range procs {
		// Decided: the rest is not needed, once the worker has shown it
		// reaches the exploration (else the test cannot use workers: it
		// fails, though this process judged every place itself).
		<-greeted[i]
		_ = cmd.Process.Kill()
	}
	ends.Wait()
	close(progress)
	if len(unreached) > 0 {
		return nil, unreached[0]
	}
	switch {
	case invalid:
		return nil, errInvalidDraw
	case failure != nil:
		return nil, failure
	}
	return ps.V, nil
}
