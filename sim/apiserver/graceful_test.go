package apiserver_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// scheduledPod creates a pod bound to node-1 (as the scheduler's binding
// leaves it) and returns it as stored.
func (w *world) scheduledPod(name string, grace *int64, finalizers ...string) *corev1.Pod {
	w.t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Finalizers: finalizers},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}, TerminationGracePeriodSeconds: grace}}
	w.must(w.s.Create(admin, p))
	p.Spec.NodeName = "node-1"
	w.must(w.s.Update(admin, p, ""))
	return w.pod(name)
}

func (w *world) pod(name string) *corev1.Pod {
	w.t.Helper()
	p := &corev1.Pod{}
	w.must(w.s.Get(admin, client.ObjectKey{Namespace: "ns", Name: name}, p))
	return p
}

func (w *world) gone(name string) bool {
	err := w.s.Get(admin, client.ObjectKey{Namespace: "ns", Name: name}, &corev1.Pod{})
	if err != nil && !apierrors.IsNotFound(err) {
		w.t.Fatal(err)
	}
	return apierrors.IsNotFound(err)
}

func wantTerminating(t *testing.T, p *corev1.Pod, at time.Time, grace int64) {
	t.Helper()
	if p.DeletionTimestamp == nil || !p.DeletionTimestamp.Time.Equal(at) || p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != grace {
		t.Fatalf("deletionTimestamp %v, deletionGracePeriodSeconds %v; want %v and %d", p.DeletionTimestamp, ptr.Deref(p.DeletionGracePeriodSeconds, -99), at, grace)
	}
}

// A scheduled pod deleted without options stays Terminating for its
// terminationGracePeriodSeconds, defaulted to 30: deletionTimestamp is now +
// 30s, deletionGracePeriodSeconds 30, and the generation goes up by one.
func TestADeletedPodStaysTerminatingForItsDefaultGracePeriod(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", nil)
	if p.Spec.TerminationGracePeriodSeconds == nil || *p.Spec.TerminationGracePeriodSeconds != 30 {
		t.Fatalf("terminationGracePeriodSeconds %v, want the default 30", p.Spec.TerminationGracePeriodSeconds)
	}
	w.must(w.s.Delete(admin, p, nil))
	got := w.pod("web")
	wantTerminating(t, got, w.clock.Now().Truncate(time.Second).Add(30*time.Second), 30)
	if got.Generation != p.Generation+1 {
		t.Errorf("generation %d, want %d", got.Generation, p.Generation+1)
	}
}

// The delete option's gracePeriodSeconds comes before the pod's own.
func TestADeleteOptionsGracePeriodOverridesThePods(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", ptr.To[int64](60))
	w.must(w.s.Delete(admin, p, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](5)}))
	wantTerminating(t, w.pod("web"), w.clock.Now().Truncate(time.Second).Add(5*time.Second), 5)
}

// A delete with gracePeriodSeconds 0 (force) removes the pod at once, after
// writing its deletion: a watch sees it Modified with a deletionTimestamp
// and grace 0, then Deleted, as Store.Delete's update before the storage
// delete makes it.
func TestAForceDeletedPodGoesAtOnceAfterAModifiedEvent(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", nil)
	var got []apiserver.Event
	stop := w.s.Watcher().Watch(podGVK, func(e apiserver.Event) { got = append(got, e) })
	defer stop()
	w.must(w.s.Delete(admin, p, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))
	if !w.gone("web") {
		t.Fatal("the force-deleted pod is still there")
	}
	if len(got) != 2 || got[0].Type != watch.Modified || got[1].Type != watch.Deleted {
		t.Fatalf("events %v, want Modified then Deleted", eventTypes(got))
	}
	last := got[1].Object.(*corev1.Pod)
	if last.DeletionTimestamp == nil || ptr.Deref(last.DeletionGracePeriodSeconds, -1) != 0 {
		t.Errorf("the Deleted event's pod has deletionTimestamp %v, grace %v; want now and 0", last.DeletionTimestamp, last.DeletionGracePeriodSeconds)
	}
}

// A pod never scheduled (no spec.nodeName) has no kubelet to stop it: it goes at once.
func TestAnUnscheduledPodIsDeletedAtOnce(t *testing.T) {
	w := newWorld(t)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	w.must(w.s.Create(admin, p))
	w.must(w.s.Delete(admin, p, nil))
	if !w.gone("web") {
		t.Fatal("the unscheduled pod is still there")
	}
}

// A pod that has terminated (Succeeded or Failed) has nothing left to stop: it goes at once.
func TestATerminatedPodIsDeletedAtOnce(t *testing.T) {
	for _, phase := range []corev1.PodPhase{corev1.PodSucceeded, corev1.PodFailed} {
		w := newWorld(t)
		p := w.scheduledPod("job", nil)
		p.Status.Phase = phase
		w.must(w.s.Update(admin, p, "status"))
		w.must(w.s.Delete(admin, p, nil))
		if !w.gone("job") {
			t.Errorf("a %s pod is still there after its delete", phase)
		}
	}
}

// A second delete may shorten the grace period (the deletionTimestamp moves
// back by the difference) but not lengthen it (nothing is written).
func TestASecondDeleteShortensTheGracePeriodButNeverLengthensIt(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", nil)
	start := w.clock.Now().Truncate(time.Second)
	w.must(w.s.Delete(admin, p, nil))
	first := w.pod("web")
	w.clock.Step(4 * time.Second)
	w.must(w.s.Delete(admin, p, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](60)}))
	if again := w.pod("web"); again.ResourceVersion != first.ResourceVersion {
		t.Fatalf("a longer grace period was written: %v, %v", again.DeletionTimestamp, again.DeletionGracePeriodSeconds)
	}
	w.must(w.s.Delete(admin, p, nil))
	if again := w.pod("web"); again.ResourceVersion != first.ResourceVersion {
		t.Fatalf("a delete without options was written: %v, %v", again.DeletionTimestamp, again.DeletionGracePeriodSeconds)
	}
	w.must(w.s.Delete(admin, p, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](10)}))
	wantTerminating(t, w.pod("web"), start.Add(10*time.Second), 10)
}

// A shortened period that has run out already takes effect now with grace
// 1: the deletion stays graceful, and whoever stops the pod deletes it.
func TestAShortenedGracePeriodThatHasRunOutIsOneSecondFromNow(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", nil)
	w.must(w.s.Delete(admin, p, nil))
	w.clock.Step(20 * time.Second)
	w.must(w.s.Delete(admin, p, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](5)}))
	wantTerminating(t, w.pod("web"), w.clock.Now().Truncate(time.Second), 1)
}

// The kubelet's delete with grace 0 ends a graceful deletion: the pod goes.
func TestATerminatingPodGoesWhenDeletedWithGraceZero(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", nil)
	w.must(w.s.Delete(admin, p, nil))
	w.must(w.s.Delete(admin, p, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0), Preconditions: &metav1.Preconditions{UID: &p.UID}}))
	if !w.gone("web") {
		t.Fatal("the pod is still there after its delete with grace 0")
	}
}

// A pod held by a finalizer stays after its delete with grace 0, and goes
// when its last finalizer is removed; one removed while the grace period
// still runs leaves the pod Terminating until its delete with grace 0.
func TestAFinalizerHoldsAPodUntilItsGraceZeroDelete(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", nil, "example.com/hold")
	w.must(w.s.Delete(admin, p, nil))
	got := w.pod("web")
	got.Finalizers = nil
	w.must(w.s.Update(admin, got, ""))
	if w.gone("web") {
		t.Fatal("removing the finalizer during the grace period removed the pod")
	}
	w.must(w.s.Delete(admin, p, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))
	if !w.gone("web") {
		t.Fatal("the pod is still there after its delete with grace 0")
	}

	q := w.scheduledPod("db", nil, "example.com/hold")
	w.must(w.s.Delete(admin, q, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))
	got = w.pod("db")
	wantTerminating(t, got, w.clock.Now().Truncate(time.Second), 0)
	got.Finalizers = nil
	w.must(w.s.Update(admin, got, ""))
	if !w.gone("db") {
		t.Fatal("removing the last finalizer of a pod deleted with grace 0 left it")
	}
}

var podGVK = corev1.SchemeGroupVersion.WithKind("Pod")

func eventTypes(es []apiserver.Event) []watch.EventType {
	var out []watch.EventType
	for _, e := range es {
		out = append(out, e.Type)
	}
	return out
}
