package failure

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// An author's property whose detail says "the extra ... is in" another run
// is read as converges' is: the write that differs is that run's.
func TestAnAuthorsDetailSayingTheExtraIsInAnotherRunIsReadSo(t *testing.T) {
	v := check.Verdict{Property: "my-property", Detail: "the extra delete is in the run my property imagines"}
	if _, why := pathHeading(v); !strings.Contains(why, "the write that differs is the fault-free run's") {
		t.Errorf("the author's detail read as this run's (%q)", why)
	}
}

// A lag, a latency and a workers fault show at no step of the run: the
// steps from the fault have no step of theirs to start from.
func TestALagLatencyOrWorkersFaultHasNoStepOfItsOwn(t *testing.T) {
	steps := []trace.Step{
		{At: time.Second, Process: "op", Op: "get", Object: "ConfigMap team/app", Result: "ok"},
		{At: 2 * time.Second, Process: "op", Op: "update", Object: "ConfigMap team/app", Result: "ok"},
	}
	for _, f := range []plan.Fault{
		{Kind: plan.Lag, Process: "op", Resource: "*", Max: 20 * time.Millisecond},
		{Kind: plan.Latency, Process: "op", Max: 20 * time.Millisecond},
		{Kind: plan.Workers, Process: "op"},
	} {
		if at := manifest(f, steps); at != -1 {
			t.Errorf("%s shows at step %d", f.Kind, at)
		}
	}
}

// Only a violation that names the fault-free run of the plan's seed is
// compared with a run for what this run never did: one decided by the late
// run, or interleavings-agree's, gets none (and no run is made for it).
func TestOnlyTheFaultFreeRunOfThePlansSeedIsComparedForWhatThisRunNeverDid(t *testing.T) {
	p, err := plan.Parse("seed 1\ncrash process=op at=1s\n")
	if err != nil {
		t.Fatal(err)
	}
	vs := []check.Verdict{
		{Property: world.Converges, Detail: "Secret team/app-child exists after this run, not after the late run of the same workload"},
		{Property: world.InterleavingsAgree, Detail: "the suspect is the fault-free run with seed 2049"},
	}
	if c := ComparedRun(nil, t, p, vs); c != nil {
		t.Errorf("compared with %s", c.Name)
	}
}

// A plan with no fault whose interleavings-agree verdict blames its own
// seed's run is taken for the suspect itself: no other run is drawn.
func TestAFaultlessPlanBlamingItsOwnScheduleIsItsOwnSuspect(t *testing.T) {
	p, err := plan.Parse("seed 2049\n")
	if err != nil {
		t.Fatal(err)
	}
	vs := []check.Verdict{{Property: world.InterleavingsAgree, Detail: "the suspect is the fault-free run with seed 2049"}}
	if s := SuspectOf(nil, t, p, vs); s != nil {
		t.Errorf("the suspect is %s", s.Name)
	}
}

// A core Event and an events.k8s.io Event of one namespace and name keep
// their indexes in a printed plan: the name form carries no group.
func TestSeedObjectsOfOneKindNameInTwoGroupsKeepTheirIndexes(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "team", Name: "started"}
	w := &world.World{Opts: world.Options{Scheme: clientgoscheme.Scheme, Objects: []client.Object{
		&corev1.Event{ObjectMeta: meta},
		&eventsv1.Event{ObjectMeta: meta},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}},
	}}}
	got := SeedNames(w)
	if want := []string{"0", "1", "ConfigMap/team/app"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("seed names %q, want %q", got, want)
	}
}
