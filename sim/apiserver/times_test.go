package apiserver_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// This file pins, one test per write path, that what the server stores (and so
// what every read, response and watch event returns) is what a real server returns:
// the object after a JSON round trip, metav1.Time in RFC 3339 seconds and
// metav1.MicroTime in microseconds.

// odd is an instant with nanoseconds: 1.234567891s after the epoch.
var odd = clock.Epoch.Add(1234567891 * time.Nanosecond)

var (
	oddSeconds = clock.Epoch.Add(time.Second)                            // odd as metav1.Time serializes it
	oddMicros  = clock.Epoch.Add(1234567 * time.Microsecond)             // odd as metav1.MicroTime serializes it
	oddRFC3339 = odd.UTC().Format("2006-01-02T15:04:05.999999999Z07:00") // with every nanosecond
)

// wantWire fails unless obj equals its own JSON round trip (what a real client
// decodes from a real server's answer).
func wantWire(t *testing.T, what string, obj client.Object) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	back := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
	if err := json.Unmarshal(data, back); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(obj, back) {
		t.Errorf("%s: the stored object is not its serialized form:\n  stored: %+v\n  wire:   %+v", what, obj, back)
	}
}

// wantStored checks obj (a response), the stored object and the newest watch event
// against the serialized form, and returns the stored object.
func wantStored[T client.Object](t *testing.T, w *world, what string, obj T) T {
	t.Helper()
	wantWire(t, what+" (response)", obj)
	got := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(T)
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(obj), got))
	wantWire(t, what+" (read)", got)
	log := w.s.Log()
	wantWire(t, what+" (watch event)", log[len(log)-1].Object)
	return got
}

func wantTime(t *testing.T, what string, got *metav1.Time, want time.Time) {
	t.Helper()
	if got == nil || !got.Time.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func wantMicro(t *testing.T, what string, got *metav1.MicroTime, want time.Time) {
	t.Helper()
	if got == nil || !got.Time.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func lease(name string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func TestTimesCreate(t *testing.T) {
	w := newWorld(t)
	w.clock.Step(1500 * time.Millisecond)
	l := lease("a")
	l.Spec.AcquireTime = &metav1.MicroTime{Time: odd}
	l.CreationTimestamp = metav1.NewTime(odd) // the server sets its own
	w.must(w.s.Create(admin, l))
	got := wantStored(t, w, "create", l)
	wantMicro(t, "spec.acquireTime", got.Spec.AcquireTime, oddMicros)
	wantTime(t, "creationTimestamp", &got.CreationTimestamp, clock.Epoch.Add(time.Second))
}

func TestTimesUpdate(t *testing.T) {
	w := newWorld(t)
	l := lease("a")
	w.must(w.s.Create(admin, l))
	l.Spec.RenewTime = &metav1.MicroTime{Time: odd}
	w.must(w.s.Update(admin, l, ""))
	got := wantStored(t, w, "update", l)
	wantMicro(t, "spec.renewTime", got.Spec.RenewTime, oddMicros)
}

func TestTimesCreateOnUpdate(t *testing.T) {
	w := newWorld(t)
	l := lease("a")
	l.Spec.RenewTime = &metav1.MicroTime{Time: odd}
	w.must(w.s.Update(admin, l, ""))
	got := wantStored(t, w, "create on update", l)
	wantMicro(t, "spec.renewTime", got.Spec.RenewTime, oddMicros)
}

func TestTimesStatusUpdate(t *testing.T) {
	w := newWorld(t)
	p := pod("p")
	w.must(w.s.Create(admin, p))
	p.Status.StartTime = &metav1.Time{Time: odd}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(odd)}}
	w.must(w.s.Update(admin, p, "status"))
	got := wantStored(t, w, "status update", p)
	wantTime(t, "status.startTime", got.Status.StartTime, oddSeconds)
	wantTime(t, "status.conditions[0].lastTransitionTime", &got.Status.Conditions[0].LastTransitionTime, oddSeconds)
}

// Patches are JSON: a metav1.Time with nanoseconds in a patch decodes (RFC 3339
// parsing accepts a fraction) and is stored in seconds. (A metav1.MicroTime must
// have exactly six fractional digits to decode at all.)
func TestTimesPatch(t *testing.T) {
	for _, tc := range []struct {
		pt    types.PatchType
		patch string
	}{
		{types.MergePatchType, `{"lastTimestamp":%q}`},
		{types.StrategicMergePatchType, `{"lastTimestamp":%q}`},
		{types.JSONPatchType, `[{"op":"replace","path":"/lastTimestamp","value":%q}]`},
	} {
		t.Run(string(tc.pt), func(t *testing.T) {
			w := newWorld(t)
			ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "e"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p"}}
			w.must(w.s.Create(admin, ev))
			w.must(w.s.Patch(admin, ev, tc.pt, fmt.Appendf(nil, tc.patch, oddRFC3339), ""))
			got := wantStored(t, w, "patch", ev)
			wantTime(t, "lastTimestamp", &got.LastTimestamp, oddSeconds)
		})
	}
}

func TestTimesStatusPatch(t *testing.T) {
	w := newWorld(t)
	p := pod("p")
	w.must(w.s.Create(admin, p))
	w.must(w.s.Patch(admin, p, types.MergePatchType, fmt.Appendf(nil, `{"status":{"startTime":%q}}`, oddRFC3339), "status"))
	got := wantStored(t, w, "status patch", p)
	wantTime(t, "status.startTime", got.Status.StartTime, oddSeconds)
}

// A write whose only change is below the serialized precision is the same object
// again: a real server compares the serialized bytes and writes nothing.
func TestTimesSubSecondChangeIsNoOp(t *testing.T) {
	w := newWorld(t)
	l := lease("a")
	l.Spec.RenewTime = &metav1.MicroTime{Time: odd}
	w.must(w.s.Create(admin, l))
	rv := w.s.ResourceVersion()
	l.Spec.RenewTime = &metav1.MicroTime{Time: odd.Add(100 * time.Nanosecond)} // same microsecond
	w.must(w.s.Update(admin, l, ""))
	w.must(w.s.Patch(admin, l, types.MergePatchType,
		fmt.Appendf(nil, `{"spec":{"renewTime":%q}}`, odd.UTC().Format(metav1.RFC3339Micro)), ""))
	if got := w.s.ResourceVersion(); got != rv {
		t.Errorf("an update and a patch that change a MicroTime within its microsecond wrote resourceVersion %d", got)
	}
	if l.ResourceVersion != fmt.Sprint(rv) {
		t.Errorf("the no-op answer has resourceVersion %s, want the stored %d", l.ResourceVersion, rv)
	}
	p := pod("p")
	w.must(w.s.Create(admin, p))
	p.Status.StartTime = &metav1.Time{Time: odd}
	w.must(w.s.Update(admin, p, "status"))
	rv = w.s.ResourceVersion()
	p.Status.StartTime = &metav1.Time{Time: odd.Add(500 * time.Millisecond)} // same second
	w.must(w.s.Update(admin, p, "status"))
	if got := w.s.ResourceVersion(); got != rv {
		t.Errorf("a status update that changes a Time within its second wrote resourceVersion %d", got)
	}
	if p.ResourceVersion != fmt.Sprint(rv) {
		t.Errorf("the no-op answer has resourceVersion %s, want the stored %d", p.ResourceVersion, rv)
	}
}

func TestTimesDeletionTimestamp(t *testing.T) {
	w := newWorld(t)
	c := cm("a")
	c.Finalizers = []string{"test/hold"}
	w.must(w.s.Create(admin, c))
	w.clock.Step(2700 * time.Millisecond)
	w.must(w.s.Delete(admin, c, nil))
	got := wantStored(t, w, "marked deleting", cm("a"))
	wantTime(t, "deletionTimestamp", got.DeletionTimestamp, clock.Epoch.Add(2*time.Second))

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}
	w.must(w.s.Create(admin, ns))
	w.clock.Step(400 * time.Millisecond) // 3.1s
	w.must(w.s.Delete(admin, ns, nil))
	gotNS := wantStored(t, w, "namespace terminating", ns)
	wantTime(t, "namespace deletionTimestamp", gotNS.DeletionTimestamp, clock.Epoch.Add(3*time.Second))
}

// Removing the last finalizer of a deleting object deletes it: the Deleted event
// and the response carry serialized times too.
func TestTimesDeleteDuringUpdate(t *testing.T) {
	w := newWorld(t)
	l := lease("a")
	l.Finalizers = []string{"test/hold"}
	w.must(w.s.Create(admin, l))
	w.must(w.s.Delete(admin, l, nil))
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(l), l))
	l.Finalizers = nil
	l.Spec.RenewTime = &metav1.MicroTime{Time: odd}
	w.must(w.s.Update(admin, l, ""))
	wantWire(t, "response", l)
	log := w.s.Log()
	last := log[len(log)-1]
	if last.Type != watch.Deleted {
		t.Fatalf("the update must delete the object, got a %s event", last.Type)
	}
	wantWire(t, "Deleted event", last.Object)
}

// Client-supplied managedFields are never stored (the model keeps none), so they
// cannot carry unserialized times.
func TestTimesManagedFieldsAreNotStored(t *testing.T) {
	w := newWorld(t)
	l := lease("a")
	mf := []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{Time: odd}}}
	l.ManagedFields = mf
	w.must(w.s.Create(admin, l))
	l.ManagedFields = mf
	w.must(w.s.Update(admin, l, ""))
	got := wantStored(t, w, "update with managedFields", l)
	if len(got.ManagedFields) != 0 {
		t.Errorf("managedFields stored: %v", got.ManagedFields)
	}
}

func TestTimesEvents(t *testing.T) {
	w := newWorld(t)
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "ns", Name: "e"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p"},
		FirstTimestamp: metav1.NewTime(odd), LastTimestamp: metav1.NewTime(odd),
		EventTime: metav1.NewMicroTime(odd),
		Series:    &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(odd)},
	}
	w.must(w.s.Create(admin, ev))
	got := wantStored(t, w, "core/v1 Event", ev)
	wantTime(t, "firstTimestamp", &got.FirstTimestamp, oddSeconds)
	wantTime(t, "lastTimestamp", &got.LastTimestamp, oddSeconds)
	wantMicro(t, "eventTime", &got.EventTime, oddMicros)
	wantMicro(t, "series.lastObservedTime", &got.Series.LastObservedTime, oddMicros)

	got.Series.LastObservedTime = metav1.NewMicroTime(odd.Add(time.Second))
	w.must(w.s.Update(admin, got, ""))
	got = wantStored(t, w, "core/v1 Event update", got)
	wantMicro(t, "series.lastObservedTime after update", &got.Series.LastObservedTime, oddMicros.Add(time.Second))

	ev2 := &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "e2"},
		EventTime:  metav1.NewMicroTime(odd), DeprecatedFirstTimestamp: metav1.NewTime(odd),
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p"},
		Series:    &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(odd)},
		Action:    "a", Reason: "r", ReportingController: "c", ReportingInstance: "i", Type: "Normal",
	}
	w.must(w.s.Create(admin, ev2))
	got2 := wantStored(t, w, "events.k8s.io/v1 Event", ev2)
	wantMicro(t, "eventTime", &got2.EventTime, oddMicros)
	wantTime(t, "deprecatedFirstTimestamp", &got2.DeprecatedFirstTimestamp, oddSeconds)
	wantMicro(t, "series.lastObservedTime", &got2.Series.LastObservedTime, oddMicros)
}
