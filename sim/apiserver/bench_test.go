package apiserver_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// The benchmarks run the same operations on a small custom resource (Widget, with a
// status subresource) through three clients in one run:
//   - model:  the apiserver model through kubeclient (a client.Client, no cache);
//   - fake:   controller-runtime's fake client (client/fake), the usual peer;
// and BenchmarkGetUpdatePair reports the ratio of the two measured side by side.

const benchNS = "bench"

func benchClients(b *testing.B, n int) map[string]client.Client {
	b.Helper()
	scheme := apiservertest.Scheme()
	objs := make([]client.Object, 0, n)
	for i := range n {
		objs = append(objs, &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: benchNS, Name: fmt.Sprintf("w-%03d", i)}, Spec: apiservertest.WidgetSpec{Size: 1, Color: "red"}})
	}

	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: []apiserver.CRD{apiservertest.WidgetCRD}})
	model := kubeclient.New(s, apiserver.Admin, kubeclient.Options{})
	ctx := context.Background()
	if err := model.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNS}}); err != nil {
		b.Fatal(err)
	}
	for _, o := range objs {
		if err := model.Create(ctx, o.DeepCopyObject().(client.Object)); err != nil {
			b.Fatal(err)
		}
	}
	fakeObjs := make([]client.Object, len(objs))
	for i, o := range objs {
		fakeObjs[i] = o.DeepCopyObject().(client.Object)
	}
	fc := fake.NewClientBuilder().WithScheme(scheme).WithObjects(fakeObjs...).WithStatusSubresource(&apiservertest.Widget{}).Build()
	return map[string]client.Client{"model": model, "fake": fc}
}

var benchOps = []struct {
	name string
	op   func(ctx context.Context, c client.Client, w *apiservertest.Widget, i int) error
}{
	{"Get", func(ctx context.Context, c client.Client, w *apiservertest.Widget, i int) error {
		return c.Get(ctx, client.ObjectKey{Namespace: benchNS, Name: "w-000"}, w)
	}},
	{"Update", func(ctx context.Context, c client.Client, w *apiservertest.Widget, i int) error {
		w.Spec.Size = i
		return c.Update(ctx, w)
	}},
	{"StatusUpdate", func(ctx context.Context, c client.Client, w *apiservertest.Widget, i int) error {
		w.Status.ObservedGeneration = int64(i)
		return c.Status().Update(ctx, w)
	}},
	{"MergePatch", func(ctx context.Context, c client.Client, w *apiservertest.Widget, i int) error {
		return c.Patch(ctx, w, client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"size":%d}}`, i)))
	}},
	{"List100", func(ctx context.Context, c client.Client, w *apiservertest.Widget, i int) error {
		return c.List(ctx, &apiservertest.WidgetList{}, client.InNamespace(benchNS))
	}},
	{"GetUpdate", getUpdate},
}

func getUpdate(ctx context.Context, c client.Client, w *apiservertest.Widget, i int) error {
	if err := c.Get(ctx, client.ObjectKey{Namespace: benchNS, Name: "w-000"}, w); err != nil {
		return err
	}
	w.Spec.Size = i
	return c.Update(ctx, w)
}

// BenchmarkClient runs each operation against the model and the fake client.
func BenchmarkClient(b *testing.B) {
	for _, op := range benchOps {
		for _, name := range []string{"model", "fake"} {
			b.Run(op.name+"/"+name, func(b *testing.B) {
				c := benchClients(b, 100)[name]
				ctx := context.Background()
				w := &apiservertest.Widget{}
				if err := c.Get(ctx, client.ObjectKey{Namespace: benchNS, Name: "w-000"}, w); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if err := op.op(ctx, c, w, i+2); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGetUpdatePair measures Get+Update pairs on the model and on the fake
// client in the same run, interleaved in slices of wall time so that machine noise
// hits both alike, and reports pairs per second of each and their ratio.
func BenchmarkGetUpdatePair(b *testing.B) {
	clients := benchClients(b, 100)
	ctx := context.Background()
	rate := func(c client.Client, budget time.Duration) (pairs int, elapsed time.Duration) {
		w := &apiservertest.Widget{}
		start := time.Now() //nolint: wall time is what a benchmark measures
		for i := 0; ; i++ {
			if err := getUpdate(ctx, c, w, i+2); err != nil {
				b.Fatal(err)
			}
			if i%64 == 0 && time.Since(start) > budget {
				return i + 1, time.Since(start)
			}
		}
	}
	var modelPairs, fakePairs int
	var modelTime, fakeTime time.Duration
	for range b.N {
		p, t := rate(clients["model"], 20*time.Millisecond)
		modelPairs, modelTime = modelPairs+p, modelTime+t
		p, t = rate(clients["fake"], 20*time.Millisecond)
		fakePairs, fakeTime = fakePairs+p, fakeTime+t
	}
	model := float64(modelPairs) / modelTime.Seconds()
	fk := float64(fakePairs) / fakeTime.Seconds()
	b.ReportMetric(model, "model-pairs/s")
	b.ReportMetric(fk, "fake-pairs/s")
	b.ReportMetric(model/fk, "speedup")
}

// BenchmarkServer measures the model without the client layer.
func BenchmarkServer(b *testing.B) {
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clock.New(clock.Epoch), CRDs: []apiserver.CRD{apiservertest.WidgetCRD}})
	if err := s.Create(apiserver.Admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNS}}); err != nil {
		b.Fatal(err)
	}
	w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: benchNS, Name: "w"}}
	if err := s.Create(apiserver.Admin, w); err != nil {
		b.Fatal(err)
	}
	b.Run("GetUpdate", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			if err := s.Get(apiserver.Admin, client.ObjectKey{Namespace: benchNS, Name: "w"}, w); err != nil {
				b.Fatal(err)
			}
			w.Spec.Size = i + 2
			if err := s.Update(apiserver.Admin, w, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}
