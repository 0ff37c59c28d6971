package operatortest

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Parallel exploration (issue 31). A plan's run seeds process-global
// randomness (wallclock.SeedRandom: crypto/rand, math/rand, util/rand, uuid),
// so two plans cannot run in one process at once. As Go's fuzzing does, the
// test binary re-executes itself: Options.Workers processes, each running the
// same test (-test.run=<its name>) with CTRLSIM_WORKER set, so that the
// test's first exploration in the worker explores worker j's share of the
// plans (the places m of the sequence, among those this shard owns, with m%n
// = j-1) and streams each place's verdict to the parent on a pipe. A worker
// does not draw the plans of the places it does not own: rapid seeds each
// check from the explorer's seed and the check's index only (a place whose
// draw rapid rejects renumbers the places after it: then every place is
// drawn in the parent, with a log line).
//
// The parent collects the verdicts: the first failing plan is the lowest
// place that violates (or that the world cannot run), once every place
// before it has been judged; the workers are then stopped. It then runs the
// sequential pass itself, recalling the workers' verdicts rather than running
// the plans again (they are functions of their plans): the same place fails
// first, is shrunk by the same runs, and gives the same minimal plan and
// trace hash as a run with one worker. With KeepGoing the workers judge the
// whole budget and every pass recalls their verdicts: a place whose
// signatures are all seen is skipped.

var flagWorkers = flag.Int("ctrlsim.workers", 0, "operatortest: worker processes exploring plans in parallel (0: Options.Workers, default GOMAXPROCS; 1: in the test's process)")

const (
	// workerEnv marks a worker process: "j/n <test name>".
	workerEnv = "CTRLSIM_WORKER"
	// workerFD is the worker's end of the pipe its verdicts go to.
	workerFD = 3
)

// workerMsg is one line a worker sends: first a hello naming the exploration
// it runs, then one verdict per place it judged, then done.
type workerMsg struct {
	Hello *workerHello `json:"hello,omitempty"`
	// Place is a judged place (from 1): Sigs the signatures of what its plan
	// violates (none: it held), Err a world that could not run it, Invalid a
	// draw rapid rejected.
	Place   int      `json:"place,omitempty"`
	Sigs    []string `json:"sigs,omitempty"`
	Err     string   `json:"err,omitempty"`
	Invalid bool     `json:"invalid,omitempty"`
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

func (w *world) hello(t *testing.T) workerHello {
	return workerHello{Test: t.Name(), Seed: w.o.effectiveSeed(), Checks: w.o.Checks, Shard: w.o.Shard.String(), KeepGoing: w.o.KeepGoing}
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
// the worker the parent started for t, else 0.
func workerRole(t *testing.T, call int) (j, n int) {
	v, ok := os.LookupEnv(workerEnv)
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

// workers is how many worker processes explore t's plans (1: this process
// explores them) and, when fewer than asked, why (logged).
func (w *world) workers(t *testing.T, call int) (int, string, error) {
	n, explicit := w.o.Workers, w.o.Workers > 0
	if *flagWorkers > 0 {
		n = *flagWorkers
	}
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	switch {
	case n <= 1:
		return 1, "", nil
	case os.Getenv(workerEnv) != "":
		return 1, "", nil // a worker's other explorations run in it
	case *flagPlan != "":
		return 1, "", nil
	case call > 1 && explicit:
		return 0, "", fmt.Errorf("Options.Workers is %d on exploration %d of %s: worker processes re-run the test from its start and explore at its first exploration only; give each exploration its own subtest (t.Run)", w.o.Workers, call, t.Name())
	case call > 1:
		return 1, fmt.Sprintf("operatortest: exploration %d of %s runs in this process (worker processes explore a test's first exploration only; give each its own subtest to use every core)", call, t.Name()), nil
	}
	return n, "", nil
}

// ownedBy is the worker (from 1, of n) that judges place k of the sequence,
// among the places shard sh owns.
func ownedBy(sh Shard, n, k int) int {
	m := k - 1 // the place's ordinal among the shard's
	if sh.Count > 1 {
		m = (k - 1) / sh.Count
	}
	return m%n + 1
}

// work is the worker process's exploration: it judges its places in order,
// sends each verdict, and exits (the parent has what it needs; the rest of
// the test is the parent's).
func (w *world) work(t *testing.T, j, n int) {
	out := os.NewFile(workerFD, "ctrlsim-worker")
	enc := json.NewEncoder(out)
	send := func(m workerMsg) {
		if err := enc.Encode(m); err != nil {
			fmt.Fprintf(os.Stderr, "operatortest: worker %d/%d: the parent is gone: %v\n", j, n, err)
			os.Exit(3)
		}
	}
	h := w.hello(t)
	send(workerMsg{Hello: &h})
	if err := w.preflight(t); err != nil {
		send(workerMsg{Place: 1, Err: err.Error()})
		send(workerMsg{Done: true})
		os.Exit(0)
	}
	sp := w.space
	sp.Targets = w.targets(t)
	stopped := false
	explore.RunPlaces(plan.Generator(sp), w.o.Checks, w.o.Seed, explore.Places{
		Skip: func(k int) bool { return stopped || !w.o.Shard.owns(k) || ownedBy(w.o.Shard, n, k) != j },
		Invalid: func(k int) {
			send(workerMsg{Place: k, Invalid: true})
			stopped = true
		},
	}, func(k int, p *plan.Plan) error {
		r, err := w.run(t, p)
		if err != nil {
			send(workerMsg{Place: k, Err: err.Error()})
			stopped = true
			return nil
		}
		vs := r.violated()
		if len(vs) == 0 {
			send(workerMsg{Place: k})
			return nil
		}
		send(workerMsg{Place: k, Sigs: w.signatures(vs)})
		stopped = !w.o.KeepGoing
		return nil
	})
	send(workerMsg{Done: true})
	out.Close()
	os.Exit(0)
}

// verdicts are what the workers judged: each place's signatures (nil: it
// held). Stop is the first place that stops a pass without KeepGoing (a
// violation or a world that cannot run it; 0: none), Decided when that was
// known (every place before it judged).
type verdicts struct {
	sigs    map[int][]string
	judged  map[int]bool // sigs' places and those the world could not run
	stop    int
	decided time.Duration
}

// held reports whether the workers judged place k and it held.
func (v *verdicts) held(k int) bool {
	if v == nil {
		return false
	}
	s, ok := v.sigs[k]
	return ok && s == nil
}

// workerArgs are the worker's command line: the test, once, and the flags the
// parent was given (but those of output files and of the test's selection).
func workerArgs(test string) []string {
	args := []string{"-test.run=" + RunPattern(test), "-test.count=1", "-test.timeout=0"}
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

type workerEvent struct {
	j    int
	msg  *workerMsg
	exit error // the worker's end: its pipe closed and its process waited for
}

// errInvalidDraw: a worker met a draw rapid rejected; the places after it
// are numbered differently than a worker skipping it would number them.
var errInvalidDraw = errors.New("invalid draw")

// parallel explores t's plans with n worker processes and returns their
// verdicts up to the first place that stops a sequential pass (all of them
// with KeepGoing).
func (w *world) parallel(t *testing.T, n int) (*verdicts, error) {
	start := time.Now()
	test := t.Name()
	want := w.hello(t)
	events := make(chan workerEvent, 64)
	type proc struct {
		cmd   *exec.Cmd
		out   *tail
		hello bool
		done  bool
		ended bool
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot re-run the test binary as workers: %v", err)
	}
	procs := make([]*proc, n+1)
	for j := 1; j <= n; j++ {
		r, wr, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(self, workerArgs(test)...)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d/%d %s", workerEnv, j, n, test))
		out := &tail{}
		cmd.Stdout, cmd.Stderr = out, out
		cmd.ExtraFiles = []*os.File{wr} // fd 3 (workerFD)
		if err := cmd.Start(); err != nil {
			r.Close()
			wr.Close()
			return nil, fmt.Errorf("cannot start worker %d/%d (%s): %v", j, n, self, err)
		}
		wr.Close()
		procs[j] = &proc{cmd: cmd, out: out}
		go func(j int) {
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 1<<16), 1<<24)
			for sc.Scan() {
				var m workerMsg
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					continue
				}
				events <- workerEvent{j: j, msg: &m}
			}
			r.Close()
			events <- workerEvent{j: j, exit: cmd.Wait()}
		}(j)
	}
	v := &verdicts{sigs: map[int][]string{}, judged: map[int]bool{}}
	var failure error
	ended, killed := 0, false
	stop := func() {
		if killed {
			return
		}
		killed = true
		for _, p := range procs[1:] {
			if !p.ended {
				_ = p.cmd.Process.Kill()
			}
		}
	}
	fail := func(err error) {
		if failure == nil {
			failure = err
		}
		stop()
	}
	// prefix: every place up to it that this shard owns is judged.
	prefix := 0
	owned := 0
	for k := 1; k <= w.o.Checks; k++ {
		if w.o.Shard.owns(k) {
			owned++
		}
	}
	advance := func() {
		for prefix < w.o.Checks {
			k := prefix + 1
			if !v.judged[k] && w.o.Shard.owns(k) {
				return
			}
			prefix = k
		}
	}
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for ended < n {
		select {
		case <-tick.C:
			if !killed {
				t.Logf("operatortest: %d workers: %d of %d plans judged (%.0f plans/s)", n, len(v.judged), owned, float64(len(v.judged))/time.Since(start).Seconds())
			}
			continue
		case e := <-events:
			p := procs[e.j]
			if e.msg == nil {
				p.ended = true
				ended++
				if killed || failure != nil {
					continue
				}
				switch {
				case !p.hello:
					fail(fmt.Errorf("worker %d/%d never reached the exploration of %s (re-run as %s -test.run='%s'): a test name -test.run cannot select again (a subtest's duplicate or rewritten name), an exploration called from another test, or a crash before it (%v: %s); set Options.Workers or -ctrlsim.workers to 1 to explore in the test's process",
						e.j, n, test, self, RunPattern(test), e.exit, p.out.lastLine()))
				case !p.done:
					fail(fmt.Errorf("worker %d/%d of %s died before its last verdict (%v): %s", e.j, n, test, e.exit, p.out.lastLine()))
				}
				continue
			}
			m := e.msg
			switch {
			case m.Hello != nil:
				if *m.Hello != want {
					fail(fmt.Errorf("worker %d/%d explored another exploration than %s's (%+v, want %+v): the test's options depend on something its worker processes do not share; set Options.Workers or -ctrlsim.workers to 1", e.j, n, test, *m.Hello, want))
				}
				p.hello = true
				continue
			case m.Done:
				p.done = true
				continue
			case m.Invalid:
				fail(errInvalidDraw)
				continue
			}
			v.judged[m.Place] = true
			if m.Err != "" {
				if v.stop == 0 || m.Place < v.stop {
					v.stop = m.Place // the pass runs it again and meets the error itself
				}
			} else {
				v.sigs[m.Place] = m.Sigs
				if len(m.Sigs) > 0 && !w.o.KeepGoing && (v.stop == 0 || m.Place < v.stop) {
					v.stop = m.Place
				}
			}
			advance()
			if !w.o.KeepGoing && v.stop > 0 && prefix >= v.stop && failure == nil {
				v.decided = time.Since(start)
				stop()
			}
		}
	}
	if failure != nil {
		return nil, failure
	}
	if v.decided == 0 {
		v.decided = time.Since(start)
		if !w.o.KeepGoing && prefix < w.o.Checks && v.stop == 0 {
			return nil, fmt.Errorf("the workers of %s judged %d of %d places and ended: place %d was never judged", test, len(v.judged), owned, prefix+1)
		}
	}
	return v, nil
}
