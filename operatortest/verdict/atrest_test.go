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
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// restRun builds a run of 3 minutes, healed at 1 minute (rest: the second
// half of the default 2-minute heal budget, from 2m0s), in which the
// operator's controller "app" writes ConfigMap team/app at each of at with
// the data write gives it (nil: an update that changes nothing), and
// process op starts at started.
type restRun struct {
	r       *check.Run
	start   time.Time
	rv      uint64
	current *corev1.ConfigMap
	gvk     schema.GroupVersionKind // of the events: a ConfigMap's
	// otherMade: team/other exists (other); appRV is team/app's
	// resourceVersion.
	otherMade bool
	appRV     uint64
}

func newRestRun(started time.Duration) *restRun {
	start := time.Unix(1_800_000_000, 0)
	rr := &restRun{start: start, r: &check.Run{Start: start, End: 3 * time.Minute, HealAt: time.Minute}, gvk: configMapGVK}
	rr.r.Steps = append(rr.r.Steps, trace.Step{At: started, Process: "op", Op: "start"})
	rr.current = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app", UID: "u1"}}
	rr.commit(0, watch.Added, "admin", "", nil)
	return rr
}

var configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// commit writes data (nil: a write that changes nothing) at at.
func (rr *restRun) commit(at time.Duration, typ watch.EventType, process, controller string, data map[string]string) {
	st := trace.Step{At: at, Process: process, Controller: controller, Op: "update", Object: "ConfigMap team/app", Result: "ok"}
	if typ == watch.Added {
		st.Op = "create"
	}
	if data == nil && typ != watch.Added {
		st.RVSeen, st.RVCurrent, st.RVWritten = rr.appRV, rr.appRV, rr.appRV
	} else {
		rr.rv++
		rr.appRV = rr.rv
		o := rr.current.DeepCopy()
		o.Data = data
		o.ResourceVersion = ""
		rr.current = o
		st.RVWritten = rr.rv
		rr.r.Log = append(rr.r.Log, apiserver.Event{Type: typ, GVK: rr.gvk, Object: o.DeepCopy(), ResourceVersion: rr.rv, At: rr.start.Add(at)})
	}
	rr.r.Steps = append(rr.r.Steps, st)
	last := rr.current
	rr.r.Objects = func(gvk schema.GroupVersionKind) []client.Object {
		if gvk == configMapGVK {
			return []client.Object{last}
		}
		return nil
	}
}

// every writes data(i) at each step from from to to (inclusive).
func (rr *restRun) every(from, to, step time.Duration, data func(i int, at time.Duration) map[string]string) *restRun {
	i := 0
	for at := from; at <= to; at += step {
		rr.commit(at, watch.Modified, "op", "app", data(i, at))
		i++
	}
	return rr
}

func (rr *restRun) snap(w *world.World) *verdict.Snapshot { return verdict.SnapshotOf(w, rr.r) }

// other changes another object, ConfigMap team/other, by process at at.
func (rr *restRun) other(at time.Duration, process string, data map[string]string) {
	rr.rv++
	o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "other", UID: "u2"}, Data: data}
	typ := watch.Modified
	if !rr.otherMade {
		typ, rr.otherMade = watch.Added, true
	}
	rr.r.Log = append(rr.r.Log, apiserver.Event{Type: typ, GVK: configMapGVK, Object: o, ResourceVersion: rr.rv, At: rr.start.Add(at)})
	rr.r.Steps = append(rr.r.Steps, trace.Step{At: at, Process: process, Op: "update", Object: "ConfigMap team/other", Result: "ok", RVWritten: rr.rv})
}

func heartbeat(rr *restRun) func(int, time.Duration) map[string]string {
	return func(_ int, at time.Duration) map[string]string {
		return map[string]string{"mode": "on", "lastSync": rr.start.Add(at).UTC().Format(time.RFC3339)}
	}
}

// A correct operator at rest writes only what its clock asks for: a status
// heartbeat, an update that changes nothing and a flipping field are each
// caught with no fault (the run judged is fault-free: no references), and
// the violation says what was written, how often, and what it changed.
func TestWritesAtRestThatStoreNothingNewAreCaught(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	for _, c := range []struct {
		name string
		data func(rr *restRun) func(int, time.Duration) map[string]string
		want []string
	}{
		{"a timestamp refreshed every 5 s", heartbeat, []string{"app wrote ConfigMap team/app 12 times at rest", "12 that changed only times", "data.lastSync"}},
		{"an update that changes nothing", func(*restRun) func(int, time.Duration) map[string]string {
			return func(int, time.Duration) map[string]string { return nil }
		}, []string{"12 that changed nothing stored"}},
		{"a field that flips", func(*restRun) func(int, time.Duration) map[string]string {
			return func(i int, _ time.Duration) map[string]string {
				return map[string]string{"state": []string{"ready", "probing"}[i%2]}
			}
		}, []string{"set it back to what it was two changes before", `data.state between "probing" and "ready"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rr := newRestRun(0)
			rr.commit(65*time.Second, watch.Modified, "op", "app", map[string]string{"mode": "on"})
			rr.every(70*time.Second, 3*time.Minute-time.Second, 5*time.Second, c.data(rr))
			v := verdict.JudgeWritesAtRest(w, nil, rr.snap(w))
			if v.Holds {
				t.Fatalf("holds, want violated")
			}
			for _, want := range c.want {
				if !strings.Contains(v.Detail, want) {
					t.Errorf("detail %q lacks %q", v.Detail, want)
				}
			}
			if v.At < 2*time.Minute {
				t.Errorf("violated at %v, before rest began (2m0s)", v.At)
			}
		})
	}
}

// What is not idle is not caught: writes that settle before rest begins
// (an echo after the last change included), two idle writes at rest, and a
// time-driven operator's writes at rest that change what it manages.
func TestWritesAtRestThatAreWorkHold(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	settles := newRestRun(0)
	settles.commit(70*time.Second, watch.Modified, "op", "app", map[string]string{"mode": "on"})
	settles.commit(71*time.Second, watch.Modified, "op", "app", nil)
	settles.commit(150*time.Second, watch.Modified, "op", "app", nil) // one echo at rest
	settles.commit(160*time.Second, watch.Modified, "op", "app", nil) // and one more: two, under the bound
	if v := verdict.JudgeWritesAtRest(w, nil, settles.snap(w)); !v.Holds {
		t.Errorf("two idle writes at rest: %s", v.Detail)
	}
	scheduled := newRestRun(0).every(0, 3*time.Minute, 10*time.Second, func(i int, _ time.Duration) map[string]string {
		return map[string]string{"lastRun": string(rune('a' + i))} // each run a new value
	})
	if v := verdict.JudgeWritesAtRest(w, nil, scheduled.snap(w)); !v.Holds {
		t.Errorf("a schedule's writes: %s", v.Detail)
	}
	ref := []*verdict.Reference{{Seed: 1, Snap: scheduled.snap(w)}}
	if v := verdict.JudgeWritesAtRest(w, ref, scheduled.snap(w)); !v.Holds {
		t.Errorf("a schedule's writes, as in the fault-free run: %s", v.Detail)
	}
	// An unchanged status written at each event of another object (the
	// kubebuilder CronJob tutorial's at each change of its Jobs) answers a
	// change: not the operator's clock alone.
	answers := newRestRun(0)
	answers.commit(65*time.Second, watch.Modified, "op", "app", map[string]string{"mode": "on"})
	for at := 70 * time.Second; at < 3*time.Minute; at += 5 * time.Second {
		answers.other(at-time.Second, "kube-controller-manager", map[string]string{"at": at.String()})
		answers.commit(at, watch.Modified, "op", "app", nil)
	}
	if v := verdict.JudgeWritesAtRest(w, nil, answers.snap(w)); !v.Holds {
		t.Errorf("unchanged writes that answer another object's changes: %s", v.Detail)
	}
	// The Lease of leader election is the manager's, renewed for ever.
	lease := newRestRun(0)
	lease.gvk = schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}
	lease.every(70*time.Second, 3*time.Minute, 2*time.Second, heartbeat(lease))
	if v := verdict.JudgeWritesAtRest(w, nil, lease.snap(w)); !v.Holds {
		t.Errorf("a Lease's renewals: %s", v.Detail)
	}
}

// Rest begins half the heal budget after the later of the heal and the last
// start of an operator's process: a restart late in the heal has its first
// pass, which rest does not count.
func TestRestBeginsAfterTheLastStart(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	rr := newRestRun(150 * time.Second) // rest from 3m30s: after the end
	rr.every(70*time.Second, 3*time.Minute, 5*time.Second, heartbeat(rr))
	if v := verdict.JudgeWritesAtRest(w, nil, rr.snap(w)); !v.Holds {
		t.Errorf("no rest, yet: %s", v.Detail)
	}
	if got := rr.snap(w).Rest; got.From != 150*time.Second+time.Minute {
		t.Errorf("rest from %v, want 3m30s", got.From)
	}
}

// A faulted run is judged against its fault-free references: writes at rest
// that the fault-free run does not make (at least restMoreWrites more and
// twice as many) are the faults' doing; a fault-free run that idles at rest
// is a bug with no fault, reported whatever the faulted run does.
func TestWritesAtRestAreComparedWithTheFaultFreeRun(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	work := func(i int, _ time.Duration) map[string]string { return map[string]string{"n": string(rune('a' + i))} }
	quiet := newRestRun(0)
	quiet.commit(70*time.Second, watch.Modified, "op", "app", map[string]string{"n": "z"})
	busy := newRestRun(0).every(70*time.Second, 3*time.Minute, 10*time.Second, work)
	refs := []*verdict.Reference{{Seed: 1, Snap: quiet.snap(w)}}
	v := verdict.JudgeWritesAtRest(w, refs, busy.snap(w))
	if v.Holds || !strings.Contains(v.Detail, "the fault-free runs of the same workload at most 0 times over the same window: the faults left it writing") {
		t.Errorf("writing at rest where the fault-free run is quiet: %+v", v)
	}
	// Work a fault delayed into the window, done in its first half (rest is
	// 2m-3m): it stopped, no cadence.
	late := newRestRun(0).every(121*time.Second, 130*time.Second, time.Second, work)
	if v := verdict.JudgeWritesAtRest(w, refs, late.snap(w)); !v.Holds {
		t.Errorf("work finished in the window's first half: %s", v.Detail)
	} else {
		optest.Excused(t, v, verdict.DelayedWork)
	}
	// One write more than the fault-free run: the phase of a cadence.
	shifted := newRestRun(0).every(65*time.Second, 3*time.Minute, 10*time.Second, work)
	if v := verdict.JudgeWritesAtRest(w, []*verdict.Reference{{Seed: 1, Snap: busy.snap(w)}}, shifted.snap(w)); !v.Holds {
		t.Errorf("a cadence shifted: %s", v.Detail)
	}
	idle := newRestRun(0)
	idle.every(70*time.Second, 3*time.Minute, 5*time.Second, heartbeat(idle))
	v = verdict.JudgeWritesAtRest(w, []*verdict.Reference{{Seed: 7, Snap: idle.snap(w)}}, quiet.snap(w))
	if v.Holds || !strings.Contains(v.Detail, "in the fault-free run of the same workload (seed 7), app wrote ConfigMap team/app") ||
		!strings.Contains(v.Detail, "(a bug with no fault)") {
		t.Errorf("the fault-free run idles at rest: %+v", v)
	}
}

// Two writers that fight over one object's field, each at its own poll,
// flip it: the other's change of the same object provokes nothing.
func TestAFieldTwoWritersFightOverIsCaught(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	rr := newRestRun(0)
	for at := 70 * time.Second; at < 3*time.Minute; at += 5 * time.Second {
		rr.commit(at, watch.Modified, "other-operator", "", map[string]string{"owner": "them"})
		rr.commit(at+time.Second, watch.Modified, "op", "app", map[string]string{"owner": "us"})
	}
	v := verdict.JudgeWritesAtRest(w, nil, rr.snap(w))
	if v.Holds || !strings.Contains(v.Detail, `data.owner between "them" and "us"`) {
		t.Errorf("a fight: %+v", v)
	}
}

// A controller still failing is not at rest: what its retries write is
// no-error-at-rest's to judge.
func TestWritesOfFailingReconcilesAreNotJudgedAtRest(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	rr := newRestRun(0)
	rr.every(70*time.Second, 3*time.Minute-time.Second, 5*time.Second, heartbeat(rr))
	var steps []trace.Step
	n := 0
	for _, st := range rr.r.Steps {
		if st.Process == "op" && st.Op == "update" {
			n++
			st.Reconcile = n
			steps = append(steps, st, trace.Step{At: st.At, Process: "op", Controller: "app", Reconcile: n, Op: "result", Result: "error: still failing"})
			continue
		}
		steps = append(steps, st)
	}
	rr.r.Steps = steps
	if v := verdict.JudgeWritesAtRest(w, nil, rr.snap(w)); !v.Holds {
		t.Errorf("the writes of failing reconciles: %s", v.Detail)
	}
}
