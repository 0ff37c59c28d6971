package clientgo_test

import (
	"context"
	"sync/atomic"
	"testing"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Queue's ShutDown returns at once once its incarnation has ended, as
// client-go's does: a graceful-shutdown goroutine (ShutDown when ctx ends)
// returns at the crash and at the world's close, where it waited for ever
// before (its call joined an incarnation that had ended).
func TestQueueShutDownReturnsOnceTheIncarnationHasEnded(t *testing.T) {
	var shut atomic.Int32
	o := operatortest.Options{Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "cg", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			q, err := clientgo.Queue[cache.ObjectName](env, nil)
			if err != nil {
				return err
			}
			go func() {
				<-ctx.Done()
				q.ShutDown()
				shut.Add(1)
			}()
			q.Add(cache.ObjectName{Name: "x"})
			<-ctx.Done()
			return nil
		})}}}
	p, err := plan.Parse("seed 1\ncrash process=cg at=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := operatortest.Replay(t, o, p); err != nil {
		t.Fatal(err)
	}
	if n := shut.Load(); n < 2 {
		t.Errorf("%d ShutDowns returned, want one at the crash and one at the close (at least 2: the replay runs the plan and its references)", n)
	}
}
