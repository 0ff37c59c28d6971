package verdict_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A rollout races the operator's pace: the user edits a database's version
// at 3 ms; the fault-free run's operator writes its StatefulSet with the old
// version's template and then the new one before the StatefulSet
// controller makes a pod, while a slowed operator (its cache behind the
// edit) writes the new template only after the pod was made from the old
// one, and the controller replaces the pod (the member-volume pattern's
// correct operator at plan 326 of the false-alarm suite). One lifetime more
// of the pod, made from the template before and gone under the one after,
// both templates written in the fault-free run's order, is not churn. A
// pod replaced under an unchanged template, or templates written in an
// order the fault-free run never wrote, or no edit by the user, still is.
func TestAPodARolloutReplacedBecauseTheOperatorAppliedTheUsersEditLaterIsNotChurn(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	start := time.Unix(0, 0)
	stsGVK, podGVK := appsv1.SchemeGroupVersion.WithKind("StatefulSet"), corev1.SchemeGroupVersion.WithKind("Pod")
	type change struct {
		at      time.Duration
		image   string // the StatefulSet's template, written at generation gen
		gen     int64
		pod     watch.EventType
		podFrom string // the pod's image
	}
	run := func(edit bool, changes ...change) *verdict.Snapshot {
		r := &check.Run{Start: start, End: time.Minute, HealAt: 30 * time.Second, Objects: func(schema.GroupVersionKind) []client.Object { return nil }}
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "store", Name: "main", UID: "sts"}}
		var pod types.UID // the live pod's: each lifetime has its own
		for i, c := range changes {
			ev := apiserver.Event{ResourceVersion: uint64(i + 1), At: start.Add(c.at)}
			if c.image != "" {
				typ := watch.Modified
				if c.gen == 1 {
					typ = watch.Added
				}
				o := sts.DeepCopy()
				o.Generation, o.Spec.Replicas = c.gen, ptr.To(int32(1))
				o.Spec.Template.Spec.Containers = []corev1.Container{{Name: "db", Image: c.image}}
				ev.Type, ev.GVK, ev.Object = typ, stsGVK, o
			} else {
				if c.pod == watch.Added {
					pod = types.UID("pod-" + c.at.String())
				}
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "store", Name: "main-0", UID: pod,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "main", UID: "sts", Controller: ptr.To(true)}}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: c.podFrom}}}}
				ev.Type, ev.GVK, ev.Object = c.pod, podGVK, p
			}
			r.Log = append(r.Log, ev)
		}
		if edit {
			r.Steps = append(r.Steps, trace.Step{At: 3 * time.Millisecond, Op: "action", Object: world.ActionMutate, Result: "ok"})
		}
		s := verdict.SnapshotOf(w, r)
		s.Touched[podGVK] = true // the operator watches its members' pods
		return s
	}
	old, new := "postgres:16", "postgres:17"
	faultFree := run(true, change{at: 0, image: old, gen: 1}, change{at: 5 * time.Millisecond, image: new, gen: 2},
		change{at: 400 * time.Millisecond, pod: watch.Added, podFrom: new})
	refs := []*verdict.Reference{{Seed: 1, Snap: faultFree}}
	slowed := []change{{at: 0, image: old, gen: 1}, {at: 400 * time.Millisecond, pod: watch.Added, podFrom: old},
		{at: 9 * time.Second, image: new, gen: 2}, {at: 15 * time.Second, pod: watch.Deleted, podFrom: old}, {at: 17 * time.Second, pod: watch.Added, podFrom: new}}
	if v := verdict.UpdateSummaries(w, refs, run(true, slowed...), time.Minute); !v.Holds || !strings.Contains(v.Detail, "Pod store/main-0") {
		t.Errorf("a pod the rollout replaced once the slowed operator applied the edit: %+v, want no violation and a note naming it", v)
	} else {
		optest.Excused(t, v, verdict.SlowedRollout)
	}
	for name, c := range map[string]struct {
		edit    bool
		changes []change
		refs    []*verdict.Reference
	}{
		"a pod deleted under an unchanged template": {true, []change{{at: 0, image: new, gen: 1}, {at: 400 * time.Millisecond, pod: watch.Added, podFrom: new},
			{at: 15 * time.Second, pod: watch.Deleted, podFrom: new}, {at: 17 * time.Second, pod: watch.Added, podFrom: new}},
			[]*verdict.Reference{{Seed: 1, Snap: run(true, change{at: 0, image: new, gen: 1}, change{at: 400 * time.Millisecond, pod: watch.Added, podFrom: new})}}},
		"templates the fault-free run never wrote in that order": {true, []change{{at: 0, image: new, gen: 1},
			{at: time.Millisecond, image: old, gen: 2}, {at: 400 * time.Millisecond, pod: watch.Added, podFrom: old}, {at: 9 * time.Second, image: new, gen: 3},
			{at: 15 * time.Second, pod: watch.Deleted, podFrom: old}, {at: 17 * time.Second, pod: watch.Added, podFrom: new}}, refs},
		"no edit by the user": {false, slowed, []*verdict.Reference{{Seed: 1, Snap: run(false, change{at: 0, image: old, gen: 1}, change{at: 5 * time.Millisecond, image: new, gen: 2},
			change{at: 400 * time.Millisecond, pod: watch.Added, podFrom: new})}}},
	} {
		if v := verdict.UpdateSummaries(w, c.refs, run(c.edit, c.changes...), time.Minute); v.Holds {
			t.Errorf("%s: update-summaries holds (%q), want churn", name, v.Detail)
		}
	}
}
