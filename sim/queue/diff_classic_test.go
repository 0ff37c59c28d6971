package queue_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/util/workqueue"
	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// classicOp is one generated operation on a classic queue.
type classicOp struct {
	Kind string // add, after, ratelimited, forget, get, done, advance, shutdown, drain
	Key  string
	D    time.Duration
	Pick int // done: which processing item (sorted, mod their number)
}

func (o classicOp) String() string {
	switch o.Kind {
	case "add", "ratelimited", "forget":
		return fmt.Sprintf("%s(%s)", o.Kind, o.Key)
	case "after":
		return fmt.Sprintf("after(%s,%v)", o.Key, o.D)
	case "advance":
		return fmt.Sprintf("advance(%v)", o.D)
	case "done":
		return fmt.Sprintf("done(#%d)", o.Pick)
	}
	return o.Kind
}

var genClassicOp = rapid.Custom(func(t *rapid.T) classicOp {
	kind := weighted(t, "kind",
		[]string{"add", "after", "ratelimited", "forget", "get", "done", "advance", "shutdown", "drain"},
		[]int{8, 8, 8, 2, 8, 8, 10, 2, 2})
	op := classicOp{Kind: kind}
	switch kind {
	case "add", "ratelimited", "forget":
		op.Key = genKey.Draw(t, "key")
	case "after":
		op.Key = genKey.Draw(t, "key")
		op.D = genDelay.Draw(t, "delay")
	case "advance":
		op.D = genAdvance.Draw(t, "advance")
	case "done":
		op.Pick = genPick.Draw(t, "pick")
	}
	return op
})

// TestClassicMatchesClientGo runs generated operation sequences against
// Classic and against client-go's real rate-limiting queue
// (workqueue.NewTypedRateLimitingQueueWithConfig) in a synctest bubble, and
// requires the same observations after every operation: the items each Get
// returns and at which instant (a Get that finds the queue empty stays
// pending, so this is when each item becomes available), Len, NumRequeues,
// ShuttingDown and when ShutDownWithDrain returns. The rate limiters are
// client-go's, with the bucket on virtual time on the model side.
func TestClassicMatchesClientGo(t *testing.T) {
	deepCheck(t, func(rt *rapid.T) {
		cfg := rapid.SampledFrom(limiterCfgs).Draw(rt, "limiter")
		ops := rapid.SliceOfN(genClassicOp, 1, 120).Draw(rt, "ops")
		want := runClassicReal(t, cfg, ops)
		have := runClassicModel(cfg, ops)
		if diff := cmp.Diff(want, have); diff != "" {
			rt.Fatalf("limiter %s: sim/queue.Classic differs from client-go (-real +model):\n%s\nreal run:\n%s",
				cfg.name, diff, joinObs(want))
		}
	})
}

func joinObs(obs []observation) string {
	var b strings.Builder
	for _, o := range obs {
		fmt.Fprintf(&b, "  %v\n", o)
	}
	return b.String()
}

func runClassicModel(cfg limiterCfg, ops []classicOp) []observation {
	clk := clock.New(clock.Epoch)
	q := queue.NewClassic(clk, cfg.model(clk))
	var (
		pendingGets int
		gets        []got
		processing  processingSet
		drains      []func() bool
	)
	serve := func() {
		for pendingGets > 0 {
			item, shutdown, ok := q.TryGet()
			if !ok {
				return
			}
			pendingGets--
			gets = append(gets, got{At: clk.Since(clock.Epoch), Item: item, Shutdown: shutdown})
		}
	}
	q.SetOnReady(serve)
	waited := false
	q.SetWaiter(func(ready func() bool) { // only ShutDownWithDrain waits here: gets use TryGet
		waited = true
		drains = append(drains, ready)
	})

	var out []observation
	for _, op := range ops {
		var drained []time.Duration
		switch op.Kind {
		case "add":
			q.Add(op.Key)
		case "after":
			q.AddAfter(op.Key, op.D)
		case "ratelimited":
			q.AddRateLimited(op.Key)
		case "forget":
			q.Forget(op.Key)
		case "get":
			pendingGets++
			serve()
		case "done":
			if item, ok := processing.take(op.Pick); ok {
				q.Done(item)
			}
		case "advance":
			clk.Step(op.D)
		case "shutdown":
			q.ShutDown()
		case "drain":
			waited = false
			q.ShutDownWithDrain()
			if !waited {
				drained = append(drained, clk.Since(clock.Epoch))
			}
		}
		var still []func() bool
		for _, ready := range drains {
			if ready() {
				drained = append(drained, clk.Since(clock.Epoch))
			} else {
				still = append(still, ready)
			}
		}
		drains = still
		sortGots(gets)
		processing.add(gets)
		out = append(out, observation{
			Op: op.String(), Gets: gets, Drained: drained,
			Len: q.Len(), NumRequeues: requeues(q), ShuttingDown: q.ShuttingDown(),
		})
		gets = nil
	}
	return out
}

func runClassicReal(t *testing.T, cfg limiterCfg, ops []classicOp) []observation {
	var out []observation
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedRateLimitingQueueWithConfig(cfg.real(), workqueue.TypedRateLimitingQueueConfig[string]{})
		start := time.Now()
		getc := make(chan got, len(ops)+1)
		drainc := make(chan time.Duration, len(ops)+1)
		var processing processingSet
		collect := func() (gs []got, ds []time.Duration) {
			synctest.Wait()
			for {
				select {
				case g := <-getc:
					gs = append(gs, g)
				case d := <-drainc:
					ds = append(ds, d)
				default:
					sortGots(gs)
					processing.add(gs)
					return gs, ds
				}
			}
		}
		for _, op := range ops {
			switch op.Kind {
			case "add":
				q.Add(op.Key)
			case "after":
				q.AddAfter(op.Key, op.D)
			case "ratelimited":
				q.AddRateLimited(op.Key)
			case "forget":
				q.Forget(op.Key)
			case "get":
				go func() {
					item, shutdown := q.Get()
					getc <- got{At: time.Since(start), Item: item, Shutdown: shutdown}
				}()
			case "done":
				if item, ok := processing.take(op.Pick); ok {
					q.Done(item)
				}
			case "advance":
				time.Sleep(op.D)
			case "shutdown":
				q.ShutDown()
			case "drain":
				go func() {
					q.ShutDownWithDrain()
					drainc <- time.Since(start)
				}()
			}
			gs, ds := collect()
			out = append(out, observation{
				Op: op.String(), Gets: gs, Drained: ds,
				Len: q.Len(), NumRequeues: requeues(q), ShuttingDown: q.ShuttingDown(),
			})
		}
		// Let every goroutine of the bubble end: finish all work (a drain
		// after a ShutDown waits for it); with nothing processing,
		// ShutDownWithDrain returns at once and its Broadcast wakes drainers
		// that Done's Signal left waiting; ShutDown releases blocked Gets and
		// stops the delaying loop.
		for {
			collect()
			if len(processing) == 0 {
				break
			}
			for _, item := range processing {
				q.Done(item)
			}
			processing = nil
		}
		q.ShutDownWithDrain()
		q.ShutDown()
		collect()
	})
	return out
}
