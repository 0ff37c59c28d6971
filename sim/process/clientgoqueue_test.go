package process_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// queueCallers runs a process that builds two client-go queues and then, from
// one `go` statement, starts a goroutine for each (in the order started says)
// that adds one key to its queue: the goroutines reach the simulator at one
// instant, from one place, asking the same key. It returns the queues in the
// order their goroutines ran.
func queueCallers(t *testing.T, seed int, started []int) []int {
	t.Helper()
	var ran []int
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, err := plan.Parse(fmt.Sprintf("seed %d\n", seed))
		if err != nil {
			t.Fatal(err)
		}
		o := cluster.Options{Scheme: apiservertest.Scheme(), Wall: wall, Processes: []process.Spec{{Name: "op", Setup: func(pr *process.Process) error {
			mgr := pr.Manager()
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				var queues []interface{ Add(string) }
				for range 2 {
					q, err := process.NewClientGoQueue[string](mgr, nil)
					if err != nil {
						return err
					}
					queues = append(queues, q)
				}
				for _, i := range started {
					go func() {
						queues[i].Add("default/a")
						ran = append(ran, i) // (the running task's: one at a time)
						<-ctx.Done()
					}()
				}
				<-ctx.Done()
				return nil
			}))
		}}}}
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Second)
		c.Close()
	})
	return ran
}

// Goroutines that reach the simulator at one instant, from one place, are
// told apart by the queue they call, not by the order Go started them in (an
// informer's handlers start in Go map order): the same plan runs them in the
// same order whichever was started first.
func TestGoroutinesCallingTwoQueuesRunInTheirQueuesOrder(t *testing.T) {
	for seed := 1; seed <= 4; seed++ {
		a := queueCallers(t, seed, []int{0, 1})
		b := queueCallers(t, seed, []int{1, 0})
		if len(a) != 2 || !slices.Equal(a, b) {
			t.Errorf("seed %d: the queues' goroutines ran in order %v when started 0, 1 and %v when started 1, 0; want one order", seed, a, b)
		}
	}
}
