package differential

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// rywUpdates is how many Update-then-Get rounds the probe makes.
const rywUpdates = 20

// rywSeen is what a manager's client showed the probe: reads right after the
// process's own writes, from the cache.
type rywSeen struct {
	// ListAfterCreate: a List right after a Create had the new object.
	ListAfterCreate bool
	// StaleGets of Gets counts the Gets right after an Update that did not
	// return what the Update wrote (its data and resourceVersion).
	StaleGets, Gets int
	// NotFoundAfterDelete: a Get right after a Delete was NotFound.
	NotFoundAfterDelete bool
}

func (s rywSeen) consistent() bool {
	return s.ListAfterCreate && s.StaleGets == 0 && s.Gets == rywUpdates && s.NotFoundAfterDelete
}

// rywProbe writes a ConfigMap in namespace ns through c (a manager's client)
// and reads it back from the cache right after each write.
func rywProbe(ctx context.Context, c client.Client, ns string) (rywSeen, error) {
	var s rywSeen
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "probe"}, Data: map[string]string{"n": "0"}}
	if err := c.Create(ctx, cm); err != nil {
		return s, err
	}
	var list corev1.ConfigMapList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return s, err
	}
	for _, x := range list.Items {
		s.ListAfterCreate = s.ListAfterCreate || x.Name == cm.Name
	}
	for i := 1; i <= rywUpdates; i++ {
		cm.Data["n"] = strconv.Itoa(i)
		if err := c.Update(ctx, cm); err != nil {
			return s, err
		}
		var got corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &got); err != nil {
			return s, err
		}
		s.Gets++
		if got.Data["n"] != cm.Data["n"] || got.ResourceVersion != cm.ResourceVersion {
			s.StaleGets++
		}
	}
	if err := c.Delete(ctx, cm); err != nil {
		return s, err
	}
	err := c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{})
	if err != nil && !apierrors.IsNotFound(err) {
		return s, err
	}
	s.NotFoundAfterDelete = apierrors.IsNotFound(err)
	return s, nil
}

// rywOptions are a main's manager.Options with read-your-writes consistency on
// or off.
func rywOptions(on bool) manager.Options {
	return manager.Options{Client: client.Options{Cache: &client.CacheOptions{EnableReadYourWritesConsistency: ptr.To(on)}}}
}

// rywOnEnvtest runs the probe in a controller-runtime manager on envtest, as a
// Runnable, in a namespace of its own.
func rywOnEnvtest(t *testing.T, r *Real, on bool, ns string) rywSeen {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	o := rywOptions(on)
	o.Scheme, o.Metrics, o.HealthProbeBindAddress = Scheme, metricsserver.Options{BindAddress: "0"}, "0"
	mgr, err := ctrl.NewManager(r.Config, o)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		seen rywSeen
		err  error
	}
	done := make(chan result, 1)
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		s, err := rywProbe(ctx, mgr.GetClient(), ns)
		done <- result{s, err}
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(mctx) }()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		res.err = errors.New("the probe did not finish within a minute")
	}
	stop()
	if err := <-stopped; err != nil {
		t.Errorf("the manager: %v", err)
	}
	if res.err != nil {
		t.Fatalf("envtest, read-your-writes %v: %v", on, res.err)
	}
	return res.seen
}

// rywOnSimulator runs the probe as a Runnable of a simulated process with the
// same manager.Options, its ConfigMap informer lagging by 5-20 ms (the plan's
// lag fault): every read after a write is served while the write's event is
// still on its way.
func rywOnSimulator(t *testing.T, on bool) rywSeen {
	t.Helper()
	var seen rywSeen
	var probeErr error
	finished := false
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		p, err := plan.Parse("seed 1\nlag process=probe kind=/v1/ConfigMap min=5ms max=20ms\n")
		if err != nil {
			t.Fatal(err)
		}
		o := rywOptions(on)
		c, err := cluster.New(p, cluster.Options{Scheme: Scheme, Wall: wall, Processes: []process.Spec{{Name: "probe", Options: &o,
			Setup: func(p *process.Process) error {
				mgr := p.Manager()
				return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
					if err := mgr.GetClient().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ryw"}}); err != nil {
						probeErr = err
						return nil
					}
					seen, probeErr = rywProbe(ctx, mgr.GetClient(), "ryw")
					finished = true
					return nil
				}))
			}}}})
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(10 * time.Second)
		c.Close()
	})
	if probeErr != nil || !finished {
		t.Fatalf("simulator, read-your-writes %v: finished %v, %v", on, finished, probeErr)
	}
	return seen
}

// With Client.Cache.EnableReadYourWritesConsistency, a manager's client reads
// its own writes on kube-apiserver (controller-runtime's client on envtest)
// and in the simulator (the same client.New, hosted on the process's REST
// transport and informers, its informers lagging): a List right after a
// Create has the object, a Get right after each Update returns what the
// Update wrote, a Get right after a Delete is NotFound. Without it the
// simulator's lagging cache serves the old object (stale Gets), as a real
// cache behind its watch does; envtest's cache, on one machine, is rarely
// behind (its stale Gets are logged, not asserted).
func TestReadYourWritesMatchesControllerRuntimeOnKubeAPIServer(t *testing.T) {
	sim := map[bool]rywSeen{}
	for _, on := range []bool{true, false} {
		sim[on] = rywOnSimulator(t, on)
	}
	if !sim[true].consistent() {
		t.Errorf("simulator with read-your-writes: %+v, want every read to show the write before it", sim[true])
	}
	if sim[false].StaleGets == 0 {
		t.Errorf("simulator without read-your-writes, its cache lagging 5-20 ms: %+v, want stale Gets", sim[false])
	}
	t.Logf("simulator: read-your-writes on %+v, off %+v", sim[true], sim[false])
	r := needReal(t)
	for _, on := range []bool{true, false} {
		real := rywOnEnvtest(t, r, on, fmt.Sprintf("ryw-%d-%v", nextNames().Run, on))
		t.Logf("read-your-writes %v: envtest %+v, simulator %+v", on, real, sim[on])
		if on && sim[on] != real {
			t.Errorf("read-your-writes on: the simulator showed %+v, envtest %+v", sim[on], real)
		}
	}
}
