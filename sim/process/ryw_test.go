package process_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// rywRead is one Get right after the process's own Update: whether it showed
// the write, and the virtual time from the Update's call to the Get's return.
type rywRead struct {
	fresh bool
	took  time.Duration
}

// rywWorld is a process whose Runnable updates ConfigMap default/cm five
// times, reading it back from its client after each Update, with
// Client.Cache.EnableReadYourWritesConsistency set to on; its ConfigMap
// informer lags 50-100 ms behind the apiserver (the plan).
func rywWorld(on bool, reads *[]rywRead) (*plan.Plan, cluster.Options) {
	p, err := plan.Parse("seed 3\nlag process=op kind=/v1/ConfigMap min=50ms max=100ms\n")
	if err != nil {
		panic(err)
	}
	opts := &manager.Options{Client: client.Options{Cache: &client.CacheOptions{EnableReadYourWritesConsistency: ptr.To(on)}}}
	return p, cluster.Options{Scheme: apiservertest.Scheme(),
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}})
		},
		Processes: []process.Spec{{Name: "op", Options: opts, Setup: func(p *process.Process) error {
			mgr := p.Manager()
			c := mgr.GetClient()
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				key := client.ObjectKey{Namespace: "default", Name: "cm"}
				var cm corev1.ConfigMap
				if err := c.Get(ctx, key, &cm); err != nil {
					return err
				}
				for i := range 5 {
					cm.Data = map[string]string{"n": strconv.Itoa(i)}
					start := p.Clock().Now()
					if err := c.Update(ctx, &cm); err != nil {
						return err
					}
					var got corev1.ConfigMap
					if err := c.Get(ctx, key, &got); err != nil {
						return err
					}
					*reads = append(*reads, rywRead{fresh: got.ResourceVersion == cm.ResourceVersion && got.Data["n"] == cm.Data["n"],
						took: p.Clock().Now().Sub(start)})
				}
				<-ctx.Done()
				return nil
			}))
		}}}}
}

func runRYW(t *testing.T, on bool) []rywRead {
	t.Helper()
	var reads []rywRead
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, o := rywWorld(on, &reads)
		o.Wall = wall
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(5 * time.Second)
		c.Close()
	})
	if len(reads) != 5 {
		t.Fatalf("read-your-writes %v: %d reads, want 5", on, len(reads))
	}
	return reads
}

// With EnableReadYourWritesConsistency the process's client is
// controller-runtime's own consistent client: a Get right after the
// process's Update waits, in virtual time, until its lagging informer has
// the write (at least the plan's 50 ms lag) and returns it. Without it the
// same Get is served at once from the cache, which still holds the object
// before the Update.
func TestReadYourWritesWaitsForTheCacheInVirtualTime(t *testing.T) {
	for _, r := range runRYW(t, true) {
		if !r.fresh || r.took < 50*time.Millisecond {
			t.Errorf("with read-your-writes: %+v, want the written object after at least the 50ms lag", r)
		}
	}
	for _, r := range runRYW(t, false) {
		if r.fresh || r.took >= 50*time.Millisecond {
			t.Errorf("without read-your-writes: %+v, want the object before the write, at once", r)
		}
	}
}

// A run whose reads wait for the cache is deterministic: same plan, same trace.
func TestReadYourWritesDeterminism(t *testing.T) {
	var hashes []string
	for range 2 {
		inBubble(t, func(t *testing.T, wall *cluster.Wall) {
			p, o := rywWorld(true, new([]rywRead))
			o.Wall = wall
			c, err := cluster.New(p, o)
			if err != nil {
				t.Fatal(err)
			}
			c.RunFor(5 * time.Second)
			c.Close()
			hashes = append(hashes, c.Trace.Hash())
		})
	}
	if hashes[0] != hashes[1] {
		t.Errorf("two runs of one plan: trace hashes %s and %s", hashes[0], hashes[1])
	}
}

// inBubble runs f in a testing/synctest bubble whose clock follows the
// world's virtual clock, as package wallclock does (which sim/ may not
// import): with it a process's tasks may block outside the scheduler.
func inBubble(t *testing.T, f func(t *testing.T, wall *cluster.Wall)) {
	synctest.Test(t, func(t *testing.T) {
		f(t, &cluster.Wall{
			Now: time.Now,
			Sleep: func(d time.Duration, wake <-chan struct{}) time.Duration {
				now := time.Now()
				tm := time.NewTimer(d)
				select {
				case <-tm.C:
				case <-wake:
					tm.Stop()
				}
				return time.Since(now)
			},
			Settle: synctest.Wait,
		})
	})
}

// Outside a testing/synctest bubble a read that waits would block the kernel:
// the process refuses to start, naming the option and what it needs.
func TestReadYourWritesOutsideABubbleIsRefused(t *testing.T) {
	p, o := rywWorld(true, new([]rywRead))
	c, err := cluster.New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Second)
	c.Close()
	for _, s := range c.Trace.Steps() {
		if s.Op == "setup" && strings.Contains(s.Result, "EnableReadYourWritesConsistency needs a testing/synctest bubble") {
			return
		}
	}
	var b strings.Builder
	_ = c.Trace.WriteTimeline(&b)
	t.Errorf("no setup error naming the option in the trace:\n%s", b.String())
}
