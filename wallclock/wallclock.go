package wallclock

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Run runs f in a testing/synctest bubble, with a Wall for the world f builds
// (cluster.Options.Wall), the process on one P while it runs (oneproc.go). When the bubble's clock leaves the virtual clock (code
// under test waited on a real timer), the test gets an error naming both times.
func Run(t *testing.T, f func(t *testing.T, wall *cluster.Wall)) {
	t.Helper()
	defer onOneP()() // oneproc.go
	// abandoned names the goroutines left in the bubble once the world has
	// closed (census.go); bubbleFailed is whether the bubble's test failed.
	var left []goroutine
	var bubbleFailed bool
	defer func() {
		if len(left) == 0 {
			return
		}
		// The goroutines named stay blocked: the bubble's deadlock is
		// this run's end (its clock stops once its main goroutine has
		// returned, so that they never run again).
		if r := recover(); r != nil && !strings.HasPrefix(fmt.Sprint(r), "deadlock: ") {
			panic(r)
		}
		if line, _ := abandonedLine(unnamed(t, left)); line != "" {
			Report(t, line)
		}
		if bubbleFailed {
			t.FailNow() // as synctest.Test does for a failed bubble
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		// The first cleanup registered runs last, once the bubble's other
		// cleanups have: what is still in the bubble then outlives it.
		t.Cleanup(func() {
			synctest.Wait()
			_, left = bubbleGoroutines()
			bubbleFailed = t.Failed()
		})
		serveKubeconfig(t) // kubeconfig.go
		var expected time.Time
		wall := &cluster.Wall{
			Now: func() time.Time {
				expected = time.Now()
				return expected
			},
			Sleep: func(d time.Duration, wake <-chan struct{}) time.Duration {
				now := time.Now()
				if !now.Equal(expected) {
					t.Errorf("wallclock: the bubble's clock is at %v where virtual time is %v: code under test waited on the wall clock (time.Sleep, time.After, a time.Timer) instead of the virtual one", now, expected)
					expected = now // report once per drift
				}
				if wake == nil {
					time.Sleep(d)
				} else {
					tm := time.NewTimer(d)
					select {
					case <-tm.C:
					case <-wake:
						tm.Stop()
					}
				}
				slept := time.Since(now)
				expected = expected.Add(slept)
				return slept
			},
			Settle: synctest.Wait,
			Cut:    cutWhy,
		}
		f(t, wall)
	})
}

// Report says line, which names goroutines of the code under test that a
// world abandoned at its close, in t's output (a variable for the tests).
// Run names each site (where goroutines were started and wait) once per
// test: a world's line names the goroutines of the sites no earlier world
// of the test left, and a world that left none new says nothing.
var Report = func(t *testing.T, line string) { t.Log(line) }

// named are the sites named, by test.
var named sync.Map // test name + "\x00" + site -> true

// unnamed are the goroutines of gs at sites not yet named in t's test,
// which are named from now on.
func unnamed(t *testing.T, gs []goroutine) []goroutine {
	var out []goroutine
	for _, g := range gs {
		if _, seen := named.LoadOrStore(t.Name()+"\x00"+g.site(), true); !seen {
			out = append(out, g)
			continue
		}
		for _, o := range out { // another of a site first met in this world
			if o.site() == g.site() {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// cutting is why the runs are cut now ("" or nil: they are not): a bound
// the harness keeps outside the bubble (CutRuns).
var cutting atomic.Pointer[string]

// CutRuns cuts the world running in a bubble now, at its next step, and
// every world run until ResumeRuns (the runs of one plan's judging), for
// why: a bound of wall time, which only code outside the bubble can read
// (operatortest/search's plan timeout). It may be called from any
// goroutine.
func CutRuns(why string) { cutting.Store(&why) }

// ResumeRuns lets worlds run to their end again.
func ResumeRuns() { cutting.Store(nil) }

func cutWhy() string {
	if p := cutting.Load(); p != nil {
		return *p
	}
	return ""
}

// CheckDeterminism is cluster.CheckDeterminism with each of the two runs in a
// bubble of its own: runs whose controllers read the wall clock are compared
// with the same wall-clock readings.
func CheckDeterminism(t *testing.T, p *plan.Plan, opts func() cluster.Options, run func(c *cluster.Cluster)) error {
	t.Helper()
	var hashes [2]string
	var traces [2][]string
	for i := range hashes {
		Run(t, func(t *testing.T, wall *cluster.Wall) {
			SeedRandom(t, p.Seed) // random.go
			o := opts()
			o.Wall = wall
			c, err := cluster.New(p, o)
			if err != nil {
				t.Fatal(err)
			}
			run(c)
			c.Close()
			hashes[i] = c.Trace.Hash()
			for _, s := range c.Trace.Steps() {
				traces[i] = append(traces[i], s.Canonical())
			}
		})
	}
	if hashes[0] == hashes[1] {
		return nil
	}
	for i := 0; i < min(len(traces[0]), len(traces[1])); i++ {
		if traces[0][i] != traces[1][i] {
			return fmt.Errorf("plan is not deterministic: traces diverge at step %d:\n  first:  %s\n  second: %s", i, traces[0][i], traces[1][i])
		}
	}
	return fmt.Errorf("plan is not deterministic: hashes differ (%s vs %s)", hashes[0], hashes[1])
}
