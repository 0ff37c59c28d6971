package queue_test

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// The cost of one reconcile's worth of queue work, Add+Get+Done, over 64 keys,
// next to the real queues (which lock, and in the priority queue's case hand
// items over between goroutines): run with -bench . and compare in one run.

const benchKeys = 64

func benchAddGetDone(b *testing.B, q workqueue.TypedRateLimitingInterface[int]) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q.Add(i % benchKeys)
		item, _ := q.Get()
		q.Done(item)
	}
}

func BenchmarkAddGetDone(b *testing.B) {
	b.Run("sim-classic", func(b *testing.B) {
		clk := clock.New(clock.Epoch)
		benchAddGetDone(b, queue.New[int](queue.KindClassic, clk, nil))
	})
	b.Run("sim-priority", func(b *testing.B) {
		clk := clock.New(clock.Epoch)
		benchAddGetDone(b, queue.New[int](queue.KindPriority, clk, nil))
	})
	b.Run("client-go", func(b *testing.B) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[int]())
		defer q.ShutDown()
		benchAddGetDone(b, q)
	})
	b.Run("controller-runtime-priorityqueue", func(b *testing.B) {
		q := priorityqueue.New[int]("")
		defer q.ShutDown()
		benchAddGetDone(b, q)
	})
}

// BenchmarkRateLimitedRequeue is a failing reconcile's queue work:
// AddRateLimited, the clock to the backoff, Get, Done.
func BenchmarkRateLimitedRequeue(b *testing.B) {
	for _, kind := range []queue.Kind{queue.KindClassic, queue.KindPriority} {
		b.Run(kind.String(), func(b *testing.B) {
			clk := clock.New(clock.Epoch)
			q := queue.New[int](kind, clk, nil)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				k := i % benchKeys
				q.AddRateLimited(k)
				clk.FireNext()
				item, _, _ := q.TryGet()
				q.Done(item)
				if i%8 == 7 {
					q.Forget(k)
				}
			}
		})
	}
}
