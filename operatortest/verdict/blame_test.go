package verdict_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

var secretKind = corev1.SchemeGroupVersion.WithKind("Secret")

// obj is a committed version of a ConfigMap (or, with kind Secret, a Secret
// standing for an owner kind) at rv, owned by owner (a uid) when not "".
func obj(typ watch.EventType, kind schema.GroupVersionKind, name string, rv uint64, at time.Duration, uid, owner string) apiserver.Event {
	meta := metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(uid), ResourceVersion: strconv.FormatUint(rv, 10)}
	if owner != "" {
		yes := true
		meta.OwnerReferences = []metav1.OwnerReference{{Kind: "Secret", Name: "w", UID: types.UID(owner), Controller: &yes}}
	}
	var o client.Object = &corev1.ConfigMap{ObjectMeta: meta}
	if kind == secretKind {
		o = &corev1.Secret{ObjectMeta: meta}
	}
	return apiserver.Event{Type: typ, GVK: kind, Object: o, ResourceVersion: rv, At: clock.Epoch.Add(at)}
}

// A deletion completes: of two runs that end apart on an object (one with no
// owner), the run that ends with it still being deleted shows the bug, not
// the run that deleted it, whichever side it is on; a run that never deleted
// it is not told apart by this rule.
func TestTheRunWhoseDeletionNeverCompletedShowsTheBug(t *testing.T) {
	ms := time.Millisecond
	made := obj(watch.Added, configMapGVK, "x", 5, 0, "c1", "")
	deleting := obj(watch.Modified, configMapGVK, "x", 6, ms, "c1", "")
	now := metav1.NewTime(deleting.At)
	deleting.Object.SetDeletionTimestamp(&now)
	deleting.Object.SetFinalizers([]string{"example.com/cleanup"})
	gone := obj(watch.Deleted, configMapGVK, "x", 7, 2*ms, "c1", "")
	stuck := []apiserver.Event{made, deleting}
	done := []apiserver.Event{made, deleting, gone}
	for _, c := range []struct {
		runs [2]verdict.RunEnd
		want int
	}{
		{[2]verdict.RunEnd{{Name: "the fault-free run with seed 0", Log: stuck}, {Name: "the fault-free run with seed 2048", Log: done}}, 0},
		{[2]verdict.RunEnd{{Name: "the fault-free run with seed 2048", Log: done}, {Name: "the fault-free run with seed 0", Log: stuck}}, 1},
	} {
		got, why := verdict.ShowsTheBug("ConfigMap default/x", c.runs)
		if got != c.want || !strings.Contains(why, "the fault-free run with seed 0 ends with ConfigMap default/x still being deleted, which the fault-free run with seed 2048 deleted") {
			t.Errorf("a deletion that never completed: run %d (%s), want %d", got, why, c.want)
		}
	}
	if got, why := verdict.ShowsTheBug("ConfigMap default/x", [2]verdict.RunEnd{{Name: "a", Log: []apiserver.Event{made}}, {Name: "b", Log: done}}); got != -1 {
		t.Errorf("a run that never deleted the object, against one that did: run %d (%s), want -1", got, why)
	}
}

// The blame rule, on the two shapes where counting creations alone blames
// the wrong run.
func TestTheRunThatShowsTheBugFollowsTheVerdictsRule(t *testing.T) {
	ms := time.Millisecond
	// A stale read makes a second child for one owner (a second Job): the
	// run that made two shows the bug, whichever side it is on.
	one := []apiserver.Event{obj(watch.Added, secretKind, "w", 5, 0, "u1", ""), obj(watch.Added, configMapGVK, "w-1", 6, ms, "c1", "u1")}
	two := append(slices.Clone(one), obj(watch.Added, configMapGVK, "w-2", 7, 2*ms, "c2", "u1"))
	for _, c := range []struct {
		runs [2]verdict.RunEnd
		want int
	}{
		{[2]verdict.RunEnd{{Name: "the fault-free run with seed 1", Log: one}, {Name: "the fault-free run with seed 2048", Log: two}}, 1},
		{[2]verdict.RunEnd{{Name: "the fault-free run with seed 2048", Log: two}, {Name: "the fault-free run with seed 1", Log: one}}, 0},
	} {
		got, why := verdict.ShowsTheBug("ConfigMap default/w-2", c.runs)
		if got != c.want || !strings.Contains(why, "made 2 ConfigMaps for one incarnation of Secret default/w") {
			t.Errorf("a second child: run %d (%s), want %d", got, why, c.want)
		}
	}
	// A re-created owner: the run that made the child again for the new
	// owner handled it (and made it twice in all); the run that did not
	// shows the bug.
	handled := []apiserver.Event{
		obj(watch.Added, secretKind, "w", 5, 0, "u1", ""), obj(watch.Added, configMapGVK, "w-cm", 6, ms, "c1", "u1"),
		obj(watch.Deleted, secretKind, "w", 7, 2*ms, "u1", ""), obj(watch.Deleted, configMapGVK, "w-cm", 8, 3*ms, "c1", "u1"),
		obj(watch.Added, secretKind, "w", 9, 4*ms, "u2", ""), obj(watch.Added, configMapGVK, "w-cm", 10, 5*ms, "c2", "u2"),
	}
	missed := slices.Clone(handled[:5])
	got, why := verdict.ShowsTheBug("ConfigMap default/w-cm", [2]verdict.RunEnd{{Name: "this run", Log: handled}, {Name: "the fault-free run with seed 1", Log: missed}})
	if got != 1 || !strings.Contains(why, "the fault-free run with seed 1 ends with Secret default/w there and ConfigMap default/w-cm missing") {
		t.Errorf("a re-created owner: run %d (%s), want 1", got, why)
	}
	// Left behind: the run whose child outlived its owner.
	gone := slices.Clone(handled[:3])
	clean := slices.Clone(handled[:4])
	if got, why := verdict.ShowsTheBug("ConfigMap default/w-cm", [2]verdict.RunEnd{{Name: "a", Log: clean}, {Name: "b", Log: gone}}); got != 1 || !strings.Contains(why, "left ConfigMap default/w-cm behind") {
		t.Errorf("left behind: run %d (%s), want 1", got, why)
	}
	// No owner: the rule does not tell.
	if got, _ := verdict.ShowsTheBug("ConfigMap default/x", [2]verdict.RunEnd{{Log: one}, {Log: two}}); got != -1 {
		t.Errorf("an object with no owner: run %d, want -1", got)
	}
}
