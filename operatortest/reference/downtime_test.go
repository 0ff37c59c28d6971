package reference_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/patterns/schedule"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// interleavings-agree compares two schedules of one workload in one
// environment: the kubelet's durations of each pod (how long a Job's work
// runs) are the environment, drawn alike for a seed and its partner. When
// each schedule drew its own, seed 2003 ended with the Job of 2m30s
// complete in one and still running in the other (3 of 60 seeds disagreed
// so).
func TestTwoSchedulesOfAWorkloadMeetTheSameEnvironment(t *testing.T) {
	w := optest.TestWorld(t, scheduleOptions(schedule.ScheduleSpec{Image: "backup:1", IntervalSeconds: 30, StartingDeadlineSeconds: 10, HistoryLimit: 3}))
	for _, seed := range []uint64{2003, 306, 4000} {
		p := &plan.Plan{Seed: seed}
		refs, err := reference.References(w, t, p)
		if err != nil {
			t.Fatal(err)
		}
		if v := reference.InterleavingsAgree(w, refs, refs[0].Snap); !v.Holds {
			t.Errorf("seed %d: %s", seed, v.Detail)
		}
	}
}

// A fault that takes a time-driven operator down across a scheduled instant
// legitimately skips that run (it could not start within its deadline): the
// faulted run lacks a run both fault-free schedules made. The fault-free run
// of the same downtime (the process stopped cleanly from the crash to the
// restart) skips it too, so converges does not blame the faults.
func TestAMissedScheduledRunUnderDowntimeIsNotBlamed(t *testing.T) {
	// The crash at 28s keeps the operator down (CrashLoopBackOff 10s) past
	// the run at 30s and its 5s deadline.
	got := optest.JudgeAll(t, optest.TickerOptions(false), "seed 7\ncrash process=ticker at=28s\n")
	for _, name := range []string{world.Converges, world.UpdateSummaries, world.InterleavingsAgree} {
		if v := got[name]; !v.Holds {
			t.Errorf("%s: %s", name, v.Detail)
		}
	}
	if d := got[world.Converges].Detail; !strings.Contains(d, "same downtime") {
		t.Errorf("converges held without the fault-free run of the same downtime (%q): the run at 30s was not skipped, and this test shows nothing", d)
	}
	optest.Excused(t, got[world.Converges], verdict.SameDowntime)
}

// The reference of the same downtime stops the process between reconciles:
// a crash between two writes (a run created "starting", not yet "done")
// leaves an intermediate state the clean stop does not (it waits for the
// reconcile's end). The twin, which trusts a run that exists, is caught;
// the correct operator, which makes a run in one write, holds on the same
// plan.
func TestACrashBetweenTwoWritesOfATimeDrivenOperatorIsStillCaught(t *testing.T) {
	// Write 1 is the first run's create (at 30s), write 2 its "done".
	const between = "seed 7\ncrash process=ticker write=1\n"
	twin := optest.JudgeAll(t, optest.TickerOptions(true), between)
	if twin[world.Converges].Holds || !strings.Contains(twin[world.Converges].Detail, "ticker-946684830") {
		t.Errorf("the twin's run left starting is not caught by converges: %q", twin[world.Converges].Detail)
	}
	w := optest.TestWorld(t, optest.TickerOptions(true))
	p, err := plan.Parse(between)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	down, err := reference.DowntimeReference(w, t, p, r, false, false)
	if err != nil || down == nil {
		t.Fatalf("the crash gave no downtime to replay (%v): the test does not reach the reference it is about", err)
	}
	if v := verdict.Converges(w, []*verdict.Reference{down}, down.Snap, 0); !v.Holds {
		t.Fatalf("the reference of the same downtime is not a run of its own: %s", v.Detail)
	}
	for name, v := range optest.JudgeAll(t, optest.TickerOptions(false), between) {
		if !v.Holds {
			t.Errorf("the correct operator: %s: %s", name, v.Detail)
		}
	}
}

// A write that committed before a crash stays committed: the run a
// time-driven operator made just before its process died has run, though the
// status that records it was never written, and the restart, past the run's
// starting deadline, rightly does not make it again. The clean stop before
// the cut reconcile has no such run, the clean stop after it (a graceful
// shutdown lets the reconcile in hand finish) has it, and the faulted run
// ends as the latter. Found by the false-alarm suite in the schedule
// pattern's 1,000 plans (explorer seed 1): the crash after the Job of 30s, a restart 10 s
// later (its deadline 10 s), a second downtime across the run of 60s: the
// faulted run's history keeps the Job of 30s, which the fault-free run has
// trimmed for the one of 60s. The twin, which makes each run's Job with
// generateName, is still caught when its restart is within the deadline: it
// makes the run of 30s a second time, which neither stop does.
func TestAWriteThatLandedBeforeACrashIsJudgedAsTheStopAfterItsReconcile(t *testing.T) {
	const found = "seed 11\n" +
		"at 49ms mutate object=0 field=spec.historyLimit value=4 expect=valid\n" +
		"hold process=schedule kind=/v1/Secret from=23.842s until=23.931s\n" +
		"crash process=schedule at=34.203349309s\n" +
		"crash process=schedule write=1\n" +
		"stale process=schedule at=50.351256583s age=334ms\n"
	spec := schedule.ScheduleSpec{Image: "backup:1", IntervalSeconds: 30, StartingDeadlineSeconds: 10, HistoryLimit: 3}
	got := optest.JudgeAll(t, scheduleOptions(spec), found)
	for _, name := range []string{world.Converges, world.UpdateSummaries} {
		if v := got[name]; !v.Holds {
			t.Errorf("the correct operator: %s: %s", name, v.Detail)
		}
	}
	if d := got[world.Converges].Detail; !strings.Contains(d, "after the reconciles the crash cut") {
		t.Errorf("converges held without the stop after the cut reconcile (%q): the plan no longer reaches the rule, and this test shows nothing", d)
	}
	optest.Excused(t, got[world.Converges], verdict.SameDowntime, verdict.StopAfterCut)

	// The twin's restart (10 s after the crash) is within a 20 s deadline,
	// and the history keeps every run.
	spec.StartingDeadlineSeconds, spec.HistoryLimit = 20, 10
	const within = "seed 11\ncrash process=schedule write=1\n"
	for name, v := range optest.JudgeAll(t, scheduleOptions(spec), within) {
		if !v.Holds {
			t.Errorf("the correct operator, restarted within the deadline: %s: %s", name, v.Detail)
		}
	}
	twin := optest.JudgeAll(t, scheduleTwinOptions(spec, true), within)
	t.Logf("the twin: converges %q; update-summaries %q", twin[world.Converges].Detail, twin[world.UpdateSummaries].Detail)
	if twin[world.Converges].Holds && twin[world.UpdateSummaries].Holds {
		t.Errorf("the twin's second Job for the run of 30s is not caught: converges %q, update-summaries %q", twin[world.Converges].Detail, twin[world.UpdateSummaries].Detail)
	}
}

// A faulted run's downtime is each crash of an operator's process to its
// next start, replayed as clean stops; the built-in processes' are not the
// operator's.
func TestTheDowntimeIsEachCrashToTheNextStart(t *testing.T) {
	w := optest.TestWorld(t, optest.TickerOptions(false))
	p, err := plan.Parse("seed 3\ncrash process=ticker at=5s\ncrash process=ticker at=40s\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	stops := reference.DowntimeOf(w, r.Steps, false)
	var text []string
	for _, s := range stops {
		text = append(text, s.String())
	}
	if len(stops) != 2 || stops[0].From != 5e9 || stops[0].Until <= stops[0].From+10e9-1 || stops[1].From != 40e9 || stops[1].Until <= stops[1].From {
		t.Errorf("downtime %q, want two stops: from 5s to its restart (10s back-off later or more) and from 40s to its restart", text)
	}
	for _, s := range stops {
		if _, err := plan.Parse("seed 1\n" + s.String() + "\n"); err != nil {
			t.Errorf("a stop's text does not parse back: %v", err)
		}
	}
}

// A clean stop (plan.Stop) is a graceful shutdown: a reconcile in flight at
// the stop's instant runs to its end (the twin's run is made in both its
// writes), and the process stops before it begins another; it starts again
// at the stop's end. A crash right after the first write cuts the same
// reconcile between its writes.
func TestACleanStopLetsTheReconcileInHandFinish(t *testing.T) {
	w := optest.TestWorld(t, optest.TickerOptions(true))
	run := func(text string) (map[string]string, []trace.Step) {
		t.Helper()
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		snap, r, err := reference.RunOnce(w, t, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Of(corev1.SchemeGroupVersion.WithKind("ConfigMap")).Text, r.Steps
	}
	const first = "ConfigMap ops/ticker-946684830" // the run at 30s
	crashed, steps := run("seed 7\ncrash process=ticker write=1\n")
	if !strings.Contains(crashed[first], `"state":"starting"`) {
		t.Fatalf("the crash did not cut the reconcile between its writes, and this test shows nothing: %s", crashed[first])
	}
	var written time.Duration // when the first write committed: its reconcile is in flight
	for _, s := range steps {
		if s.Process == "ticker" && s.Op == "create" {
			written = s.At
			break
		}
	}
	stopped, steps := run(fmt.Sprintf("seed 7\nstop process=ticker from=%v until=45s\n", written))
	if !strings.Contains(stopped[first], `"state":"done"`) {
		t.Errorf("the clean stop at %v cut the reconcile in hand: %s", written, stopped[first])
	}
	var stopAt, lastResult, restart time.Duration
	for _, s := range steps {
		switch {
		case s.Process != "ticker":
		case s.Op == "crash" && stopAt == 0:
			stopAt = s.At
		case s.Op == "result" && stopAt == 0:
			lastResult = s.At
		case s.Op == "restart":
			restart = s.At
		}
	}
	if stopAt <= written || stopAt < lastResult || restart != 45*time.Second {
		t.Errorf("stopped at %v (asked at %v; the last result at %v), restarted at %v; want a stop once the reconcile in hand ended and a restart at 45s", stopAt, written, lastResult, restart)
	}
}

// The reference of the same downtime excuses what the time down explains,
// not what the restart does: an operator whose end state counts its own
// starts ends differently after any restart, and the fault-free run of the
// same restarts with no time down shows that too, so converges still blames
// it.
func TestARestartThatChangesTheEndStateIsNotExcusedAsDowntime(t *testing.T) {
	o := optest.AppOptions(nil)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		counted := false // the process's memory: lost in a crash
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
				if app.Name != "app" || counted {
					return nil
				}
				// The bug: the managed object counts the operator's starts.
				n, _ := strconv.Atoi(app.Data["starts"])
				if app.Data == nil {
					app.Data = map[string]string{}
				}
				app.Data["starts"] = strconv.Itoa(n + 1)
				if err := c.Update(ctx, app); err != nil {
					return err
				}
				counted = true
				return nil
			}})
	}
	got := optest.JudgeAll(t, o, "seed 1\ncrash process=op at=5s\n")
	if v := got[world.Converges]; v.Holds || !strings.Contains(v.Detail, "data.starts") || !strings.Contains(v.Detail, "the restart, not the downtime") {
		t.Errorf("converges: holds %v: %s; want a violation at data.starts that the same downtime does not excuse", v.Holds, v.Detail)
	}
	optest.Excused(t, got[world.Converges], verdict.SameRestarts)
}

// scheduleOptions is the smallest time-driven operator of the false-alarm
// suite (examples/patterns/schedule: a Job every 30 s, named by its
// scheduled time; a run that cannot start within the starting deadline is
// skipped by design), with spec as given.
func scheduleOptions(spec schedule.ScheduleSpec) world.Options {
	return scheduleTwinOptions(spec, false)
}

// scheduleTwinOptions is scheduleOptions, or with buggy its twin's: each
// run's Job made with generateName, so that a run made again after a restart
// is a second Job.
func scheduleTwinOptions(spec schedule.ScheduleSpec, buggy bool) world.Options {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = schedule.AddToScheme(s)
	return world.Options{
		Scheme: s,
		CRDs:   [][]byte{schedule.CRD},
		Managers: []world.Manager{{Name: "schedule", Setup: func(mgr manager.Manager) error {
			return (&schedule.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&schedule.Schedule{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "backup"}, Spec: spec}},
	}
}
