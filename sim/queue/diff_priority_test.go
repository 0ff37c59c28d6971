package queue_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// priorityOp is one generated operation on a priority queue.
type priorityOp struct {
	Kind     string // addopts, forget, get, done, advance, shutdown
	Keys     []string
	Opts     priorityqueue.AddOpts
	D        time.Duration
	Pick     int
	Priority *int
}

func (o priorityOp) String() string {
	switch o.Kind {
	case "addopts":
		var b strings.Builder
		fmt.Fprintf(&b, "add(%s", strings.Join(o.Keys, ","))
		if o.Opts.After != 0 {
			fmt.Fprintf(&b, " after=%v", o.Opts.After)
		}
		if o.Opts.RateLimited {
			b.WriteString(" ratelimited")
		}
		if o.Opts.Priority != nil {
			fmt.Fprintf(&b, " p=%d", *o.Opts.Priority)
		}
		b.WriteString(")")
		return b.String()
	case "forget":
		return fmt.Sprintf("forget(%s)", o.Keys[0])
	case "advance":
		return fmt.Sprintf("advance(%v)", o.D)
	case "done":
		return fmt.Sprintf("done(#%d)", o.Pick)
	}
	return o.Kind
}

// genPriority: unset, handler.LowPriority (-100), and a few others.
var genPriority = rapid.SampledFrom([]*int{nil, nil, new(-100), new(0), new(1), new(10)})

var genPriorityOp = rapid.Custom(func(t *rapid.T) priorityOp {
	kind := weighted(t, "kind",
		[]string{"addopts", "forget", "get", "done", "advance", "shutdown"},
		[]int{24, 2, 8, 8, 10, 1})
	op := priorityOp{Kind: kind}
	switch kind {
	case "addopts":
		op.Keys = rapid.SliceOfNDistinct(genKey, 1, 2, rapid.ID).Draw(t, "keys")
		if rapid.Bool().Draw(t, "after?") {
			op.Opts.After = genDelay.Draw(t, "after")
		}
		op.Opts.RateLimited = rapid.IntRange(0, 2).Draw(t, "ratelimited?") == 0
		op.Opts.Priority = genPriority.Draw(t, "priority")
	case "forget":
		op.Keys = []string{genKey.Draw(t, "key")}
	case "advance":
		op.D = genAdvance.Draw(t, "advance")
	case "done":
		op.Pick = genPick.Draw(t, "pick")
	}
	return op
})

// TestPriorityMatchesControllerRuntime runs generated operation sequences
// against Priority and against controller-runtime's real priority queue
// (priorityqueue.New) in a synctest bubble, and requires the same
// observations after every operation: the item and priority each
// GetWithPriority returns and at which instant (a Get that finds nothing to
// hand out stays pending), Len, NumRequeues and ShuttingDown.
func TestPriorityMatchesControllerRuntime(t *testing.T) {
	deepCheck(t, func(rt *rapid.T) {
		cfg := rapid.SampledFrom(limiterCfgs).Draw(rt, "limiter")
		ops := rapid.SliceOfN(genPriorityOp, 1, 120).Draw(rt, "ops")
		want := runPriorityReal(t, cfg, ops)
		have := runPriorityModel(cfg, ops)
		if diff := cmp.Diff(want, have); diff != "" {
			rt.Fatalf("limiter %s: sim/queue.Priority differs from controller-runtime (-real +model):\n%s\nreal run:\n%s",
				cfg.name, diff, joinObs(want))
		}
	})
}

func runPriorityModel(cfg limiterCfg, ops []priorityOp) []observation {
	clk := clock.New(clock.Epoch)
	q := queue.NewPriority(clk, cfg.model(clk))
	var (
		pendingGets int
		gets        []got
		processing  processingSet
		shutdown    bool
	)
	serve := func() {
		for pendingGets > 0 {
			item, priority, shutdown, ok := q.TryGetWithPriority()
			if !ok {
				return
			}
			pendingGets--
			gets = append(gets, got{At: clk.Since(clock.Epoch), Item: item, Priority: priority, Shutdown: shutdown})
		}
	}
	q.SetOnReady(serve)

	var out []observation
	for _, op := range ops {
		switch op.Kind {
		case "addopts":
			q.AddWithOpts(op.Opts, op.Keys...)
		case "forget":
			q.Forget(op.Keys[0])
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
			if !shutdown { // the real one panics on a second ShutDown (close of closed channel)
				shutdown = true
				q.ShutDown()
			}
		}
		sortGots(gets)
		processing.add(gets)
		out = append(out, observation{
			Op: op.String(), Gets: gets,
			Len: q.Len(), NumRequeues: requeues(q), ShuttingDown: q.ShuttingDown(),
		})
		gets = nil
	}
	return out
}

func runPriorityReal(t *testing.T, cfg limiterCfg, ops []priorityOp) []observation {
	var out []observation
	synctest.Test(t, func(t *testing.T) {
		q := priorityqueue.New("", func(o *priorityqueue.Opts[string]) { o.RateLimiter = cfg.real() })
		start := time.Now()
		getc := make(chan got, len(ops)+1)
		var processing processingSet
		shutdown := false
		collect := func() (gs []got) {
			synctest.Wait()
			for {
				select {
				case g := <-getc:
					gs = append(gs, g)
				default:
					sortGots(gs)
					processing.add(gs)
					return gs
				}
			}
		}
		for _, op := range ops {
			switch op.Kind {
			case "addopts":
				q.AddWithOpts(op.Opts, op.Keys...)
			case "forget":
				q.Forget(op.Keys[0])
			case "get":
				go func() {
					item, priority, shutdown := q.GetWithPriority()
					getc <- got{At: time.Since(start), Item: item, Priority: priority, Shutdown: shutdown}
				}()
			case "done":
				if item, ok := processing.take(op.Pick); ok {
					q.Done(item)
				}
			case "advance":
				time.Sleep(op.D)
			case "shutdown":
				if !shutdown {
					shutdown = true
					q.ShutDown()
				}
			}
			gs := collect()
			out = append(out, observation{
				Op: op.String(), Gets: gs,
				Len: q.Len(), NumRequeues: requeues(q), ShuttingDown: q.ShuttingDown(),
			})
		}
		if !shutdown {
			q.ShutDown() // ends the queue's goroutines and releases pending Gets
		}
		collect()
	})
	return out
}
