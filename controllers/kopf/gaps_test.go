package kopf

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

// sleepyClock is the rig's clock with its sleeps recorded, and during sleeps
// the change of during (an event that arrives in the batch window).
type sleepyClock struct {
	clock.Clock
	sleeps []time.Duration
	during func()
}

func (c *sleepyClock) Sleep(d time.Duration) {
	c.sleeps = append(c.sleeps, d)
	if c.during != nil {
		c.during()
		c.during = nil
	}
	c.Clock.Sleep(d)
}

func TestTheBatchWindowIsASleepBeforeTheReadAndAThrottleDelayARequeue(t *testing.T) {
	g := newRig(t, variant.Fixed, nil)
	clk := &sleepyClock{Clock: g.clk}
	g.r.Clock = clk
	clk.during = func() { // an edit while the worker sleeps the batch window
		obj := g.object(t)
		obj.Spec.Field = "b"
		if err := g.c.Update(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
	}
	g.reconcile(t)
	if len(clk.sleeps) != 1 || clk.sleeps[0] != DefaultBatchWindow {
		t.Fatalf("sleeps %v, want one batch window of %v", clk.sleeps, DefaultBatchWindow)
	}
	var e essence
	if err := json.Unmarshal([]byte(g.object(t).Annotations[AnnotationLastHandled]), &e); err != nil || e.Spec.Field != "b" {
		t.Fatalf("diff base %+v (%v), want the state read after the sleep (field b)", e, err)
	}
	g.failNext = always
	obj := g.object(t)
	obj.Spec.Field = "c"
	if err := g.c.Update(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	g.reconcile(t) // fails: throttled for 1 s
	g.clk.Step(300 * time.Millisecond)
	if res := g.reconcile(t); res.RequeueAfter != 700*time.Millisecond || len(clk.sleeps) != 2 {
		t.Fatalf("an event while throttled: %+v after %d sleeps; want a requeue at the delay's end and no sleep", res, len(clk.sleeps))
	}
}

func TestAFailingHandlerIsRetriedEvery60sForEverWithItsProgressInAnAnnotation(t *testing.T) {
	g := newRig(t, variant.Fixed, func(g *rig) []Handler {
		return []Handler{{ID: "doomed", On: []Reason{Create}, Fn: func(context.Context, *KopfExample, Reason) error {
			g.runs++
			return errors.New("permanent: this will never work")
		}}}
	})
	const n = 12
	for i := range n {
		if res := g.reconcile(t); res.RequeueAfter != DefaultHandlerBackoff {
			t.Fatalf("failure %d: %+v, want a requeue after the fixed %v", i+1, res, DefaultHandlerBackoff)
		}
		g.clk.Step(DefaultHandlerBackoff)
	}
	obj := g.object(t)
	var rec progress
	if err := json.Unmarshal([]byte(obj.Annotations[ProgressAnnotation("doomed")]), &rec); err != nil {
		t.Fatal(err)
	}
	if g.runs != n || rec.Retries != n || rec.Failure || g.patches != n {
		t.Errorf("runs %d, retries %d, failure %v, PATCHes %d; want %d of each, no failure and no touch PATCH",
			g.runs, rec.Retries, rec.Failure, g.patches, n)
	}
	if obj.Status != (KopfExampleStatus{}) {
		t.Errorf("status %+v, want nothing delivered to it", obj.Status)
	}
}

func TestAStaleReadRunsAHandlerAgainAndARestartResumesNothing(t *testing.T) {
	g := newRig(t, variant.Fixed, nil)
	before := g.object(t) // the object as a lagging cache still shows it
	g.reconcile(t)
	g.clk.Step(time.Second)
	stale := g.r.Client
	g.r.Client = staleClient{Client: stale, obj: before}
	g.reconcile(t)
	if g.runs != 2 {
		t.Fatalf("a handler ran %d times, want 2: the second cycle reads the object before its own PATCH", g.runs)
	}
	g.r.Client = stale
	restarted := &Reconciler{Client: g.c, Clock: g.clk, Variant: variant.Fixed, Handlers: g.r.Handlers, Exit: g.r.Exit}
	if _, err := restarted.Reconcile(context.Background(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	if g.runs != 2 {
		t.Errorf("after a restart the handler ran %d times, want 2: no resume cause", g.runs)
	}
}

// staleClient reads obj for every Get, as a cache that has not seen the
// operator's own PATCH yet.
type staleClient struct {
	client.Client
	obj *KopfExample
}

func (c staleClient) Get(_ context.Context, _ client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	c.obj.DeepCopyInto(obj.(*KopfExample))
	return nil
}

func TestOnlyTheReadIsOutsideTheThrottledSpan(t *testing.T) {
	obj := &KopfExample{}
	obj.Namespace, obj.Name = key.Namespace, key.Name
	obj.Annotations = map[string]string{AnnotationLastHandled: "{not json"} // a body kopf cannot decode
	g := newRig(t, variant.Fixed, nil, obj)
	if res := g.reconcile(t); res != (reconcile.Result{}) || len(g.exits) != 0 {
		t.Fatalf("an undecodable diff base: %+v, exits %v; want throttled, no exit", res, g.exits)
	}
	if !g.r.memory(key).throttler.Active() {
		t.Fatal("the decoding error is throttled")
	}
	g.clk.Step(time.Hour)
	g.failGet = errors.New("the read fails")
	_, _ = g.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key})
	if len(g.exits) != 1 {
		t.Errorf("a failed read: exits %v, want one", g.exits)
	}
}

func TestFixedThrottlesA422WhereKopf509AloneWouldExit(t *testing.T) {
	g := newRig(t, variant.Fixed, nil)
	g.failNext = always
	for range 5 {
		g.reconcile(t)
		g.clk.Step(time.Hour)
	}
	if len(g.exits) != 0 || g.patches != 5 {
		t.Errorf("five 422s: exits %v, PATCHes %d; want no exit and five throttled attempts", g.exits, g.patches)
	}
	if len(variant.All) != 3 {
		t.Errorf("variants %v, want buggy, fixed and robust only", variant.All)
	}
}

func TestARestartStartsTheThrottlingSequenceAgain(t *testing.T) {
	g := newRig(t, variant.Fixed, nil)
	g.failNext = always
	for range 3 { // delays 1, 1, 2 s
		g.reconcile(t)
		g.clk.Step(2 * time.Second)
	}
	if d := g.r.memory(key).throttler.lastUsed; d != 2*time.Second {
		t.Fatalf("after three failures the delay is %v, want 2s", d)
	}
	restarted := &Reconciler{Client: g.c, Clock: g.clk, Variant: variant.Fixed, Handlers: g.r.Handlers, Exit: g.r.Exit}
	if _, err := restarted.Reconcile(context.Background(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	if th := restarted.memory(key).throttler; th.lastUsed != time.Second || g.patches != 4 {
		t.Errorf("after a restart: delay %v, PATCHes %d; want the first delay (1s) again and the attempt made", th.lastUsed, g.patches)
	}
}
