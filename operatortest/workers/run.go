package workers

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
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// workerWindow is how many places a worker holds: handed out at its
	// hello, one more at each verdict. This process simulates on one P
	// (world's cores.go), so the goroutine that reads a worker's pipe waits for the
	// runtime's network poller, which a busy P leaves to sysmon's 10 ms
	// round: a worker given one place at a time waited that long between
	// plans of a few milliseconds.
	workerWindow = 4
	// WorkerEnv marks a worker process: "j/n <test name>".
	WorkerEnv = "CTRLSIM_WORKER"
	// workerFD is the worker's end of the pipe its verdicts go to.
	workerFD = 3
)

// workerMsg is one line a worker sends: first a hello naming the exploration
// it runs, then one verdict per place it judged, then done.
type workerMsg struct {
	Hello *Hello `json:"hello,omitempty"`
	// Place is a judged place (from 1): Sigs the signatures of what its plan
	// violates (none: it held), Err a world that could not run it, Invalid a
	// draw rapid rejected. Each verdict asks for another place.
	Place   int      `json:"place,omitempty"`
	Sigs    []string `json:"sigs,omitempty"`
	Err     string   `json:"err,omitempty"`
	Invalid bool     `json:"invalid,omitempty"`
	Cut     string   `json:"cut,omitempty"` // the place's plan was cut at the work bound (search's cut.go)
	Done    bool     `json:"done,omitempty"`
	// Excused, with a place's verdict: the excuses the worker's verdicts
	// named since its last message (world.World's Excused counts them); a
	// worker is killed once the exploration is decided, so nothing waits
	// for its last message.
	Excused map[string]int `json:"excused,omitempty"`
}

// Hello is what identifies an exploration: a worker whose test explores
// another one (its options depend on something the parent does not pass)
// fails the parent's test.
type Hello struct {
	Test      string `json:"test"`
	Seed      uint64 `json:"seed"`
	Checks    int    `json:"checks"`
	Shard     string `json:"shard"`
	KeepGoing bool   `json:"keepgoing"`
}

// explorations counts the explorations each test has started: only a test's
// first one can be re-run by worker processes (they run the test from its
// start and explore at its first exploration).
var explorations = struct {
	sync.Mutex
	n map[*testing.T]int
}{n: map[*testing.T]int{}}

// NextExploration counts an exploration of t: its number, from 1.
func NextExploration(t *testing.T) int {
	explorations.Lock()
	defer explorations.Unlock()
	explorations.n[t]++
	return explorations.n[t]
}

// Role is this process's role for t's exploration: j of n when it is
// the worker process the parent started for t (j from 2: the parent is
// worker 1), else 0.
func Role(t *testing.T, call int) (j, n int) {
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

// A Judge judges the places get hands out, in order, and reports each
// verdict to put; invalid is told of a draw rapid rejected (search's
// JudgePlace).
type Judge func(get func() int, put func(k int, sigs []string, err, cut string), invalid func(k int))

// Serve is a worker process's exploration, worker j of n: it says hello
// h, judges the places the parent hands it (one number a line on stdin, 0:
// none left) once preflight has passed, sends each verdict, and exits (the
// rest of the test is the parent's).
func Serve(h Hello, j, n int, preflight func() error, judge Judge, excused func() map[string]int) {
	out := os.NewFile(workerFD, "ctrlsim-worker")
	enc := json.NewEncoder(out)
	send := func(m workerMsg) {
		if err := enc.Encode(m); err != nil {
			fmt.Fprintf(os.Stderr, "operatortest: worker %d/%d: the parent is gone: %v\n", j, n, err)
			os.Exit(3)
		}
	}
	send(workerMsg{Hello: &h})
	in := bufio.NewScanner(os.Stdin)
	get := func() int {
		k := 0
		if in.Scan() {
			fmt.Sscanf(in.Text(), "%d", &k)
		}
		return k
	}
	if err := preflight(); err != nil {
		if k := get(); k > 0 {
			send(workerMsg{Place: k, Err: "preflight: " + err.Error()})
		}
	} else {
		sent := map[string]int{}
		judge(get, func(k int, sigs []string, err, cut string) {
			m := workerMsg{Place: k, Sigs: sigs, Err: err, Cut: cut}
			for name, n := range excused() { // lint:order-independent a difference per name
				if n > sent[name] {
					if m.Excused == nil {
						m.Excused = map[string]int{}
					}
					m.Excused[name], sent[name] = n-sent[name], n
				}
			}
			send(m)
		},
			func(k int) { send(workerMsg{Place: k, Invalid: true}) })
	}
	send(workerMsg{Done: true})
	out.Close()
	os.Exit(0)
}

// Args are a worker's command line: the test, once (pattern, its -test.run
// pattern: failure.RunPattern), and the flags the parent was given (but
// those of output files and of the test's selection).
func Args(pattern string) []string {
	args := []string{"-test.run=" + pattern, "-test.count=1", "-test.timeout=0"}
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

// ErrUnreached: a worker never reached the exploration, or reached another
// one (its error says how): the test cannot be explored by worker processes.
var ErrUnreached = errors.New("a worker never reached the exploration")

// unreachedError is a worker's ErrUnreached, in words.
type unreachedError struct{ msg string }

func (e unreachedError) Error() string      { return e.msg }
func (unreachedError) Is(target error) bool { return target == ErrUnreached }

// ErrInvalidDraw: a worker met a draw rapid rejected; the places after it
// are numbered differently than a worker skipping it would number them.
var ErrInvalidDraw = errors.New("invalid draw")

// An Exploration is what Run explores: the places of a random pass, who
// judges them and how far they have got is said.
type Exploration struct {
	// Test is the test's name, Pattern its -test.run pattern
	// (failure.RunPattern), Hello what identifies the exploration.
	Test, Pattern string
	Hello         Hello
	// Workers is how many workers judge the places: this process and
	// Workers-1 worker processes.
	Workers int
	// Checks are the random pass's places (its budget less the sweep's),
	// Place the plan number of its k-th wherever a line names it, as the
	// report does (nil: k; the sweep's plans take turns with the random
	// ones), Owns those of this shard; Keep: KeepGoing, every place is
	// judged; Seen the signatures known before the random pass.
	Checks int
	Place  func(k int) int
	Owns   func(k int) bool
	Keep   bool
	Seen   map[string]bool
	// Judge judges places in this process (worker 1).
	Judge Judge
	// Progress says how far the workers have got.
	Progress Progress
}

// Progress is how an exploration says how far it has got (search's
// ProgressEvery, LogProgress and the watcher's clock and ticker).
type Progress struct {
	Every  time.Duration
	Log    func(format string, args ...any)
	Now    func() time.Time
	Ticker func(every time.Duration) (<-chan time.Time, func())
}

func (p Progress) now() time.Time { return p.Now() }

// Run explores e's places with e.Workers workers (this process and
// Workers-1 worker processes) and returns their verdicts up to the first
// place that stops a sequential pass (all of them with KeepGoing).
func Run(e Exploration) (*Verdicts, error) {
	start := time.Now()
	test, n := e.Test, e.Workers
	want := e.Hello
	ps := &Places{Checks: e.Checks, Owns: e.Owns, keep: e.Keep, Next: 1, Finished: make(chan struct{}),
		V: &Verdicts{Sigs: map[int][]string{}, Judged: map[int]bool{}, Cuts: map[int]string{}, Excused: map[string]int{}}, announced: maps.Clone(e.Seen), known: maps.Clone(e.Seen),
		place: e.Place, progress: e.Progress}
	ps.mu.Lock()
	ps.settleLocked() // a shard may own no place
	ps.mu.Unlock()
	owned := 0
	for k := 1; k <= e.Checks; k++ {
		if e.Owns(k) {
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
		cmd := exec.Command(self, Args(e.Pattern)...)
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
					ps.fail(ErrInvalidDraw)
				default:
					ps.mu.Lock()
					for name, k := range m.Excused { // lint:order-independent a sum
						ps.V.Excused[name] += k
					}
					ps.mu.Unlock()
					ps.judgedBy(j, m.Place)
					ps.Judged(m.Place, m.Sigs, m.Err, m.Cut)
					ps.announce(m.Place, m.Sigs)
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
					j, n, test, self, e.Pattern, exit, out.lastLine())})
				unreachedMu.Unlock()
				ps.fail(ErrUnreached)
			case !done:
				ps.fail(fmt.Errorf("worker %d/%d of %s died before its last verdict (%v): %s", j, n, test, exit, out.lastLine()))
			}
		}(j)
	}
	progress := make(chan struct{})
	every := cmp.Or(max(e.Progress.Every, 0), 5*time.Second)
	go func() { // streams progress while the workers run
		tick, stop := e.Progress.Ticker(every)
		defer stop()
		for {
			select {
			case <-progress:
				return
			case <-tick:
				k := ps.count()
				now := e.Progress.now()
				e.Progress.Log("operatortest: %d workers: %d of %d plans judged (%.0f plans/s)", n, k, owned, float64(k)/now.Sub(start).Seconds())
				if e.Progress.Every <= 0 {
					continue
				}
				// This process's own plan is named by the exploration's
				// watcher (watchLong); the worker processes' here.
				for _, l := range ps.longLines(now) {
					e.Progress.Log("%s", l)
				}
			}
		}
	}()
	// This process is worker 1.
	e.Judge(ps.Give, func(k int, sigs []string, err, cut string) {
		ps.Judged(k, sigs, err, cut)
		ps.announce(k, sigs)
	}, func(int) {
		ps.mu.Lock()
		ps.invalid = true
		ps.mu.Unlock()
		ps.fail(ErrInvalidDraw)
	})
	<-ps.Finished
	ps.mu.Lock()
	ps.V.Decided = time.Since(start)
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
		return nil, ErrInvalidDraw
	case failure != nil:
		return nil, failure
	}
	return ps.V, nil
}
