package queue_test

// Shared machinery of the differential tests (diff_classic_test.go,
// diff_priority_test.go): the same generated operations run against a
// sim/queue queue on the virtual clock and against the real queue inside a
// testing/synctest bubble, whose fake time.Now and timers the real queue reads.
// Both clocks advance together; after every operation the bubble waits until
// every goroutine of the real queue is blocked (synctest.Wait), so its
// background loops have caught up before anything is observed.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
	"pgregory.net/rapid"
)

var diffKeys = []string{"a", "b", "c", "d", "e"}

// limiterCfg is a rate limiter configuration, built once for the real queue
// (client-go's own limiters, reading the bubble's time.Now) and once for the
// model (the same limiters with the bucket on the virtual clock).
type limiterCfg struct {
	name  string
	burst int // 0: no bucket (the priority queue's default)
}

var limiterCfgs = []limiterCfg{
	{"exponential+bucket(10qps,100)", 100}, // client-go's DefaultTypedControllerRateLimiter
	{"exponential+bucket(10qps,2)", 2},     // a small bucket, so generated runs exhaust it
	{"exponential", 0},                     // controller-runtime's default for the priority queue
}

func (c limiterCfg) real() workqueue.TypedRateLimiter[string] {
	switch c.burst {
	case 0:
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second)
	case 100:
		return workqueue.DefaultTypedControllerRateLimiter[string]()
	}
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), c.burst)},
	)
}

func (c limiterCfg) model(clk *clock.Clock) workqueue.TypedRateLimiter[string] {
	switch c.burst {
	case 0:
		return queue.DefaultRateLimiter[string](queue.KindPriority, clk)
	case 100:
		return queue.DefaultControllerRateLimiter[string](clk)
	}
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second),
		queue.NewBucketRateLimiter[string](clk, rate.Limit(10), c.burst),
	)
}

// got is one Get that returned: when (offset from the start), what.
type got struct {
	At       time.Duration
	Item     string
	Priority int
	Shutdown bool
}

func (g got) String() string {
	if g.Shutdown {
		return fmt.Sprintf("+%v shutdown", g.At)
	}
	return fmt.Sprintf("+%v %s(p%d)", g.At, g.Item, g.Priority)
}

// sortGots orders the Gets that returned during one operation. A real Get that
// was blocked is woken by a goroutine handoff: when several items become ready
// at one instant, which blocked Get takes which is a race, so the comparison is
// of the multiset of (instant, item) per operation. A Get that does not block
// is exact: it is the only Get that returns during its operation.
func sortGots(gs []got) {
	slices.SortFunc(gs, func(a, b got) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Item, b.Item),
			cmp.Compare(a.Priority, b.Priority), compareBool(a.Shutdown, b.Shutdown))
	})
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// observation is what both queues must agree on after each operation.
type observation struct {
	Op           string
	Gets         []got
	Drained      []time.Duration // Classic: ShutDownWithDrain calls that returned
	Len          int
	NumRequeues  []int // of diffKeys
	ShuttingDown bool
}

func (o observation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s len=%d requeues=%v", o.Op, o.Len, o.NumRequeues)
	if o.ShuttingDown {
		b.WriteString(" shutting-down")
	}
	for _, g := range o.Gets {
		fmt.Fprintf(&b, " get[%v]", g)
	}
	for _, d := range o.Drained {
		fmt.Fprintf(&b, " drained[+%v]", d)
	}
	return b.String()
}

func requeues(q interface{ NumRequeues(string) int }) []int {
	n := make([]int, len(diffKeys))
	for i, k := range diffKeys {
		n[i] = q.NumRequeues(k)
	}
	return n
}

// processingSet is the harness's record of the items handed out by Get and
// not yet Done, kept sorted so a Done op picks the same item on both sides.
type processingSet []string

func (p *processingSet) add(gs []got) {
	for _, g := range gs {
		if !g.Shutdown {
			*p = append(*p, g.Item)
		}
	}
	slices.Sort(*p)
}

// take removes and returns the pick-th item (mod the size), or false if empty.
func (p *processingSet) take(pick int) (string, bool) {
	if len(*p) == 0 {
		return "", false
	}
	i := pick % len(*p)
	item := (*p)[i]
	*p = slices.Delete(*p, i, i+1)
	return item, true
}

// Generators of the operation parameters: few keys, so items collide; short
// delays and advances, so delayed items become ready (and tie) often, with a
// few long ones so the exponential backoff gets somewhere.
var (
	genKey     = rapid.SampledFrom(diffKeys)
	genDelay   = rapid.SampledFrom([]time.Duration{-time.Millisecond, 0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond, time.Second})
	genAdvance = rapid.SampledFrom([]time.Duration{0, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond, 200 * time.Millisecond, 2 * time.Second, 30 * time.Second})
	genPick    = rapid.IntRange(0, len(diffKeys)-1)
)

// weighted draws one of the names with the given relative weights.
func weighted(t *rapid.T, label string, names []string, weights []int) string {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := rapid.IntRange(0, total-1).Draw(t, label)
	for i, w := range weights {
		if n < w {
			return names[i]
		}
		n -= w
	}
	panic("unreachable")
}

// deepCheck runs a differential property for rounds×(-rapid.checks, 100 by
// default) generated cases: each case costs well under a millisecond, and the
// rarer interleavings (shutdown during a drain, ties in the heap) need
// thousands. -short runs one round.
func deepCheck(t *testing.T, prop func(*rapid.T)) {
	rounds := 20
	if testing.Short() {
		rounds = 1
	}
	for range rounds {
		rapid.Check(t, prop)
		if t.Failed() {
			return
		}
	}
}
