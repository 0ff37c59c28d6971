package search

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// Long plans and findings as found. Progress lines between plans
// say nothing while one plan or shrink candidate runs for minutes: a
// watcher (watchLong) wakes every ProgressEvery and, once what this process
// runs has run longer than two periods, names it and what it is doing (the
// plan as its text reads, seed objects by name). And a KeepGoing
// exploration prints each distinct finding the moment it is first judged,
// before it is shrunk (foundLine).

// longRun is what this process's exploration of one world runs now.
type longRun struct {
	mu    sync.Mutex
	what  string // "plan 17", "shrink candidate 412 of plan 17's violation"; "": none
	doing string // what it does: "judging it", "shrinking"
	p     *plan.Plan
	names []string // the seed objects' names, for p's text
	since time.Time
	// bound is Options.PlanTimeout: past it, a timer (wall time, outside
	// the bubble) cuts the runs of what runs (wallclock.CutRuns) until
	// done, and says so on t (nil: a worker's record, not said).
	bound time.Duration
	timer *time.Timer
	t     *testing.T
}

// hangExit ends the test binary, saying line, when a plan cut at its bound
// still has not ended a bound later: no goroutine can end the world's (its
// kernel waits in the bubble), and go test's -timeout would name nothing.
func hangExit(line string) {
	fmt.Fprintln(os.Stderr, line)
	os.Exit(1)
}

var longRuns sync.Map // *world.World -> *longRun, while an exploration of it watches (watchWorld)

// longOf is what w's exploration runs, for its watcher; with no exploration
// of w watching (a worker or shrinking process, a test's direct call), a
// record no one reads.
func longOf(w *world.World) *longRun {
	if l, ok := longRuns.Load(w); ok {
		return l.(*longRun)
	}
	return &longRun{bound: w.Opts.PlanTimeout}
}

// watchWorld starts the watcher of w's exploration (watchLong); stop ends
// it and forgets w.
func watchWorld(t *testing.T, w *world.World) (stop func()) {
	l := &longRun{names: failure.SeedNames(w), bound: w.Opts.PlanTimeout, t: t}
	longRuns.Store(w, l)
	end := watchLong(t, func(now time.Time) []string {
		if s := l.line(now); s != "" {
			return []string{s}
		}
		return nil
	})
	return func() {
		end()
		longRuns.Delete(w)
	}
}

// start marks p, named what, as running from now, doing doing.
func (l *longRun) start(what, doing string, p *plan.Plan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.what, l.doing, l.p, l.since = what, doing, p, progressNow()
	if l.bound > 0 {
		l.timer = time.AfterFunc(l.bound, func() { l.cut(what, p) })
	}
}

// cut cuts the runs of what, the plan p, which has run past the bound: each
// run of its judging stops at its next step, is not judged, and counts
// among the plans cut at the work bound (cut.go), its note naming the bound.
func (l *longRun) cut(what string, p *plan.Plan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.what != what || l.p != p {
		return // done meanwhile
	}
	wallclock.CutRuns(fmt.Sprintf("the wall-clock bound of %s (Options.PlanTimeout): %s ran past it", l.bound, what))
	// A run cut stops at its next step; one that cannot step (its kernel
	// waits for goroutines that never block durably, in a step or in its
	// close) is named with what keeps it, and the binary ends, a bound
	// later: never go test's -timeout, naming nothing of the world.
	l.timer = time.AfterFunc(l.bound, func() { l.hang(what, p) })
	if l.t != nil {
		LogProgress(l.t, "operatortest: %s ran past the wall-clock bound of %s (Options.PlanTimeout): cut, not judged (a plan: counted among the cut plans): %s",
			what, l.bound, oneLine(failure.PlanText(p, l.names), 240))
	}
}

// hang ends the test binary: what, cut a bound ago, has not ended.
func (l *longRun) hang(what string, p *plan.Plan) {
	l.mu.Lock()
	still := l.what == what && l.p == p
	l.mu.Unlock()
	if !still {
		return
	}
	stuck := wallclock.Stuck()
	if stuck == "" {
		stuck = "no goroutine of a world blocked outside it: the kernel itself runs on"
	}
	hangExit(fmt.Sprintf("operatortest: %s did not end %s after it was cut at the wall-clock bound (Options.PlanTimeout): its world cannot step or close, waiting for: %s. "+
		"Code under test must block only on what the world gives (its clients, queues, contexts, channels made in the run), not on a mutex held for ever or a channel made outside the run; plan: %s",
		what, l.bound, stuck, oneLine(failure.PlanText(p, l.names), 240)))
}

// done marks nothing running.
func (l *longRun) done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.what, l.p = "", nil
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
		wallclock.ResumeRuns()
	}
}

// line is the progress line naming what runs, if it has run longer than two
// progress periods by now ("" otherwise).
func (l *longRun) line(now time.Time) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	took := now.Sub(l.since)
	if l.what == "" || took <= 2*ProgressEvery {
		return ""
	}
	return fmt.Sprintf("operatortest: %s has run for %s, %s: %s", l.what, took.Round(time.Second), l.doing, oneLine(failure.PlanText(l.p, l.names), 240))
}

// oneLine is text's lines joined by "; ", cut at max bytes.
func oneLine(text string, max int) string {
	s := strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "; ")
	if len(s) > max {
		s = s[:max] + " ..."
	}
	return s
}

// progressNow and progressTicker are the wall clock and the ticker of the
// watcher (tests' hooks: a test ticks by hand on a clock of its own).
var (
	progressNow    = time.Now
	progressTicker = func(every time.Duration) (<-chan time.Time, func()) {
		tk := time.NewTicker(every)
		return tk.C, tk.Stop
	}
)

// watchLong logs l's line at every tick of a ProgressEvery ticker until
// stop, which returns once the watcher has (before the test may end). With
// ProgressEvery 0 (every plan logs its line) there is no watcher.
func watchLong(t *testing.T, lines func(now time.Time) []string) (stop func()) {
	if ProgressEvery <= 0 {
		return func() {}
	}
	tick, stopTick := progressTicker(ProgressEvery)
	quit, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		for {
			select {
			case <-quit:
				return
			case <-tick:
				for _, s := range lines(progressNow()) {
					LogProgress(t, "%s", s)
				}
			}
		}
	}()
	return func() {
		stopTick()
		close(quit)
		<-over
	}
}

// foundLine is the line a KeepGoing exploration prints when it first judges
// a distinct violation, sig, at plan place: its signature, the plan's place
// and its verdict in one line.
func foundLine(w *world.World, sig string, place int, vs []check.Verdict) string {
	verdict := ""
	for _, v := range vs {
		if signature(w, v) == sig {
			verdict = fmt.Sprintf("%s at %v: %s", v.Property, v.At, oneLine(v.Detail, 240))
			break
		}
	}
	return fmt.Sprintf("operatortest: found %s at plan %d (shrinking it next): %s", sig, place, verdict)
}
