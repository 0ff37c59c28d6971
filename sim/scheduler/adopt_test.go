package scheduler_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// goroutines runs a plan whose task starts three goroutines with plain `go`
// statements, each of which calls into the simulator (a yield, then sleeps of
// the virtual clock and of the bubble) and logs; it returns the log and the
// task names the scheduler gave them.
func goroutines(t *testing.T, seed uint64) string {
	var out string
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(seed)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		start := clk.Now()
		var mu sync.Mutex // the goroutines' code before their first call runs alongside their parent's
		var log []string
		add := func(line string) { mu.Lock(); log = append(log, line); mu.Unlock() }
		s.Go("p", "runnable", func() {
			for _, name := range []string{"a", "b", "c"} {
				go func() {
					s.Join("p", false) // its first call: it becomes a task of p
					for i := range 3 {
						add(fmt.Sprintf("%s%d@%s by %s", name, i, clk.Now().Sub(start), s.Current().Name()))
						if i == 1 {
							time.Sleep(500 * time.Millisecond) // a timer of the bubble: it waits outside
						}
						s.Sleep(time.Duration(1+i) * 100 * time.Millisecond)
					}
				}()
			}
			s.Sleep(time.Second)
			add("runnable@" + clk.Now().Sub(start).String())
		})
		s.Go("q", "other", func() {
			for range 4 {
				s.Yield()
				add("other@" + clk.Now().Sub(start).String())
				s.Sleep(150 * time.Millisecond)
			}
		})
		s.RunFor(5 * time.Second)
		s.Close()
		out = strings.Join(log, ",")
	})
	return out
}

// Goroutines that a task starts with plain go statements become tasks of its
// group at their first call into the simulator, and run only when the
// scheduler runs them: the same plan gives the same interleaving every time
// (run it with -race and GOMAXPROCS=1 and 4), and a plan's seed picks it.
func TestGoroutinesATaskStartsAreTasksRunInADeterministicOrder(t *testing.T) {
	first := goroutines(t, 3)
	t.Log(first)
	for _, name := range []string{"p/go#1", "p/go#2", "p/go#3"} {
		if !strings.Contains(first, name) {
			t.Fatalf("no step of %s: the goroutines were not adopted as tasks: %s", name, first)
		}
	}
	for i := range 20 {
		if got := goroutines(t, 3); got != first {
			t.Fatalf("run %d differs from the first:\n  first: %s\n  now:   %s", i+2, first, got)
		}
	}
	differs := false
	for seed := uint64(4); seed < 12 && !differs; seed++ {
		differs = goroutines(t, seed) != first
	}
	if !differs {
		t.Fatalf("eight other seeds all give the same interleaving: the goroutines are not picked by the plan")
	}
}

// A goroutine of a killed group never runs again, whether it was parked with
// the scheduler or waiting outside on a timer of the bubble, and Close ends
// it (the bubble ends with no goroutine left).
func TestGoroutinesOfAKilledGroupNeverRunAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clk := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		start := clk.Now()
		var mu sync.Mutex
		var log []string
		add := func(line string) { mu.Lock(); log = append(log, line); mu.Unlock() }
		deferred := 0
		s.Go("p", "setup", func() {
			go func() { // parked with the scheduler when the group dies
				defer func() { mu.Lock(); deferred++; mu.Unlock() }()
				s.Join("p", false)
				for {
					add("parked@" + clk.Now().Sub(start).String())
					s.Sleep(300 * time.Millisecond)
				}
			}()
			go func() { // waiting on a timer of the bubble when the group dies
				s.Join("p", false)
				for {
					add("outside@" + clk.Now().Sub(start).String())
					time.Sleep(400 * time.Millisecond)
					s.Yield()
				}
			}()
		})
		s.Go("q", "killer", func() {
			s.Sleep(time.Second)
			add("kill@" + clk.Now().Sub(start).String())
			s.KillGroup("p")
		})
		s.RunFor(3 * time.Second)
		got := strings.Join(log, ",")
		if i := strings.Index(got, "kill@1s"); i < 0 || strings.Contains(got[i:], "parked") || strings.Contains(got[i:], "outside") {
			t.Fatalf("a goroutine of the killed group ran after the kill: %s", got)
		}
		if !strings.Contains(got, "parked@900ms") || !strings.Contains(got, "outside@800ms") {
			t.Fatalf("the goroutines did not run before the kill: %s", got)
		}
		s.Close()
		if deferred != 1 {
			t.Fatalf("Close ran the parked goroutine's deferred calls %d times, want 1", deferred)
		}
	})
}

// A goroutine that calls into the simulator with no group of its own (the
// virtual clock's sleep) belongs to the task that created it.
func TestAGoroutineBelongsToTheTaskThatCreatedIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newSched(1)
		s.SetSettle(synctest.Wait)
		s.SetWall(bubbleSleep)
		var name string
		s.Go("p", "parent", func() {
			go func() {
				s.Sleep(time.Millisecond) // no Join: adopted into its parent's group
				name = s.Current().Name() + " of " + s.Current().Group()
			}()
			s.Sleep(time.Second)
		})
		s.RunFor(2 * time.Second)
		s.Close()
		if name != "p/go#1 of p" {
			t.Fatalf("the goroutine ran as %q, want p/go#1 of p", name)
		}
	})
}
