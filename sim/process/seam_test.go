package process

import (
	"context"
	"reflect"
	"runtime/debug"
	"sync"
	"testing"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// The simulator hosts controller-runtime's internal controller through fields
// of a version it was written against (host.go). This test fails loudly when
// an upgrade moves one, naming it, before any world runs on a broken seam.
func TestTheSeamMatchesControllerRuntime(t *testing.T) {
	const pinned = "v0.25.2"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "sigs.k8s.io/controller-runtime" && m.Version != pinned && m.Replace == nil {
				t.Errorf("controller-runtime is %s; host.go was checked against %s: read pkg/internal/controller/controller.go again, then update this pin", m.Version, pinned)
			}
		}
	}
	c, err := controller.NewUnmanaged("seam", controller.Options{
		Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeOf(c)
	if got := typ.Elem().PkgPath() + "." + typ.Elem().Name(); got != hostedControllerType {
		t.Fatalf("controller.New builds %s, the simulator hosts %s", got, hostedControllerType)
	}
	h := &hosted{ctrl: c, v: reflect.ValueOf(c).Elem()}
	for name, want := range map[string]reflect.Type{ // lint:order-independent each field is checked alone
		"Name":                        reflect.TypeFor[string](),
		"Do":                          reflect.TypeFor[reconcile.Reconciler](),
		"RecoverPanic":                reflect.TypeFor[*bool](),
		"MaxConcurrentReconciles":     reflect.TypeFor[int](),
		"NewQueue":                    reflect.TypeFor[func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]](),
		"RateLimiter":                 reflect.TypeFor[workqueue.TypedRateLimiter[reconcile.Request]](),
		"Queue":                       reflect.TypeFor[priorityqueue.PriorityQueue[reconcile.Request]](),
		"didStartEventSourcesOnce":    reflect.TypeFor[sync.Once](),
		"startWatches":                reflect.TypeFor[[]source.TypedSource[reconcile.Request]](),
		"startedEventSourcesAndQueue": reflect.TypeFor[bool](),
		"mu":                          reflect.TypeFor[sync.Mutex](),
	} {
		if _, err := h.field(name, want); err != nil {
			t.Error(err)
		}
	}
	// A Watch before the sources start is kept in startWatches, where the
	// simulator takes it from (a later Watch too: startedEventSourcesAndQueue
	// stays false).
	if err := c.Watch(source.Func(func(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error { return nil })); err != nil {
		t.Fatal(err)
	}
	w, _ := h.field("startWatches", nil)
	if w.Len() != 1 {
		t.Errorf("Watch left %d sources in startWatches, want 1", w.Len())
	}
	// client-go's MaxOf limiter keeps its limiters in a field the simulator
	// reads to move the token bucket to virtual time.
	if _, err := virtualRateLimiter(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request](), nil); err != nil {
		t.Error(err)
	}
}
