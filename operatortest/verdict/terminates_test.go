package verdict_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// deletionRun is a run whose Namespace "work" is made and deleted in turns
// (each deletion taking took), ending, at end, deleting since deletingSince
// when deletingSince >= 0.
func deletionRun(w *world.World, turns int, took, end, deletingSince time.Duration) (*check.Run, *verdict.Snapshot) {
	start := time.Unix(0, 0)
	gvk := corev1.SchemeGroupVersion.WithKind("Namespace")
	r := &check.Run{Start: start, End: end, HealAt: end / 2, Kinds: []schema.GroupVersionKind{gvk}}
	ns := func(turn int, deleting *time.Duration) *corev1.Namespace {
		o := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "work", UID: types.UID(rune('a' + turn))}}
		if deleting != nil {
			ts := metav1.NewTime(start.Add(*deleting))
			o.DeletionTimestamp = &ts
		}
		return o
	}
	add := func(typ watch.EventType, at time.Duration, o client.Object) {
		r.Log = append(r.Log, apiserver.Event{Type: typ, GVK: gvk, Object: o, ResourceVersion: uint64(len(r.Log) + 1), At: start.Add(at)})
	}
	for i := range turns {
		made, del := time.Duration(i)*20*time.Second, time.Duration(i)*20*time.Second+5*time.Second
		add(watch.Added, made, ns(i, nil))
		add(watch.Modified, del, ns(i, &del))
		add(watch.Deleted, del+took, ns(i, &del))
	}
	var last []client.Object
	if deletingSince >= 0 {
		made := deletingSince - time.Second
		add(watch.Added, made, ns(turns, nil))
		add(watch.Modified, deletingSince, ns(turns, &deletingSince))
		last = []client.Object{ns(turns, &deletingSince)}
	}
	r.Objects = func(schema.GroupVersionKind) []client.Object { return last }
	return r, verdict.SnapshotOf(w, r)
}

// terminates judges a deletion still in progress at the end against the
// fault-free runs: a namespace of an install-uninstall cycle that has been
// deleting for no longer than the fault-free run's deletions of it took is
// where the end fell in the cycle; one deleting for longer is stuck, and so
// is one the fault-free run never finished deleting.
func TestADeletionInProgressIsNotStuck(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	_, ref := deletionRun(w, 4, 8*time.Second, 2*time.Minute, -1)
	refs := []*verdict.Reference{{Seed: 1, Snap: ref}}
	r, got := deletionRun(w, 4, 8*time.Second, 2*time.Minute, 2*time.Minute-6*time.Second)
	if v := verdict.Terminates(w, refs, got, r); !v.Holds || !strings.Contains(v.Detail, "Namespace work (") {
		t.Errorf("deleting for 6 s where the fault-free deletions took 8 s: %+v, want it to hold with a note", v)
	} else {
		optest.Excused(t, v, verdict.DeletionInFlight)
	}
	r, got = deletionRun(w, 4, 8*time.Second, 2*time.Minute, 2*time.Minute-40*time.Second)
	if v := verdict.Terminates(w, refs, got, r); v.Holds || !strings.Contains(v.Detail, "Namespace work (") {
		t.Errorf("deleting for 40 s where the fault-free deletions took 8 s: %+v, want stuck", v)
	}
	_, never := deletionRun(w, 0, 0, 2*time.Minute, 30*time.Second)
	r, got = deletionRun(w, 0, 0, 2*time.Minute, 2*time.Minute-time.Second)
	if v := verdict.Terminates(w, []*verdict.Reference{{Seed: 1, Snap: never}}, got, r); v.Holds {
		t.Errorf("stuck in the fault-free run too: %+v, want stuck", v)
	}
}

// A pod still deleting at the end whose kill the kubelet has scheduled for
// after the end (the last of a chain of deletions that outlasts the heal
// budget) is in its grace period: terminates holds by stop-scheduled, with
// or without a fault-free run to compare with. The same pod with no stop
// scheduled after the end (its kill came, a finalizer holds it) is stuck.
func TestAPodWhoseKillIsScheduledAfterTheEndIsInItsGracePeriod(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	start := time.Unix(0, 0)
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	end := 6 * time.Minute
	run := func(due time.Duration, finalizers ...string) (*check.Run, *verdict.Snapshot) {
		deleting := metav1.NewTime(start.Add(end - time.Minute + 2*time.Minute)) // deleted a minute before the end, with a 2m grace
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "data", Name: "sessions-0", UID: "p", Finalizers: finalizers,
			DeletionTimestamp: &deleting, DeletionGracePeriodSeconds: ptr.To[int64](120)}}
		r := &check.Run{Start: start, End: end, HealAt: time.Minute, Kinds: []schema.GroupVersionKind{gvk},
			Log:     []apiserver.Event{{Type: watch.Added, GVK: gvk, Object: pod, ResourceVersion: 1, At: start.Add(end - time.Minute)}},
			Objects: func(schema.GroupVersionKind) []client.Object { return []client.Object{pod} }}
		if due > 0 {
			r.Scheduled = []check.Scheduled{{Process: "kubelet", Controller: "kubelet", Kind: "Pod", Key: "data/sessions-0", What: "its containers are killed (137) at its grace period's end", Due: due}}
		}
		return r, verdict.SnapshotOf(w, r)
	}
	r, got := run(end + time.Minute)
	if v := verdict.Terminates(w, nil, got, r); !v.Holds || !strings.Contains(v.Detail, "Pod data/sessions-0 (") {
		t.Errorf("a pod whose kill is due a minute after the end: %+v, want it to hold with a note", v)
	} else {
		optest.Excused(t, v, verdict.StopScheduled)
	}
	_, ref := run(end+time.Minute, "example.com/keep")
	r, got = run(end + time.Minute)
	if v := verdict.Terminates(w, []*verdict.Reference{{Seed: 1, Snap: ref}}, got, r); !v.Holds {
		t.Errorf("with a fault-free run to compare with: %+v, want it to hold", v)
	}
	for _, due := range []time.Duration{0, end} {
		r, got = run(due, "example.com/keep")
		if v := verdict.Terminates(w, nil, got, r); v.Holds || !strings.Contains(v.Detail, "Pod data/sessions-0 (") {
			t.Errorf("a pod held by a finalizer, its kill scheduled at %v (the end %v): %+v, want it stuck", due, end, v)
		}
	}
}
