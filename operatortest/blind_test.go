package operatortest

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/patterns/schedule"
	"github.com/ctrlsim/ctrlsim/sim/plan"
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
	got := judgeAll(t, tickerOptions(false), stale)
	for _, name := range []string{Converges, UpdateSummaries, InterleavingsAgree} {
		if v := got[name]; !v.Holds {
			t.Errorf("%s: %s", name, v.Detail)
		}
	}
	if d := got[Converges].Detail; !strings.Contains(d, "blind time") {
		t.Errorf("converges held without the fault-free run of the same blind time (%q): the run at 30s was not skipped, and this test shows nothing", d)
	}
}

// The blind windows of a faulted run: where an operator process's view did
// not show an object that existed then. Under a stale restart (view: the
// state age earlier, until it has caught up), the ticker created at 0 is
// hidden from the restart to age after its creation; under a hold of a
// kind, an object created during the hold is hidden from its creation to
// the hold's end, and one that existed when the hold began is not hidden.
func TestBlindWindowsAreWhereTheViewLackedAnObjectThatExisted(t *testing.T) {
	w := testWorld(t, tickerOptions(false))
	find := func(text string) []plan.Fault {
		t.Helper()
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		r, err := w.run(t, p)
		if err != nil {
			t.Fatal(err)
		}
		var out []plan.Fault
		for _, f := range w.blindOf(p, r) {
			if f.Process != "ticker" {
				t.Errorf("a blind window of %s, not of the operator's process: %s", f.Process, f)
			}
			if f.Resource == "/v1/ConfigMap" {
				out = append(out, f)
			}
		}
		return out
	}
	stale := find("seed 7\nstale process=ticker at=1s age=40s\n")
	if len(stale) == 0 || stale[0].Object != "ops/ticker" || stale[0].From != 11*time.Second || stale[0].Until < 39*time.Second || stale[0].Until > 41*time.Second {
		t.Errorf("stale restart at 11s, 40s behind: want the ticker hidden from 11s to about 40s, got %v", stale)
	}
	// The run of 30s (ticker-946684830) is made during the hold: hidden
	// from then to the hold's end; the ticker itself is not.
	held := find("seed 7\nhold process=ticker kind=/v1/ConfigMap from=20s until=50s\n")
	if len(held) != 1 || held[0].Object != "ops/ticker-946684830" || held[0].From < 30*time.Second || held[0].Until != 50*time.Second {
		t.Errorf("hold from 20s to 50s: want only the run made at 30s hidden, until 50s; got %v", held)
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
	options := func(buggy bool) Options {
		s := runtime.NewScheme()
		_ = clientgoscheme.AddToScheme(s)
		_ = schedule.AddToScheme(s)
		return Options{
			Scheme: s,
			CRDs:   [][]byte{schedule.CRD},
			Managers: []Manager{{Name: "schedule", Setup: func(mgr manager.Manager) error {
				return (&schedule.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
			}}},
			Objects: []client.Object{&schedule.Schedule{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "backup"},
				Spec: schedule.ScheduleSpec{Image: "backup:1", IntervalSeconds: 30, StartingDeadlineSeconds: 60, HistoryLimit: 3}}},
		}
	}
	w := testWorld(t, options(true))
	p, err := plan.Parse(stale)
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.run(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.blindOf(p, r)) == 0 {
		t.Fatal("the stale restart hid nothing: the test does not reach the blind reference it is about")
	}
	caught := false
	for _, v := range r.verdicts {
		if (v.Property == UpdateSummaries || v.Property == Converges) && !v.Holds {
			caught = true
		}
	}
	if !caught {
		t.Errorf("the twin that runs again on a stale status is not caught: %v", r.verdicts)
	}
	for name, v := range judgeAll(t, options(false), stale) {
		if !v.Holds {
			t.Errorf("the correct operator: %s: %s", name, v.Detail)
		}
	}
}
