package kopf

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

var epoch = time.Date(2020, 9, 4, 0, 0, 0, 0, time.UTC)

var key = types.NamespacedName{Namespace: "default", Name: "x"}

// invalid is the 422 of issue nolar/kopf#1087: annotations over 256 KiB.
func invalid() error {
	return apierrors.NewInvalid(schema.GroupKind{Group: GroupVersion.Group, Kind: "KopfExample"}, key.Name,
		field.ErrorList{field.TooLong(field.NewPath("metadata", "annotations"), "", 262144)})
}

// rig is a reconciler on controller-runtime's fake client, a fake clock, and
// counters of what it did.
type rig struct {
	r        *Reconciler
	c        client.Client
	clk      *clocktesting.FakeClock
	patches  int
	runs     int
	exits    []int
	failNext func() bool // whether the next framework PATCH fails with 422
	failGet  error
}

func newRig(t *testing.T, v variant.Variant, handlers func(*rig) []Handler, objs ...client.Object) *rig {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if len(objs) == 0 {
		objs = []client.Object{&KopfExample{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Spec: KopfExampleSpec{Field: "a"}}}
	}
	g := &rig{clk: clocktesting.NewFakeClock(epoch), failNext: func() bool { return false }}
	g.c = fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&KopfExample{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
				if g.failGet != nil {
					return g.failGet
				}
				return c.Get(ctx, k, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
				g.patches++
				if g.failNext() {
					return invalid()
				}
				return c.Patch(ctx, obj, p, opts...)
			},
		}).Build()
	if handlers == nil {
		handlers = func(g *rig) []Handler {
			return []Handler{{ID: "count", On: []Reason{Create, Update}, Fn: func(context.Context, *KopfExample, Reason) error {
				g.runs++
				return nil
			}}}
		}
	}
	g.r = &Reconciler{Client: g.c, Clock: g.clk, Variant: v, Exit: func(code int) { g.exits = append(g.exits, code) }}
	g.r.Handlers = handlers(g)
	return g
}

func (g *rig) reconcile(t *testing.T) reconcile.Result {
	t.Helper()
	res, err := g.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key})
	if err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return res
}

func (g *rig) object(t *testing.T) *KopfExample {
	t.Helper()
	var obj KopfExample
	if err := g.c.Get(context.Background(), key, &obj); err != nil {
		t.Fatal(err)
	}
	return &obj
}

func always() bool { return true }

// kopf's throttler (throttlers.py): next(source_of_delays, last_used_delay).
func TestThrottlerFollowsKopfsDelaysThenRepeatsTheLast(t *testing.T) {
	var th Throttler
	var got []time.Duration
	for range len(DefaultErrorDelays) + 2 {
		d, ok := th.Fail(epoch, DefaultErrorDelays)
		if !ok {
			t.Fatal("throttling must stay on while errors continue")
		}
		got = append(got, d/time.Second)
	}
	want := []time.Duration{1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 610, 610}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("delay %d: got %vs, want %vs (all: %v)", i, got[i], want[i], got)
		}
	}
	if !th.ActiveUntil.Equal(epoch.Add(610 * time.Second)) {
		t.Errorf("active_until = %v, want now+610s", th.ActiveUntil)
	}
}

func TestThrottlerRestartsTheSequenceAfterASuccess(t *testing.T) {
	var th Throttler
	th.Fail(epoch, DefaultErrorDelays)
	th.Fail(epoch, DefaultErrorDelays)
	th.Fail(epoch, DefaultErrorDelays) // 2s
	th.Over()
	th.Succeed()
	if d, _ := th.Fail(epoch, DefaultErrorDelays); d != time.Second {
		t.Errorf("after a success the first delay is 1s again, got %v", d)
	}
}

func TestThrottlingIsDisabledByAnEmptyListOfDelays(t *testing.T) {
	var th Throttler
	if d, ok := th.Fail(epoch, []time.Duration{}); ok || th.Active() {
		t.Errorf("error_delays=[] must not throttle, got %v active=%v", d, th.Active())
	}
}

func TestACycleStoresTheDiffBaseAndPurgesProgressSoTheNextEventIsANoop(t *testing.T) {
	g := newRig(t, variant.Buggy, nil)
	g.reconcile(t)
	obj := g.object(t)
	if got, want := obj.Annotations[AnnotationLastHandled], essenceOf(obj); got != want {
		t.Errorf("last-handled-configuration = %q, want the essence %q", got, want)
	}
	if _, ok := obj.Annotations[ProgressAnnotation("count")]; ok {
		t.Error("the progress of a finished cause is purged")
	}
	g.reconcile(t)
	if g.runs != 1 || g.patches != 1 {
		t.Errorf("an event that changes nothing kopf diffs is a NOOP: runs=%d patches=%d, want 1 and 1", g.runs, g.patches)
	}
	obj.Spec.Field = "b"
	if err := g.c.Update(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	g.reconcile(t)
	if g.runs != 2 {
		t.Errorf("a spec change is an update cause: runs=%d, want 2", g.runs)
	}
}

func TestTheAsapLifecycleRunsOneHandlerPerCycleAndStoresProgress(t *testing.T) {
	var order []string
	g := newRig(t, variant.Buggy, func(*rig) []Handler {
		h := func(id string) Handler {
			return Handler{ID: id, On: []Reason{Create}, Fn: func(context.Context, *KopfExample, Reason) error {
				order = append(order, id)
				return nil
			}}
		}
		return []Handler{h("first"), h("second")}
	})
	g.reconcile(t)
	obj := g.object(t)
	var rec progress
	if err := json.Unmarshal([]byte(obj.Annotations[ProgressAnnotation("first")]), &rec); err != nil || !rec.Success || rec.Purpose != Create {
		t.Fatalf("progress of first = %+v (%v), want a successful create record", rec, err)
	}
	if _, ok := obj.Annotations[AnnotationLastHandled]; ok {
		t.Fatal("the diff base is stored only when every handler is done")
	}
	g.reconcile(t) // the event of the progress PATCH
	if len(order) != 2 || order[0] != "first" || order[1] != "second" {
		t.Fatalf("handlers ran %v, want [first second] over two cycles", order)
	}
	if _, ok := g.object(t).Annotations[AnnotationLastHandled]; !ok {
		t.Error("after the last handler the diff base is stored")
	}
}

func TestAFailedHandlerIsRetriedAfterItsBackoff(t *testing.T) {
	g := newRig(t, variant.Fixed, func(g *rig) []Handler {
		return []Handler{{ID: "flaky", On: []Reason{Create}, Fn: func(context.Context, *KopfExample, Reason) error {
			g.runs++
			if g.runs == 1 {
				return errors.New("not yet")
			}
			return nil
		}}}
	})
	if res := g.reconcile(t); res.RequeueAfter != DefaultHandlerBackoff {
		t.Fatalf("a failed handler is retried after %v, got %+v", DefaultHandlerBackoff, res)
	}
	var rec progress
	_ = json.Unmarshal([]byte(g.object(t).Annotations[ProgressAnnotation("flaky")]), &rec)
	if rec.Retries != 1 || rec.Message != "not yet" {
		t.Errorf("progress = %+v, want retries 1 and the error message", rec)
	}
	g.clk.Step(time.Second)
	g.reconcile(t) // an event before the backoff: the handler is not due
	if g.runs != 1 {
		t.Fatalf("handler ran %d times before its backoff, want 1", g.runs)
	}
	g.clk.Step(DefaultHandlerBackoff)
	g.reconcile(t)
	if g.runs != 2 {
		t.Errorf("handler ran %d times after its backoff, want 2", g.runs)
	}
}

func TestDeleteHandlersNeedAFinalizerWhichIsAddedInACycleOfItsOwn(t *testing.T) {
	deleted := 0
	g := newRig(t, variant.Fixed, func(g *rig) []Handler {
		return []Handler{
			{ID: "create", On: []Reason{Create}, Fn: func(context.Context, *KopfExample, Reason) error { g.runs++; return nil }},
			{ID: "delete", On: []Reason{Delete}, Fn: func(context.Context, *KopfExample, Reason) error { deleted++; return nil }},
		}
	})
	g.reconcile(t)
	if obj := g.object(t); len(obj.Finalizers) != 1 || obj.Finalizers[0] != Finalizer || g.runs != 0 {
		t.Fatalf("first cycle: finalizers %v, create runs %d; want only the finalizer added", obj.Finalizers, g.runs)
	}
	g.reconcile(t)
	if g.runs != 1 {
		t.Fatalf("second cycle runs the create handler, runs=%d", g.runs)
	}
	if err := g.c.Delete(context.Background(), g.object(t)); err != nil {
		t.Fatal(err)
	}
	g.reconcile(t)
	if deleted != 1 {
		t.Fatalf("the delete handler ran %d times, want 1", deleted)
	}
	var obj KopfExample
	if err := g.c.Get(context.Background(), key, &obj); !apierrors.IsNotFound(err) {
		t.Errorf("after the delete handler the finalizer is removed and the object goes; got %v %v", err, obj.Finalizers)
	}
}

// Seed 3 (b): the 0.27 worker logs and ignores the exception; the progress is
// never stored, so every event handles the object again.
func TestBuggySwallowsThe422AndHandlesAgainOnEveryEvent(t *testing.T) {
	g := newRig(t, variant.Buggy, nil)
	g.failNext = always
	for range 5 {
		if res := g.reconcile(t); res != (reconcile.Result{}) {
			t.Fatalf("buggy neither requeues nor fails: %+v", res)
		}
	}
	if g.runs != 5 || g.patches != 5 {
		t.Errorf("five events: handler runs %d and PATCHes %d, want 5 and 5", g.runs, g.patches)
	}
	if len(g.exits) != 0 {
		t.Error("buggy never exits")
	}
}

// Seed 3 (d)(2): nolar/kopf #510.
func TestFixedSkipsEventsWhileThrottledAndHandlesTheLatestWhenTheDelayEnds(t *testing.T) {
	g := newRig(t, variant.Fixed, nil)
	g.failNext = always
	start := g.clk.Now()
	if res := g.reconcile(t); res != (reconcile.Result{}) {
		t.Fatalf("after an error kopf waits for the next event, no timer: %+v", res)
	}
	attempt1 := g.clk.Now()
	g.clk.Step(400 * time.Millisecond)
	if res := g.reconcile(t); res.RequeueAfter != 600*time.Millisecond {
		t.Fatalf("an event during throttling is deferred to its end: %+v", res)
	}
	if g.patches != 1 || g.runs != 1 {
		t.Fatalf("throttled: nothing runs, got patches=%d runs=%d", g.patches, g.runs)
	}
	g.clk.Step(600 * time.Millisecond)
	g.reconcile(t)
	if g.patches != 2 || !g.clk.Now().Equal(attempt1.Add(time.Second)) {
		t.Fatalf("the deferred event is handled right when the 1s delay ends (no batch window): patches=%d at %v", g.patches, g.clk.Now().Sub(start))
	}
	// The second delay is 1s again, the third 2s.
	g.clk.Step(time.Second)
	g.reconcile(t)
	if g.patches != 3 {
		t.Fatal("an event after the second 1s delay is handled")
	}
	g.clk.Step(time.Second)
	if res := g.reconcile(t); res.RequeueAfter != time.Second || g.patches != 3 {
		t.Fatalf("the third delay is 2s: %+v patches=%d", res, g.patches)
	}
}

// Seed 3 (d)(1): nolar/kopf #509.
func TestFixedExitsOnAnUnrecoverableErrorOutsideTheThrottledSpan(t *testing.T) {
	g := newRig(t, variant.Fixed, nil)
	g.failGet = apierrors.NewInternalError(errors.New("cannot decode the event"))
	if _, err := g.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key}); err == nil {
		t.Error("the error is returned after Exit (when Exit returns, as in this test)")
	}
	if len(g.exits) != 1 || g.exits[0] != 1 {
		t.Errorf("fixed exits with status 1, got exits %v", g.exits)
	}
	for _, v := range []variant.Variant{variant.Buggy, variant.Robust} {
		g := newRig(t, v, nil)
		g.failGet = apierrors.NewInternalError(errors.New("cannot decode the event"))
		_, _ = g.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key})
		if len(g.exits) != 0 {
			t.Errorf("%s does not exit", v)
		}
	}
}

func TestRobustBacksOffPerObjectAndDefersEventsToTheBackoff(t *testing.T) {
	g := newRig(t, variant.Robust, nil)
	g.failNext = always
	if res := g.reconcile(t); res.RequeueAfter != 5*time.Millisecond {
		t.Fatalf("first failure: retry after 5ms (client-go's item limiter), got %+v", res)
	}
	g.clk.Step(2 * time.Millisecond)
	if res := g.reconcile(t); res.RequeueAfter != 3*time.Millisecond || g.patches != 1 {
		t.Fatalf("an event during the backoff waits for it: %+v, patches=%d", res, g.patches)
	}
	g.clk.Step(3 * time.Millisecond)
	if res := g.reconcile(t); res.RequeueAfter != 10*time.Millisecond || g.patches != 2 {
		t.Fatalf("second failure: retry after 10ms, got %+v, patches=%d", res, g.patches)
	}
	if len(g.exits) != 0 {
		t.Error("robust never exits")
	}
}

func TestRobustDoesNotResetItsBackoffOnOneSuccess(t *testing.T) {
	g := newRig(t, variant.Robust, nil)
	n := 0
	g.failNext = func() bool { n++; return n%2 == 1 } // every other PATCH fails
	var waits []time.Duration
	for range 3 {
		res := g.reconcile(t) // fails
		waits = append(waits, res.RequeueAfter)
		g.clk.Step(res.RequeueAfter)
		g.reconcile(t) // succeeds
		obj := g.object(t)
		obj.Spec.Field += "x" // the next change
		if err := g.c.Update(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("backoffs under alternating failures: %v, want %v", waits, want)
		}
	}
}

func TestRobustStartsItsBackoffAgainTenMinutesAfterItEnded(t *testing.T) {
	g := newRig(t, variant.Robust, nil)
	fail := true
	g.failNext = func() bool { return fail }
	res := g.reconcile(t)
	g.clk.Step(res.RequeueAfter)
	res = g.reconcile(t)
	if res.RequeueAfter != 10*time.Millisecond {
		t.Fatalf("second failure waits 10ms, got %+v", res)
	}
	g.clk.Step(res.RequeueAfter)
	fail = false
	g.reconcile(t) // succeeds
	g.clk.Step(RobustResetAfter)
	obj := g.object(t)
	obj.Spec.Field = "changed"
	if err := g.c.Update(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	fail = true
	if res := g.reconcile(t); res.RequeueAfter != 5*time.Millisecond {
		t.Errorf("ten minutes after the backoff ended, a new failure starts at 5ms again, got %+v", res)
	}
}
