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
