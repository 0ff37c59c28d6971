package reference_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/crdinstall"
	"github.com/ctrlsim/ctrlsim/examples/patterns/schedule"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A stale restart whose lagging apiserver hides a time-driven operator's
// object while the operator is up: the ticker is created at 0, the
// operator restarts at 11s (the crash at 1s, CrashLoopBackOff 10s) onto an
// apiserver 40s behind, which shows no ticker until 40s. Blind across the
// run at 30s and its 5s deadline, the operator skips that run by design.
// The downtime alone (1s to 11s) does not skip it; the fault-free run of the
// same downtime and blind time does, so neither converges nor
// update-summaries blames the faults.
func TestAMissedScheduledRunWhileBlindIsNotBlamed(t *testing.T) {
	const stale = "seed 7\nstale process=ticker at=1s age=40s\n"
	got := optest.JudgeAll(t, optest.TickerOptions(false), stale)
	for _, name := range []string{world.Converges, world.UpdateSummaries, world.InterleavingsAgree} {
		if v := got[name]; !v.Holds {
			t.Errorf("%s: %s", name, v.Detail)
		}
	}
	if d := got[world.Converges].Detail; !strings.Contains(d, "blind time") {
		t.Errorf("converges held without the fault-free run of the same blind time (%q): the run at 30s was not skipped, and this test shows nothing", d)
	}
	optest.Excused(t, got[world.Converges], verdict.SameBlindTime)
}

// The fault-free run of the same blind time keeps a faulted run's views of
// the world (its stale restart, as a start onto the same lagging apiserver;
// its holds and lags) and the operator's downtime, with its own writes shown
// at once; it drops the crash, API faults, latency and the rest.
func TestTheBlindReferenceKeepsTheViewsAndDropsTheRestOfTheFaults(t *testing.T) {
	w := optest.TestWorld(t, optest.TickerOptions(false))
	p, err := plan.Parse("seed 7\nstale process=ticker at=1s age=40s\nhold process=ticker kind=/v1/ConfigMap from=50s until=55s\n" +
		"api verb=update code=500 from=2s until=3s\nlatency process=ticker min=1ms max=2ms\nlag process=kube-controller-manager kind=* min=1s max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range reference.BlindOf(w, p, r) {
		got = append(got, f.String())
	}
	want := []string{"blind process=ticker at=11s age=40s", "hold process=ticker kind=/v1/ConfigMap from=50s until=55s"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the blind time of the run:\n got %q\nwant %q", got, want)
	}
}

// A schedule seen as it was created: the user changes the interval from
// 30s to 13s at 1ms, and the operator restarts at 10.538s onto an
// apiserver 30s behind, which shows the Schedule from 30s on, as it was
// created. The operator runs it at 30s, by the interval it sees, then sees
// the change and goes on at 13s: a Job of 30s that no fault-free run makes,
// deleted later by the history limit of 1. The fault-free run of the same
// blind time makes it too (the plan of 712 of the false-alarm suite's
// 1,000, reports/falsealarms.md).
func TestAScheduleRunByTheVersionTheOperatorSeesIsNotBlamed(t *testing.T) {
	const plan712 = "seed 0\n" +
		"at 1ms mutate object=0 field=spec.intervalSeconds value=13 expect=valid\n" +
		"at 2ms mutate object=0 field=spec.historyLimit value=1 expect=valid\n" +
		"at 3ms mutate object=0 field=spec.startingDeadlineSeconds value=601 expect=invalid\n" +
		"lag process=schedule kind=apps/v1/StatefulSet min=3.512s max=3.534s\n" +
		"stale process=schedule at=538ms age=30.001s\n"
	got := optest.JudgeAll(t, scheduleOptions(schedule.ScheduleSpec{Image: "backup:1", IntervalSeconds: 30, StartingDeadlineSeconds: 10, HistoryLimit: 3}), plan712)
	for _, name := range []string{world.Converges, world.UpdateSummaries, world.InterleavingsAgree} {
		if v := got[name]; !v.Holds {
			t.Errorf("%s: %s", name, v.Detail)
		}
	}
	// The Job of 30s is made for a value the user edited away at 1ms, so the
	// race with the user's edit (verdict's churn rule) excuses it too; either
	// excuse is the reason, never none (BlindOf's own test above pins the
	// blind time's reference).
	if d := got[world.UpdateSummaries].Detail; !strings.Contains(d, "blind time") && !strings.Contains(d, "deleted after the workload's deletion or edit") {
		t.Errorf("update-summaries held without the fault-free run of the same blind time (%q): the run of 30s was not made, and this test shows nothing", d)
	}
}

// What the blind reference leaves out is stale data: an object's older
// content or a deleted object still shown. The schedule's twin makes each
// run's Job with generateName and trusts status.lastScheduleTime: restarted
// at 41s onto an apiserver 25s behind, it sees the status before the run of
// 30s was recorded and makes that run again. The fault-free run of the same
// blind time shows the status as it is (only the Job made at 30s is hidden
// from it until 55s), makes no second run, and the twin is caught; the
// correct operator (its runs named by their time) holds on the same plan.
func TestActingOnAStaleViewIsStillCaught(t *testing.T) {
	const stale = "seed 5\nstale process=schedule at=31s age=25s\n"
	options := func(buggy bool) world.Options {
		s := runtime.NewScheme()
		_ = clientgoscheme.AddToScheme(s)
		_ = schedule.AddToScheme(s)
		return world.Options{
			Scheme: s,
			CRDs:   [][]byte{schedule.CRD},
			Managers: []world.Manager{{Name: "schedule", Setup: func(mgr manager.Manager) error {
				return (&schedule.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
			}}},
			Objects: []client.Object{&schedule.Schedule{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "backup"},
				Spec: schedule.ScheduleSpec{Image: "backup:1", IntervalSeconds: 30, StartingDeadlineSeconds: 60, HistoryLimit: 3}}},
		}
	}
	w := optest.TestWorld(t, options(true))
	p, err := plan.Parse(stale)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(reference.BlindOf(w, p, r)) == 0 {
		t.Fatal("the stale restart hid nothing: the test does not reach the blind reference it is about")
	}
	caught := false
	for _, v := range r.Verdicts {
		if (v.Property == world.UpdateSummaries || v.Property == world.Converges) && !v.Holds {
			caught = true
		}
	}
	if !caught {
		t.Errorf("the twin that runs again on a stale status is not caught: %v", r.Verdicts)
	}
	for name, v := range optest.JudgeAll(t, options(false), stale) {
		if !v.Holds {
			t.Errorf("the correct operator: %s: %s", name, v.Detail)
		}
	}
}

// Sieve's intermediate states are between two writes of one reconcile: a
// crash after the last write of a reconcile leaves none (the next reconcile
// starts from what it finished). The targets of a crash after a write are
// the writes of the reference run that another write of the same
// reconcile follows, by their k as the process counts its writes (every
// write, in a reconcile or not).
func TestCrashesAfterAWriteAimAtTheReferenceRunsIntermediateStates(t *testing.T) {
	step := func(at time.Duration, process string, reconcile int, op string) trace.Step {
		return trace.Step{At: at, Process: process, Controller: "c", Worker: 1, Reconcile: reconcile, Op: op}
	}
	steps := []trace.Step{
		step(1, "op", 1, "get"),
		step(2, "op", 1, "update"),        // k=1, followed by k=2 in reconcile 1
		step(3, "op", 1, "create"),        // k=2, the reconcile's last
		step(4, "op", 0, "create"),        // k=3, outside a reconcile
		step(5, "admin", 0, "delete"),     // another process's
		step(6, "op", 2, "update/status"), // k=4, alone in reconcile 2
		step(7, "op", 3, "patch"),         // k=5, then k=6
		step(8, "op", 3, "delete"),        // k=6, then k=7
		step(9, "op", 3, "update"),        // k=7
		step(20, "op", 4, "update"),       // after the fault phase
		step(21, "op", 4, "update"),
	}
	got := reference.WritesOf(steps, 10)
	if want := []int{1, 5, 6}; !slices.Equal(got["op"], want) || len(got["admin"]) != 0 {
		t.Errorf("the intermediate states: got %v, want op %v and none of admin", got, want)
	}
}

// A user cannot delete an object before it exists: a drawn step on a seed
// whose kind a CRD installed at run time serves waits for the seed's
// creation and runs right after it, whichever instant the kind is served
// at in a schedule (it raced it: a delete at 19 ms landed in one fault-free
// schedule and met NotFound in the other, which then kept the Gadget).
func TestAStepOnASeedWhoseKindIsNotServedYetWaitsForItsCreation(t *testing.T) {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	mine := &unstructured.Unstructured{}
	mine.SetGroupVersionKind(crdinstall.GadgetGVK)
	mine.SetNamespace(crdinstall.Namespace)
	mine.SetName("mine")
	o := world.Options{Scheme: s, Objects: []client.Object{mine},
		Managers: []world.Manager{{Name: "platform", Setup: func(mgr manager.Manager) error {
			return mgr.Add(&crdinstall.Installer{Mgr: mgr, Wait: true})
		}}}}
	w := optest.TestWorld(t, o)
	p, err := plan.Parse("seed 0\nat 0s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	var waited, created, deleted time.Duration = -1, -1, -1
	for _, st := range r.Steps {
		switch {
		case st.Op == "action" && strings.Contains(st.Result, "waits for the create of"):
			waited = st.At
		case st.Process == "admin" && st.Op == "create" && st.Object == "Gadget platform/mine" && st.Result == "ok":
			created = st.At
		case st.Process == "admin" && st.Op == "delete" && st.Object == "Gadget platform/mine" && st.Result == "ok":
			deleted = st.At
		}
	}
	if waited != 0 || created <= 0 || deleted != created {
		t.Errorf("the delete at 0s: waited at %v (want 0s), the Gadget created at %v and deleted at %v (want right after it)", waited, created, deleted)
	}
}

// Blindness is excused only for an operator that acts by the clock: the
// publishing operator never requeues after a time, so its lagging
// ConfigMap watch is no blind time (the order it saw the user's writes in is
// no excuse once its view has caught up), while the ticker's hold is.
func TestOnlyATimeDrivenOperatorHasBlindTime(t *testing.T) {
	w := optest.TestWorld(t, optest.PublishOptions(true))
	p, err := plan.Parse(optest.EditThenDeleteTheDependency)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := reference.BlindOf(w, p, r); len(got) != 0 {
		t.Errorf("an event-driven operator's lagging watch was taken as blind time: %v", got)
	}
	w = optest.TestWorld(t, optest.TickerOptions(false))
	p, err = plan.Parse("seed 7\nhold process=ticker kind=/v1/ConfigMap from=50s until=55s\n")
	if err != nil {
		t.Fatal(err)
	}
	if r, err = reference.Run(w, t, p); err != nil {
		t.Fatal(err)
	}
	if got := reference.BlindOf(w, p, r); len(got) != 2 {
		t.Errorf("the ticker's hold is not blind time: %v", got)
	}
}
