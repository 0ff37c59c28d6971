package wallclock

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// A census of the bubble's goroutines: a goroutine still in the bubble once
// the world has closed (a library's janitor, a ticker loop, a client-go
// workqueue's loops never shut down, a goroutine waiting on a channel
// nothing will close) is abandoned with the world: the bubble's clock stops
// once its main goroutine returns, so it never runs again, and Run recovers
// the bubble's deadlock that says so. Run names the goroutines left, by the
// frame that started each and where it waits, each such site once per test
// (Report: a later world names only the sites no earlier one left); they
// fail nothing. Stuck names, for a watchdog outside the bubbles, those that
// keep a world from stepping or closing.

// goroutine is one goroutine of a stack dump.
type goroutine struct {
	id        int
	state     string // "chan receive (durable)"
	bubble    int    // its synctest bubble's id; 0: none
	frames    []frame
	createdBy frame // the go statement that started it
}

// frame is a function and where in it.
type frame struct{ fn, at string }

func (f frame) String() string {
	if f.at == "" {
		return f.fn
	}
	return f.fn + " (" + f.at + ")"
}

var header = regexp.MustCompile(`^goroutine (\d+) \[([^\]]*)\]:$`)

// bubbleGoroutines are the goroutines of the calling goroutine's bubble,
// itself left out, and the bubble's id.
func bubbleGoroutines() (int, []goroutine) {
	all := parseStacks(stacks())
	if len(all) == 0 || all[0].bubble == 0 {
		return 0, nil
	}
	self := all[0] // runtime.Stack lists the caller first
	var out []goroutine
	for _, g := range all[1:] {
		if g.bubble == self.bubble && !g.isTest() {
			out = append(out, g)
		}
	}
	return self.bubble, out
}

// isTest says whether g is one of the test's own goroutines, which the
// runtime lists in the bubble too: synctest.Test's caller waiting for the
// bubble (started by package testing, or by a framework's runner such as
// Ginkgo's) and the bubble's main goroutine waiting for its cleanups.
func (g goroutine) isTest() bool {
	if strings.HasPrefix(g.createdBy.fn, "testing.") || strings.HasPrefix(g.createdBy.fn, "testing/") {
		return true
	}
	for _, f := range g.frames {
		if f.fn == "testing/synctest.Test" || f.fn == "internal/synctest.Run" {
			return true
		}
	}
	return false
}

// stacks is every goroutine's stack, the caller's first.
func stacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// parseStacks reads runtime.Stack's text.
func parseStacks(text string) []goroutine {
	var out []goroutine
	for _, block := range strings.Split(text, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		m := header.FindStringSubmatch(lines[0])
		if m == nil {
			continue
		}
		g := goroutine{}
		g.id, _ = strconv.Atoi(m[1])
		for _, part := range strings.Split(m[2], ", ") {
			if id, ok := strings.CutPrefix(part, "synctest bubble "); ok {
				g.bubble, _ = strconv.Atoi(id)
			} else if g.state == "" {
				g.state = part
			}
		}
		for i := 1; i < len(lines); i++ {
			fn := strings.TrimSpace(lines[i])
			at := ""
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
				at, _, _ = strings.Cut(strings.TrimSpace(lines[i+1]), " +0x")
				i++
			}
			if by, ok := strings.CutPrefix(fn, "created by "); ok {
				by, _, _ = strings.Cut(by, " in goroutine ")
				g.createdBy = frame{by, at}
				continue
			}
			if j := strings.LastIndex(fn, "("); j > 0 && strings.HasSuffix(fn, ")") {
				fn = fn[:j] // the arguments
			}
			g.frames = append(g.frames, frame{fn, at})
		}
		out = append(out, g)
	}
	return out
}

// SimulatorQueue was how the simulator told the census of a client-go
// workqueue of its own in the bubble, when the census refused the code
// under test's: a client-go workqueue now runs in the world as any
// goroutine of client-go's does, on the bubble's clock (virtual time).
//
// Deprecated: a no-op; nothing needs telling.
func SimulatorQueue() {}

// abandonedLine names the goroutines gs of the code under test still in
// the bubble once the world has closed, "" when there are none: each by
// the frame that started it and where it waits. They are abandoned with
// the world, not a failure: the world's close has frozen every call into
// it, so nothing they do after the run's end reaches what was judged. The
// key is the same for every run of one operator (the sites, without
// goroutine ids or counts), so that a test says it once.
func abandonedLine(gs []goroutine) (line, key string) {
	if len(gs) == 0 {
		return "", ""
	}
	count := map[string]int{}
	var order []string
	for _, g := range gs {
		k := g.site()
		if count[k]++; count[k] == 1 {
			order = append(order, k)
		}
	}
	slices.Sort(order) // (a stack dump lists goroutines by id, which Go's scheduler orders)
	var each []string
	for i, k := range order {
		if i == 3 {
			each = append(each, fmt.Sprintf("and %d more", len(order)-3))
			break
		}
		if count[k] > 1 {
			k = fmt.Sprintf("%d goroutines %s", count[k], k)
		}
		each = append(each, k)
	}
	key = strings.Join(order, "\n")
	return fmt.Sprintf("operatortest: %d goroutine%s of the code under test outlived the world and %s abandoned with it, never run again (not a failure: the world's close froze their calls): %s. "+
		"A real process would run them on; stop each when its process's context ends (a library's Stop or Close there) to keep them out of the test binary",
		len(gs), plural(len(gs)), map[bool]string{true: "was", false: "were"}[len(gs) == 1], strings.Join(each, "; ")), key
}

// site is where g was started and where it waits: what the census names.
func (g goroutine) site() string {
	where := "?"
	if w := userFrame(g.frames); w.fn != "" {
		where = w.String()
	}
	return fmt.Sprintf("started by %s, waiting (%s) in %s", g.createdBy, g.state, where)
}

// userFrame is the innermost frame of frames outside the runtime and the
// standard library's waiting (where the goroutine waits, as its code reads).
func userFrame(frames []frame) frame {
	for _, f := range frames {
		if strings.HasPrefix(f.fn, "runtime.") || strings.HasPrefix(f.fn, "sync.") || strings.HasPrefix(f.fn, "time.") || strings.HasPrefix(f.fn, "internal/") {
			continue
		}
		return f
	}
	if len(frames) > 0 {
		return frames[0]
	}
	return frame{}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Stuck names the goroutines of every bubble that keep it from stepping or
// closing: those blocked on something the bubble cannot wait out (a mutex,
// a channel made outside the bubble, I/O) or running without end, where a
// world's kernel waits for every goroutine of its bubble to be durably
// blocked (synctest.Wait). For code outside the bubbles (a watchdog of wall
// time); "" when there are none.
func Stuck() string {
	var each []string
	n := 0
	for _, g := range parseStacks(stacks()) {
		if g.bubble == 0 || strings.Contains(g.state, "durable") || g.isTest() || waitsForTheBubble(g) {
			continue
		}
		if n++; n <= 3 {
			where := "?"
			if w := userFrame(g.frames); w.fn != "" {
				where = w.String()
			}
			each = append(each, fmt.Sprintf("goroutine %d started by %s, %s in %s", g.id, g.createdBy, g.state, where))
		}
	}
	if n > 3 {
		each = append(each, fmt.Sprintf("and %d more", n-3))
	}
	return strings.Join(each, "; ")
}

// waitsForTheBubble says whether g is a kernel waiting for its bubble
// (synctest.Wait).
func waitsForTheBubble(g goroutine) bool {
	for _, f := range g.frames {
		if f.fn == "testing/synctest.Wait" || f.fn == "internal/synctest.Wait" {
			return true
		}
	}
	return false
}
