package verdict_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// endRun is a run's snapshot from its changes of ConfigMaps of team, its
// end state the objects its log leaves.
func endRun(t *testing.T, changes ...optest.LogChange) *verdict.Snapshot {
	t.Helper()
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	start := time.Unix(0, 0)
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	var live []client.Object
	r := &check.Run{Start: start, End: time.Minute, HealAt: 30 * time.Second}
	for i, c := range changes {
		o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: c.Name, UID: types.UID(c.Name + "-" + c.At.String())}}
		r.Log = append(r.Log, apiserver.Event{Type: c.Type, GVK: gvk, Object: o, ResourceVersion: uint64(i + 1), At: start.Add(c.At)})
		live = slices.DeleteFunc(live, func(l client.Object) bool { return l.GetName() == c.Name })
		if c.Type != watch.Deleted {
			live = append(live, o)
		}
	}
	r.Objects = func(k schema.GroupVersionKind) []client.Object {
		if k != gvk {
			return nil
		}
		return live
	}
	return verdict.SnapshotOf(w, r)
}

// A comparing verdict blames neither run: which of two runs did what a
// correct operator does is not known, which made the writes the other did
// not is, and the verdict says which. Here the fault-free run is the one
// that made a ConfigMap a second time (an operator re-creating what it
// deleted, from a cache behind its own deletion, say): converges names the
// fault-free run as the one with the extra create, and the faulted run
// (which made it once and deleted it once) as having made none.
func TestConvergesSaysTheExtraCreateIsInTheFaultFreeRunWhenItIs(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	once := []optest.LogChange{{At: time.Millisecond, Type: watch.Added, Name: "record"}, {At: 2 * time.Millisecond, Type: watch.Deleted, Name: "record"}}
	twice := append(once[:2:2], optest.LogChange{At: 3 * time.Millisecond, Type: watch.Added, Name: "record"})
	v := verdict.Converges(w, []*verdict.Reference{{Seed: 1, Snap: endRun(t, twice...)}}, endRun(t, once...), time.Minute)
	want := "ConfigMap team/record exists after the fault-free run of the same workload, not after this run (created 2 times, deleted 1 time there, created 1 time, deleted 1 time here: the extra create is in the fault-free run of the same workload)"
	if v.Holds || v.Detail != want {
		t.Errorf("the fault-free run made the ConfigMap twice, this run once:\n got %q\nwant %q", v.Detail, want)
	}
	if !verdict.ExtraInOtherRunOnly(v.Detail) {
		t.Errorf("ExtraInOtherRunOnly(%q) = false, want true: the extra create is the fault-free run's", v.Detail)
	}
	// The other way round, the extra create is this run's.
	v = verdict.Converges(w, []*verdict.Reference{{Seed: 1, Snap: endRun(t, once...)}}, endRun(t, twice...), time.Minute)
	if want := "ConfigMap team/record exists after this run, not after the fault-free run of the same workload (created 1 time, deleted 1 time there, created 2 times, deleted 1 time here: the extra create is in this run)"; v.Detail != want {
		t.Errorf("this run made the ConfigMap twice, the fault-free run once:\n got %q\nwant %q", v.Detail, want)
	}
	if verdict.ExtraInOtherRunOnly(v.Detail) {
		t.Errorf("ExtraInOtherRunOnly(%q) = true, want false: the extra create is this run's", v.Detail)
	}
}

// podRun is a run's snapshot whose end state is Pod shop/web with the
// status message given ("": an empty status, "{}").
func podRun(t *testing.T, message string) *verdict.Snapshot {
	t.Helper()
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-web"}, Status: corev1.PodStatus{Message: message}}
	r := &check.Run{Start: time.Unix(0, 0), End: time.Minute, HealAt: 30 * time.Second,
		Log:   []apiserver.Event{{Type: watch.Added, GVK: gvk, Object: p, ResourceVersion: 1, At: time.Unix(0, 0)}},
		Steps: []trace.Step{{Process: "op", Op: "get", Object: "Pod shop/web", Result: "ok"}}} // the operator reads Pods: they are judged
	r.Objects = func(k schema.GroupVersionKind) []client.Object {
		if k != gvk {
			return nil
		}
		return []client.Object{p}
	}
	return verdict.SnapshotOf(w, r)
}

// A difference in a status one run left empty and the other filled is
// named at the field that differs, not at the emptied status: converges
// once said "status: {} there, nothing here" of a Pipeline whose faulted
// run held status.blocked (override-guard's plan 604), which read as an
// empty status against none.
func TestConvergesNamesTheFieldOfAStatusEmptyInOneRun(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	v := verdict.Converges(w, []*verdict.Reference{{Seed: 1, Snap: podRun(t, "")}}, podRun(t, "blocked"), time.Minute)
	if v.Holds || !strings.Contains(v.Detail, `at status.message: nothing there, "blocked" here`) {
		t.Errorf("converges %v: %s; want the difference named at status.message", v.Holds, v.Detail)
	}
}
