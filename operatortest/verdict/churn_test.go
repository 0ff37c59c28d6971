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
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Churn is counted both ways. The fault-free runs may lose the race between
// the operator's first write and the user's deletion (nothing made) and a
// faulted run win it: it makes the object (a finalizer's external record)
// and unmakes it once it sees the deletion. One such lifetime, deleted after
// the workload's deletion, is not churn, as one lifetime fewer is not. Two
// lifetimes are; so is one with no deletion by the user to race, and one of a
// generated name past the first of its prefix (a duplicate).
func TestALifetimeTheFaultFreeRunsLostTheRaceForIsNotChurn(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	const userDelete = 5 * time.Millisecond
	app := []optest.LogChange{{At: 0, Type: watch.Added, Name: "app", GenerateName: ""}, {At: userDelete, Type: watch.Deleted, Name: "app", GenerateName: ""}}
	ref := &verdict.Reference{Seed: 1, Snap: optest.ChurnRun(t, w, userDelete, app...)}
	refs := []*verdict.Reference{ref}
	life := func(name, gen string, made, unmade time.Duration) []optest.LogChange {
		return []optest.LogChange{{At: made, Type: watch.Added, Name: name, GenerateName: gen}, {At: unmade, Type: watch.Deleted, Name: name, GenerateName: gen}}
	}
	v := verdict.UpdateSummaries(w, refs, optest.ChurnRun(t, w, userDelete, append(app, life("record-app", "", time.Millisecond, 6*time.Millisecond)...)...), time.Minute)
	if !v.Holds || !strings.Contains(v.Detail, "ConfigMap team/record-app") {
		t.Errorf("one lifetime the fault-free run lost the race for: %+v, want no violation and a note naming it", v)
	}
	optest.Excused(t, v, verdict.UserDeletionRace)
	// The reverse direction holds too: the faulted run lost the race.
	won := &verdict.Reference{Seed: 1, Snap: optest.ChurnRun(t, w, userDelete, append(app, life("record-app", "", time.Millisecond, 6*time.Millisecond)...)...)}
	if v := verdict.UpdateSummaries(w, []*verdict.Reference{won}, optest.ChurnRun(t, w, userDelete, app...), time.Minute); !v.Holds || len(v.Excused) > 0 {
		t.Errorf("one lifetime fewer than the fault-free run: %+v, want no violation, and no excuse: fewer is no churn", v)
	}
	// The third side: the fault-free run made the object and the user
	// deleted it; the faulted operator, its cache behind, makes it once more
	// and unmakes it once it sees the owner go.
	made := &verdict.Reference{Seed: 1, Snap: optest.ChurnRun(t, w, userDelete, append(app, life("record-app", "", time.Millisecond, userDelete)...)...)}
	remade := append(append(app, life("record-app", "", time.Millisecond, userDelete)...), life("record-app", "", 6*time.Millisecond, 7*time.Millisecond)...)
	if v := verdict.UpdateSummaries(w, []*verdict.Reference{made}, optest.ChurnRun(t, w, userDelete, remade...), time.Minute); !v.Holds {
		t.Errorf("one lifetime more than the fault-free run's, after the user's deletion: %+v, want no violation", v)
	} else {
		optest.Excused(t, v, verdict.UserDeletionRace)
	}
	if v := verdict.UpdateSummaries(w, []*verdict.Reference{made}, optest.ChurnRun(t, w, userDelete, append(remade, life("record-app", "", 8*time.Millisecond, 9*time.Millisecond)...)...), time.Minute); v.Holds {
		t.Errorf("two lifetimes more than the fault-free run's: update-summaries holds (%q), want churn", v.Detail)
	}
	for name, got := range map[string]*verdict.Snapshot{
		"two lifetimes": optest.ChurnRun(t, w, userDelete, append(append(app, life("record-app", "", time.Millisecond, 6*time.Millisecond)...),
			life("record-app", "", 7*time.Millisecond, 8*time.Millisecond)...)...),
		"no deletion by the user to race":    optest.ChurnRun(t, w, 0, life("record-app", "", time.Millisecond, 6*time.Millisecond)...),
		"deleted before the user's deletion": optest.ChurnRun(t, w, userDelete, append(app, life("record-app", "", time.Millisecond, 2*time.Millisecond)...)...),
		"a second object of a generated prefix": optest.ChurnRun(t, w, userDelete, append(append(app, life("job-bcdfg", "job-", time.Millisecond, 7*time.Millisecond)...),
			life("job-hjklm", "job-", 2*time.Millisecond, 7*time.Millisecond)...)...),
	} {
		if name == "no deletion by the user to race" {
			refs = []*verdict.Reference{{Seed: 1, Snap: optest.ChurnRun(t, w, 0)}}
		} else {
			refs = []*verdict.Reference{ref}
		}
		if name == "a second object of a generated prefix" {
			refs = []*verdict.Reference{{Seed: 1, Snap: optest.ChurnRun(t, w, userDelete, append(app, life("job-zzzzz", "job-", time.Millisecond, 7*time.Millisecond)...)...)}}
		}
		if v := verdict.UpdateSummaries(w, refs, got, time.Minute); v.Holds {
			t.Errorf("%s: update-summaries holds (%q), want churn", name, v.Detail)
		}
	}
}

// The collector's rule holds for what the faults still hold at the heal: the
// owner deleted at the heal under an informer lag of a second, the operator
// re-creates its child a second after the heal (its cache has not yet
// delivered the deletion) and the collector deletes it again. That is the
// lag's doing, not churn.
func TestAChildRecreatedFromALagStillInFlightAtTheHealIsNotChurn(t *testing.T) {
	all := optest.JudgeAll(t, optest.AppOptions(optest.Child()), "seed 0\nat 1m0s delete object=0\nlag process=op kind=* min=1.003s max=1.004s\n")
	if v := all[world.UpdateSummaries]; !v.Holds || !strings.Contains(v.Detail, "then collected") {
		t.Errorf("update-summaries: %+v, want it to hold and note the collected child", v)
	}
	optest.Excused(t, all[world.UpdateSummaries], verdict.CollectorChurn)
}

// An object the operator makes and unmakes over and over with no fault (a
// retry cycle: install, fail, uninstall, wait) may turn once more or less
// under a fault, and end in another half of a turn (made here, gone
// there): the cycle's pace, not churn. An object the fault-free run unmade
// once only is not a cycle: one lifetime more is still churn.
func TestARetryCycleTurningMoreOftenIsNotChurn(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	cycle := func(turns int, endMade bool) []optest.LogChange {
		var out []optest.LogChange
		for i := range turns {
			at := time.Duration(i) * 10 * time.Second
			out = append(out, optest.LogChange{At: at, Type: watch.Added, Name: "install", GenerateName: ""}, optest.LogChange{At: at + 5*time.Second, Type: watch.Deleted, Name: "install", GenerateName: ""})
		}
		if endMade {
			out = append(out, optest.LogChange{At: time.Duration(turns) * 10 * time.Second, Type: watch.Added, Name: "install", GenerateName: ""})
		}
		return out
	}
	refs := []*verdict.Reference{{Seed: 1, Snap: optest.ChurnRun(t, w, 0, cycle(4, false)...)}}
	v := verdict.UpdateSummaries(w, refs, optest.ChurnRun(t, w, 0, cycle(5, false)...), time.Minute)
	if !v.Holds || !strings.Contains(v.Detail, "ConfigMap team/install (created 5 times, deleted 5 times; created 4 times, deleted 4 times in the fault-free run)") {
		t.Errorf("a cycle of 5 turns against 4: %+v, want no violation and a note naming it", v)
	}
	optest.Excused(t, v, verdict.CyclePace)
	if v := verdict.UpdateSummaries(w, refs, optest.ChurnRun(t, w, 0, cycle(4, true)...), time.Minute); !v.Holds {
		t.Errorf("a cycle that ends in a turn's made half: %+v, want no violation", v)
	}
	for name, c := range map[string]struct{ ref, got []optest.LogChange }{
		"one lifetime ended without faults": {cycle(1, true), cycle(2, true)},
		"no lifetime ended without faults":  {cycle(0, true), cycle(3, true)},
	} {
		refs := []*verdict.Reference{{Seed: 1, Snap: optest.ChurnRun(t, w, 0, c.ref...)}}
		if v := verdict.UpdateSummaries(w, refs, optest.ChurnRun(t, w, 0, c.got...), time.Minute); v.Holds {
			t.Errorf("%s: update-summaries holds (%q), want churn", name, v.Detail)
		}
	}
}

// errorRun is a run whose controller c's reconciles of /example end in
// results, in order.
func errorRun(w *world.World, results ...string) (*check.Run, *verdict.Snapshot) {
	r := &check.Run{Start: time.Unix(0, 0), End: time.Minute, HealAt: 30 * time.Second, Objects: func(schema.GroupVersionKind) []client.Object { return nil }}
	for i, res := range results {
		r.Steps = append(r.Steps, trace.Step{At: time.Duration(i+1) * time.Second, Process: "op", Controller: "c", Reconcile: i + 1, Op: "result", Object: "/example", Result: res})
	}
	return r, verdict.SnapshotOf(w, r)
}

// An operator that retries a failing operation cycles through its errors:
// the cause, then "still cleaning up the last attempt". A run that ends on
// another error of the cycle than the fault-free run, which fails for good
// too and met that error on the way, ends where the schedule put it. An
// error the fault-free run never met is a violation, and so is one it met
// but recovered from.
func TestAnErrorAtRestOfTheFaultFreeRunsFailingCycleIsNoViolation(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	const cause, cleanup = "error: the bundle is invalid", "error: waiting for the cleanup of a previous attempt"
	_, ref := errorRun(w, cause, cleanup, cause)
	refs := []*verdict.Reference{{Seed: 1, Snap: ref}}
	r, got := errorRun(w, cause, cleanup)
	if v := verdict.NoErrorAtRest(refs, got, r); !v.Holds || !strings.Contains(v.Detail, "also met") {
		t.Errorf("the cycle's other error: %+v, want no violation and a note", v)
	} else {
		optest.Excused(t, v, verdict.ErrorMet)
	}
	r, got = errorRun(w, cause, "error: something else")
	if v := verdict.NoErrorAtRest(refs, got, r); v.Holds {
		t.Errorf("an error the fault-free run never met: %+v, want a violation", v)
	}
	_, recovered := errorRun(w, cause, cleanup, "ok")
	r, got = errorRun(w, cause, cleanup)
	if v := verdict.NoErrorAtRest([]*verdict.Reference{{Seed: 1, Snap: recovered}}, got, r); v.Holds {
		t.Errorf("an error the fault-free run recovered from: %+v, want a violation", v)
	}
}

// A deletion a fault-free run began and never saw end (the finalizer
// stayed: the bug the run shows, or work still going at the end) that ends
// in the faulted run is the same lifetime's end, not churn: terminates and
// converges judge end states. A lifetime more (deleted and made again) is.
func TestADeletionTheFaultFreeRunLeftInProgressFinishingIsNotChurn(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	start := time.Unix(0, 0)
	run := func(deletionBegins, deleted bool) *verdict.Snapshot {
		r := &check.Run{Start: start, End: time.Minute, HealAt: 30 * time.Second, Objects: func(schema.GroupVersionKind) []client.Object { return nil }}
		cm := func() *corev1.ConfigMap {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app", UID: "app", Finalizers: []string{"example.com/cleanup"}}}
		}
		gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
		r.Log = append(r.Log, apiserver.Event{Type: watch.Added, GVK: gvk, Object: cm(), ResourceVersion: 1, At: start})
		if deletionBegins {
			o := cm()
			o.DeletionTimestamp = &metav1.Time{Time: start.Add(5 * time.Millisecond)}
			r.Log = append(r.Log, apiserver.Event{Type: watch.Modified, GVK: gvk, Object: o, ResourceVersion: 2, At: start.Add(5 * time.Millisecond)})
			if deleted {
				r.Log = append(r.Log, apiserver.Event{Type: watch.Deleted, GVK: gvk, Object: o, ResourceVersion: 3, At: start.Add(8 * time.Millisecond)})
			}
		} else if deleted {
			r.Log = append(r.Log, apiserver.Event{Type: watch.Deleted, GVK: gvk, Object: cm(), ResourceVersion: 2, At: start.Add(8 * time.Millisecond)})
		}
		return verdict.SnapshotOf(w, r)
	}
	stuck := []*verdict.Reference{{Seed: 1, Snap: run(true, false)}}
	if v := verdict.UpdateSummaries(w, stuck, run(true, true), time.Minute); !v.Holds || !strings.Contains(v.Detail, "deleted once more") {
		t.Errorf("a deletion the fault-free run left in progress, finished: %+v, want no violation and a note naming it", v)
	} else {
		optest.Excused(t, v, verdict.LifetimeEnd)
	}
	again := run(true, true)
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	again.Changes[gvk]["ConfigMap team/app"].Creates++ // made once more after its deletion
	if v := verdict.UpdateSummaries(w, stuck, again, time.Minute); v.Holds {
		t.Errorf("deleted and made again: update-summaries holds (%q), want churn", v.Detail)
	}
}

// The user's edit races as a deletion does: the user scales a cluster down
// while a fault holds the operator on the old size, and the claim a
// built-in controller made for the old size is made once and unmade once
// in the faulted run, never in the fault-free one. Deleted after the
// user's edit, that lifetime is not churn; deleted before it, or twice, it
// is.
func TestALifetimeMadeForAValueTheUserEditedAwayIsNotChurn(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	const userEdit = 5 * time.Millisecond
	run := func(edit bool, changes ...optest.LogChange) *verdict.Snapshot {
		start := time.Unix(0, 0)
		r := &check.Run{Start: start, End: time.Minute, HealAt: 30 * time.Second, Objects: func(schema.GroupVersionKind) []client.Object { return nil }}
		for i, c := range changes {
			o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: c.Name, UID: types.UID(c.Name)}}
			r.Log = append(r.Log, apiserver.Event{Type: c.Type, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Object: o, ResourceVersion: uint64(i + 1), At: start.Add(c.At)})
		}
		if edit {
			r.Steps = append(r.Steps, trace.Step{At: userEdit, Op: "action", Object: world.ActionMutate, Result: "ok"})
		}
		return verdict.SnapshotOf(w, r)
	}
	life := func(made, unmade time.Duration) []optest.LogChange {
		return []optest.LogChange{{At: made, Type: watch.Added, Name: "data-main-2"}, {At: unmade, Type: watch.Deleted, Name: "data-main-2"}}
	}
	refs := []*verdict.Reference{{Seed: 1, Snap: run(true)}}
	if v := verdict.UpdateSummaries(w, refs, run(true, life(time.Millisecond, 6*time.Millisecond)...), time.Minute); !v.Holds || !strings.Contains(v.Detail, "ConfigMap team/data-main-2") {
		t.Errorf("one lifetime ended after the user's edit: %+v, want no violation and a note naming it", v)
	} else {
		optest.Excused(t, v, verdict.UserEditRace)
	}
	for name, got := range map[string]*verdict.Snapshot{
		"no edit by the user to race":    run(false, life(time.Millisecond, 6*time.Millisecond)...),
		"deleted before the user's edit": run(true, life(time.Millisecond, 2*time.Millisecond)...),
		"two lifetimes after the edit":   run(true, append(life(time.Millisecond, 6*time.Millisecond), life(7*time.Millisecond, 8*time.Millisecond)...)...),
	} {
		r := refs
		if name == "no edit by the user to race" {
			r = []*verdict.Reference{{Seed: 1, Snap: run(false)}}
		}
		if v := verdict.UpdateSummaries(w, r, got, time.Minute); v.Holds {
			t.Errorf("%s: update-summaries holds (%q), want churn", name, v.Detail)
		}
	}
}
