package check_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

const sec = time.Second

// reconciles makes reconcile/result step pairs of controller "bd" for object "/x",
// each reconcile taking 1µs.
func reconciles(results ...any) []trace.Step {
	var out []trace.Step
	for i := 0; i < len(results); i += 2 {
		at := results[i].(time.Duration)
		out = append(out,
			trace.Step{At: at, Controller: "bd", Worker: 1, Op: "reconcile", Object: "/x"},
			trace.Step{At: at + time.Microsecond, Controller: "bd", Worker: 1, Op: "result", Object: "/x", Result: results[i+1].(string)})
	}
	return out
}

func TestSettledBackoff(t *testing.T) {
	ms := time.Millisecond
	p := check.SettledBackoff{Controller: "bd", Object: "/x"}
	fixed := &check.Run{End: time.Hour, Steps: reconciles(
		0*sec, "error: no matches for kind", 2*time.Microsecond, "error: no matches for kind",
		5*ms+time.Microsecond, "error: no matches for kind", 25*ms+2*time.Microsecond, "error: no matches for kind", 65*ms, "ok")}
	if v := p.Check(fixed); !v.Holds {
		t.Errorf("one reconcile per backoff firing (5ms, then 20ms, then 40ms) after a first burst of two holds: %v", v)
	}
	early := &check.Run{End: time.Hour, Steps: reconciles(
		0*sec, "error: x", 2*time.Microsecond, "error: x", 4*ms, "error: x")}
	if v := p.Check(early); v.Holds {
		t.Error("a third reconcile before the first 5ms firing is due breaks the bound")
	}
	buggy := &check.Run{End: time.Hour, Steps: reconciles(
		0*sec, "error: a", 2*time.Microsecond, "error: b", 4*time.Microsecond, "error: b",
		5*sec, "error: a", 5*sec+2*time.Microsecond, "error: b", 5*sec+4*time.Microsecond, "error: b")}
	v := p.Check(buggy)
	if v.Holds || !strings.Contains(v.Detail, "failing reconcile 3 of /x started with 0 backoff firings due") {
		t.Errorf("bursts of three with no backoff between them are caught: %v", v)
	}
	afterHeal := &check.Run{End: time.Hour, HealAt: 10 * sec, Steps: reconciles(
		0*sec, "error: a", 20*sec, "error: a", 20*sec+2*time.Microsecond, "error: b", 20*sec+4*time.Microsecond, "error: b")}
	if v := p.Check(afterHeal); !v.Holds {
		t.Errorf("only the fault phase is judged: %v", v)
	}
	blocking := &check.Run{End: time.Hour, Steps: []trace.Step{
		{At: 0, Controller: "bd", Worker: 1, Op: "reconcile", Object: "/x"},
		{At: 30 * sec, Controller: "bd", Worker: 1, Op: "result", Object: "/x", Result: "error: timed out"},
		{At: 30 * sec, Controller: "bd", Worker: 1, Op: "reconcile", Object: "/x"},
		{At: 60 * sec, Controller: "bd", Worker: 1, Op: "result", Object: "/x", Result: "error: timed out"},
		{At: 60 * sec, Controller: "bd", Worker: 1, Op: "reconcile", Object: "/x"},
		{At: 90 * sec, Controller: "bd", Worker: 1, Op: "result", Object: "/x", Result: "error: timed out"},
	}}
	if v := p.Check(blocking); !v.Holds {
		t.Errorf("reconciles that block longer than the backoff consume the firing that landed meanwhile: one per firing: %v", v)
	}
}

// history makes a watch log of one ConfigMap whose "message" key changes at the
// given offsets.
func history(start time.Time, changes ...any) []apiserver.Event {
	var out []apiserver.Event
	for i := 0; i < len(changes); i += 2 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "x"}, Data: map[string]string{"message": changes[i+1].(string)}}
		out = append(out, apiserver.Event{Type: watch.Modified, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
			Object: cm, ResourceVersion: uint64(i + 1), At: start.Add(changes[i].(time.Duration))})
	}
	return out
}

func TestRootCauseVisible(t *testing.T) {
	start := clock.Epoch
	p := check.RootCauseVisible{
		GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Key: client.ObjectKey{Namespace: "ns", Name: "x"},
		Message:   func(o client.Object) string { return o.(*corev1.ConfigMap).Data["message"] },
		RootCause: "no matches for kind",
	}
	good := &check.Run{Start: start, End: 100 * sec, Log: history(start, 0*sec, "", 10*sec, "no matches for kind Foo", 12*sec, "being terminated", 13*sec, "no matches for kind Foo")}
	if v := p.Check(good); !v.Holds {
		t.Errorf("1s of 90s transient is fine: %v", v)
	}
	bad := &check.Run{Start: start, End: 100 * sec, Log: history(start, 10*sec, "no matches for kind Foo", 11*sec, "unable to create new content in namespace x because it is being terminated")}
	v := p.Check(bad)
	if v.Holds || !strings.Contains(v.Detail, "1.1%") || v.At != 11*sec {
		t.Errorf("the transient message shown 89 of 90 seconds is caught: %v", v)
	}
}

func TestBoundedRetryRate(t *testing.T) {
	kopf := func(i int) time.Duration {
		return check.KopfDelays[min(i, len(check.KopfDelays)-1)] * time.Second
	}
	p := check.BoundedRetryRate{Op: "patch", Object: "KopfExample ns/x", Envelope: kopf, Tolerance: 10 * time.Millisecond}
	steps := func(ats ...time.Duration) *check.Run {
		r := &check.Run{End: time.Hour}
		for _, a := range ats {
			r.Steps = append(r.Steps, trace.Step{At: a, Op: "patch", Object: "KopfExample ns/x", Result: "Invalid: ..."})
		}
		return r
	}
	if v := p.Check(steps(0, 1*sec, 2*sec, 4*sec, 7*sec, 12*sec)); !v.Holds {
		t.Errorf("kopf's delays 1,1,2,3,5 hold: %v", v)
	}
	if v := p.Check(steps(0, 1*sec, 1*sec+50*time.Millisecond)); v.Holds {
		t.Error("a retry 50ms after the previous one breaks the envelope")
	}
}

func TestTerminates(t *testing.T) {
	now := metav1.NewTime(clock.Epoch)
	nsGVK := corev1.SchemeGroupVersion.WithKind("Namespace")
	objs := map[schema.GroupVersionKind][]client.Object{}
	r := &check.Run{End: time.Hour, Kinds: []schema.GroupVersionKind{nsGVK},
		Objects: func(gvk schema.GroupVersionKind) []client.Object { return objs[gvk] }}
	objs[nsGVK] = []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "live"}}}
	if v := (check.Terminates{}).Check(r); !v.Holds {
		t.Errorf("nothing deleting: %v", v)
	}
	objs[nsGVK] = append(objs[nsGVK], &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stuck", DeletionTimestamp: &now, Finalizers: []string{"x/y"}}})
	if v := (check.Terminates{}).Check(r); v.Holds || !strings.Contains(v.Detail, "Namespace stuck (finalizers [x/y])") {
		t.Errorf("a stuck namespace is caught: %v", v)
	}
}

func TestAtMostOnce(t *testing.T) {
	effects := []string{"p/dev/v2", "p/prod/v2"}
	p := check.AtMostOnce{Effects: func(*check.Run) []string { return effects }}
	if v := p.Check(&check.Run{}); !v.Holds {
		t.Errorf("distinct effects: %v", v)
	}
	effects = append(effects, "p/prod/v2")
	if v := p.Check(&check.Run{}); v.Holds || !strings.Contains(v.Detail, "p/prod/v2 happened twice") {
		t.Errorf("a repeated effect is caught: %v", v)
	}
}

func TestConvergesAndQuiescent(t *testing.T) {
	desired := func(*check.Run) error { return nil }
	run := &check.Run{End: 10 * time.Minute, Steps: []trace.Step{
		{At: 30 * sec, Process: "op", Op: "update", Object: "ConfigMap ns/x"},
		{At: 9 * time.Minute, Process: "op", Op: "cached-get", Object: "ConfigMap ns/x"},
		{At: 9 * time.Minute, Process: "admin", Op: "update", Object: "ConfigMap ns/x"},
	}}
	if v := (check.Converges{Desired: desired, Window: 5 * time.Minute}).Check(run); !v.Holds {
		t.Errorf("reads and a user's writes at rest are fine: %v", v)
	}
	run.Steps = append(run.Steps, trace.Step{At: 9 * time.Minute, Process: "op", Controller: "c", Op: "update/status", Object: "ConfigMap ns/x"})
	if v := (check.Quiescent{Window: 5 * time.Minute}).Check(run); v.Holds || !strings.Contains(v.Detail, "1 writes") {
		t.Errorf("a controller's write at rest is churn: %v", v)
	}
}
