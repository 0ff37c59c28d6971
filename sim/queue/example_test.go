package queue_test

import (
	"fmt"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// A reconcile of ns/app fails while its own status write enqueues it again
// (seed 1's pattern): the event makes the key dirty, so it runs again right
// after Done, with no backoff; the rate-limited requeue fires 5ms later and
// runs it a third time.
func Example() {
	clk := clock.New(clock.Epoch)
	q := queue.New[string](queue.KindClassic, clk, nil)
	at := func() time.Duration { return clk.Since(clock.Epoch) }
	q.SetOnReady(func() { fmt.Printf("+%v %d ready\n", at(), q.Len()) })

	reconcile := func(fail bool) {
		key, _, _ := q.TryGet()
		fmt.Printf("+%v reconcile %s\n", at(), key)
		if fail {
			q.Add(key)            // the status write's watch event
			q.AddRateLimited(key) // the returned error
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
	q.Add("ns/app")
	reconcile(true)
	reconcile(false)
	next, _ := q.NextReady()
	fmt.Printf("next ready at +%v\n", next.Sub(clock.Epoch))
	clk.AdvanceTo(next)
	reconcile(false)
	// Output:
	// +0s 1 ready
	// +0s reconcile ns/app
	// +0s 1 ready
	// +0s reconcile ns/app
	// next ready at +5ms
	// +5ms 1 ready
	// +5ms reconcile ns/app
}
