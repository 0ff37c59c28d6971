package envtestenv_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// latencies are what a controller meets on one kind of cluster: how long a live
// read and a write take, and when the write's watch event reaches the writer's own
// informer, counted from the moment the write returned (negative: the cache had it
// before the caller had the response).
type latencies struct {
	read, write, deliveryAfterResponse []time.Duration
}

func (l latencies) seesOwnWrite() float64 {
	n := 0
	for _, d := range l.deliveryAfterResponse {
		if d <= 0 {
			n++
		}
	}
	return float64(n) / float64(len(l.deliveryAfterResponse))
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

func (l latencies) String() string {
	f := func(ds []time.Duration) string {
		return fmt.Sprintf("median %v, p90 %v", quantile(ds, 0.5).Round(time.Microsecond), quantile(ds, 0.9).Round(time.Microsecond))
	}
	return fmt.Sprintf("read: %s; write: %s; delivery after response: %s; own write in cache at response: %.0f%%",
		f(l.read), f(l.write), f(l.deliveryAfterResponse), 100*l.seesOwnWrite())
}

// TestMeasureLatency measures call and watch-delivery latencies on envtest and
// draws the same figures from the simulator's DefaultTiming. The figures are the
// ones sim/cluster's doc.go quotes; the assertions keep the defaults of the
// same order as the real server (within a factor of 10 of its medians), so that
// neither drifts far from the other unnoticed.
func TestMeasureLatency(t *testing.T) {
	assets := envtestenv.Require(t)
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	informers, err := cache.New(env.Config, cache.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	arrived := map[string]time.Time{} // resourceVersion -> when the informer applied it
	inf, err := informers.GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}
	record := func(obj any) {
		cm := obj.(*corev1.ConfigMap)
		mu.Lock()
		arrived[cm.ResourceVersion] = time.Now()
		mu.Unlock()
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { record(obj) }, UpdateFunc: func(_, obj any) { record(obj) }}); err != nil {
		t.Fatal(err)
	}
	go func() { _ = informers.Start(ctx) }()
	if !informers.WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}

	cl := env.Admin
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "latency"}}
	if err := cl.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	const n = 300
	var real latencies
	type write struct {
		rv       string
		returned time.Time
	}
	var writes []write
	for i := range n {
		start := time.Now()
		if err := cl.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
			t.Fatal(err)
		}
		real.read = append(real.read, time.Since(start))
		cm.Data = map[string]string{"i": strconv.Itoa(i)}
		start = time.Now()
		if err := cl.Update(ctx, cm); err != nil {
			t.Fatal(err)
		}
		returned := time.Now()
		real.write = append(real.write, returned.Sub(start))
		writes = append(writes, write{cm.ResourceVersion, returned})
		time.Sleep(2 * time.Millisecond) // let the event land before the next write
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	for _, w := range writes {
		at, ok := arrived[w.rv]
		if !ok {
			t.Fatalf("the informer never saw resourceVersion %s", w.rv)
		}
		real.deliveryAfterResponse = append(real.deliveryAfterResponse, at.Sub(w.returned))
	}
	mu.Unlock()

	// The same figures from the simulator's defaults: a read is request plus
	// response; a write too; its event reaches an informer Delivery after the
	// commit, that is Delivery minus Response after the caller has the answer.
	var model latencies
	s := rng.New(1).Stream("measure")
	d := cluster.DefaultTiming
	for range 10_000 {
		model.read = append(model.read, d.Read.Draw(s)+d.Response.Draw(s))
		resp := d.Response.Draw(s)
		model.write = append(model.write, d.Write.Draw(s)+resp)
		model.deliveryAfterResponse = append(model.deliveryAfterResponse, d.Delivery.Draw(s)-resp)
	}
	t.Logf("envtest:   %s", real)
	t.Logf("simulator: %s", model)

	order := func(what string, got, want []time.Duration) {
		g, w := quantile(got, 0.5), quantile(want, 0.5)
		if g > 10*w || w > 10*g {
			t.Errorf("%s: the simulator's median %v is not of the order of envtest's %v", what, g, w)
		}
	}
	order("read", model.read, real.read)
	order("write", model.write, real.write)
	// On envtest the event and the response arrive together: the writer's cache
	// holds its write at the response about half of the time.
	if p, r := model.seesOwnWrite(), real.seesOwnWrite(); p < 0.2 || p > 0.8 || r < 0.05 || r > 0.95 {
		t.Errorf("a writer sees its own write in its cache at the response %.0f%% of the time on the simulator, %.0f%% on envtest: want sometimes on both, about as often", 100*p, 100*r)
	}
}
