package patterns_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// sessionsChurn holds statefulset-parallel's view of its Cache past the
// Cache's deletion and re-creation: the StatefulSet controller's creates
// of the new StatefulSet's pods fail AlreadyExists while the old pods are
// still Terminating (their container ignores SIGTERM for its 2m grace:
// replayBackoff, until about 2m10s), its per-key back-off doubling from
// 5 ms, and its retry after the old pods went comes past the run's end
// (3m0.001s): no pod when the run ends, 3 once the retry comes on a real
// cluster. The fault-free run of its workload makes the new StatefulSet
// at 10 s, not 40 s: its back-off's retry after the old pods went comes
// before the end, and its pods are there. (With ctrlsim's model of the
// garbage collector the Cache was deleted at 20 s; with
// kube-controller-manager's own, which deletes the old pods within a
// millisecond of each other where the model's took 300 ms, that plan's
// fault-free run ended in the same back-off, and the excuse was not
// needed.)
const sessionsChurn = `seed 7
at 10s delete object=0
at 10.001s recreate object=0
hold process=statefulset kind=patterns.ctrlsim.dev/v1/Cache from=0s until=40s
`

// cacheIgnoresSIGTERM is the container of the statefulset patterns' pods
// as the back-off tests see it: a cache that saves its data on SIGTERM
// for its whole grace period (2m, the pattern's template), so that a
// deleted pod stays Terminating for as long, as on a real cluster (with
// the default stop, in seconds, no plan ends in the StatefulSet
// controller's back-off).
const cacheIgnoresSIGTERM = "cache"

// replayBackoff replays pl on the pattern's correct operator or its twin,
// its container ignoring SIGTERM (cacheIgnoresSIGTERM).
func replayBackoff(t *testing.T, name string, twin bool, pl string) *operatortest.Replayed {
	t.Helper()
	for _, p := range patterns {
		if p.name == name {
			o := p.options(twin)
			o.IgnoreSIGTERM = []string{cacheIgnoresSIGTERM}
			r, err := operatortest.Replay(t, o, mustPlan(t, pl))
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no pattern %s", name)
	return nil
}

// replayPattern replays pl on the pattern's correct operator or its twin.
func replayPattern(t *testing.T, name string, twin bool, pl string) *operatortest.Replayed {
	t.Helper()
	for _, p := range patterns {
		if p.name == name {
			r, err := operatortest.Replay(t, p.options(twin), mustPlan(t, pl))
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	t.Fatalf("no pattern %s", name)
	return nil
}

func verdictOf(r *operatortest.Replayed, property string) (v struct {
	Holds   bool
	Detail  string
	Excused []string
}) {
	for _, x := range r.Verdicts {
		if x.Property == property {
			v.Holds, v.Detail, v.Excused = x.Holds, x.Detail, x.Excused
		}
	}
	return v
}

// A run that ends while kube-controller-manager's StatefulSet controller
// holds the StatefulSet in back-off has not converged yet on a real cluster
// either: converges holds, by the cluster's back-off (the table's
// cluster-backoff), and the run's end names the key.
func TestAnEndInTheStatefulSetControllersBackoffIsNotJudgedAsConverged(t *testing.T) {
	r := replayBackoff(t, "statefulset-parallel", false, sessionsChurn)
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.Converges); !slices.Contains(v.Excused, verdict.ClusterBackoff) {
		t.Fatalf("converges holds by %v, want %s", v.Excused, verdict.ClusterBackoff)
	}
	var keys []string
	for _, b := range r.Final.Run().Backoffs {
		keys = append(keys, b.Controller+" "+b.Kind.Kind+" "+b.Key)
		if b.Due <= r.Final.Run().End || b.Requeues < 10 {
			t.Errorf("%s: %d requeues, due at %v: want a retry after the end (%v) of a long back-off", b.Key, b.Requeues, b.Due, r.Final.Run().End)
		}
	}
	if !slices.Contains(keys, "statefulset-controller StatefulSet data/sessions") {
		t.Fatalf("the run ends with %v in back-off, want the StatefulSet controller's data/sessions", keys)
	}
}

// The excuse is coarse: while the StatefulSet controller backs off, the
// Cache's status (a mirror of the StatefulSet's) is not compared, so the
// twin that never watches its StatefulSet is not caught by converges on
// this plan (verdict's Known gaps), nor by interleavings-agree: its two
// schedules' fault-free runs end alike, no pod of the new StatefulSet made
// before the end in either. The false-alarm suite's other plans catch it
// (pods that stop in seconds, readiness it never sees).
func TestATwinsMirrorOfAnObjectInTheClustersBackoffIsNotJudged(t *testing.T) {
	r := replayBackoff(t, "statefulset-parallel", true, sessionsChurn)
	if v := verdictOf(r, world.Converges); !v.Holds || !slices.Contains(v.Excused, verdict.ClusterBackoff) {
		t.Fatalf("the twin's converges: holds %v by %v (%s), want it to hold by %s", v.Holds, v.Excused, v.Detail, verdict.ClusterBackoff)
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the twin violates %v on this plan: the gap is closed, or another property sees it", vs)
	}
}

// A fault-free run that ends while the cluster backs off is still being
// worked on whichever run it is: on seed 4 the correct operator's
// fault-free run of the re-creation workload ends with the StatefulSet
// controller backing off on data/sessions (its retry due past the end),
// the other schedule's does not, and interleavings-agree holds by
// cluster-backoff, as converges does for the faulted run.
func TestAFaultFreeRunInTheClustersBackoffIsNotJudgedByInterleavingsAgree(t *testing.T) {
	const recreation = "seed 4\nat 20s delete object=0\nat 20.001s recreate object=0\n"
	r := replayBackoff(t, "statefulset-parallel", false, recreation)
	var keys []string
	for _, b := range r.Final.Run().Backoffs {
		keys = append(keys, b.Controller+" "+b.Kind.Kind+" "+b.Key)
	}
	if !slices.Contains(keys, "statefulset-controller StatefulSet data/sessions") {
		t.Fatalf("the fault-free run ends with %v in back-off, want the StatefulSet controller's data/sessions", keys)
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.InterleavingsAgree); !slices.Contains(v.Excused, verdict.ClusterBackoff) {
		t.Fatalf("interleavings-agree holds by %v (%s), want %s", v.Excused, v.Detail, verdict.ClusterBackoff)
	}
}

// memberConflicts lags every watch of member-volume's operator 3.69 s, so
// that each reconcile's update of the StatefulSet it has just written is a
// Conflict, and answers one of its status writes 429: its per-key back-off
// doubles with each failure, and its retry of store/main comes past the
// heal budget's end (the twin's minimal plan at random plan 82, explorer
// seed 1).
const memberConflicts = `seed 4095
lag process=membervolume kind=* min=3.688s max=3.69s
api process=membervolume verb=update resource=dbclusters subresource=status namespace=store name=main code=429 count=1 from=3.557935948s until=30.573935948s
`

// A run whose faults grew the operator's own back-off past the heal budget
// goes on until that retry and a heal budget more, as a real cluster would
// retry the key minutes later: the correct operator, whose last reconcile
// under the faults ended in a 429 (its 23rd requeue: a retry due at
// 16m50s), converges with no error at rest.
func TestARetryTheFaultsPutPastTheHealIsWaitedFor(t *testing.T) {
	r := replayPattern(t, "member-volume", false, memberConflicts)
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	waited := false
	for _, s := range r.Steps {
		if s.Op == "retries" && strings.Contains(s.Result, "dbcluster store/main") {
			waited = true
		}
	}
	if !waited {
		t.Fatal("the run did not wait for the operator's retry: the plan no longer grows its back-off past the heal")
	}
}

// cacheDeletedAtTheHeal deletes the Cache at the fault phase's end: its
// pods, deleted by the collector with their 2m grace and a container that
// ignores SIGTERM, are killed at 3m0.001s, just past the heal budget.
const cacheDeletedAtTheHeal = "seed 1\nat 60s delete object=0\n"

// A run is judged after the kills its kubelet has scheduled: the pods of a
// Cache deleted at the heal, killed 1 ms past the heal budget, are waited
// for, and terminates holds with nothing left deleting (it fired, "deleting
// for 2m0.001s", when the run ended before the kill). The twin that must
// still be caught, a pod held by a finalizer nobody removes, is
// operatortest/world's TestAPodsKillDueAtTheRunsEndIsWaitedFor.
func TestAStatefulSetsPodsKilledPastTheHealAreWaitedFor(t *testing.T) {
	r := replayBackoff(t, "statefulset-parallel", false, cacheDeletedAtTheHeal)
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.Terminates); !v.Holds || len(v.Excused) > 0 {
		t.Errorf("terminates holds %v by %v (%s), want it to hold with nothing left deleting", v.Holds, v.Excused, v.Detail)
	}
	waited := slices.ContainsFunc(r.Steps, func(s trace.Step) bool {
		return s.Op == "scheduled" && strings.Contains(s.Result, "Pod data/sessions-")
	})
	if !waited {
		t.Error("the run did not wait for the kubelet's kill of the Cache's pods: the plan no longer puts it past the heal budget")
	}
}

// cacheRollout changes the Cache's version at 17 s: the StatefulSet
// controller replaces its pods one at a time, each deletion made after the
// pod before went, and each pod takes its 2m grace to go (its container
// ignores SIGTERM). The run waits for the kill due past the heal budget
// (sessions-1's, at 4m19.2s) and heals 2m more; by then sessions-0 is
// deleting too, its kill due at 6m20.6s, after the end.
const cacheRollout = "seed 0\nat 17.06s mutate object=0 field=spec.version value=\"\\\"7.2\\\"\" expect=valid\n"

// A chain of kills that outlasts the heal budget ends with a pod in its
// grace period, its kill scheduled: terminates holds by stop-scheduled (it
// fired, "deleting for 1m59.201s", with the wait alone, and "deleting for
// 41.001s" without it). The twin that must still be caught, a pod whose
// stop is not scheduled after the end, is operatortest/verdict's
// TestAPodWhoseKillIsScheduledAfterTheEndIsInItsGracePeriod.
func TestAStatefulSetsChainOfKillsPastTheHealEndsInAGracePeriod(t *testing.T) {
	r := replayBackoff(t, "statefulset-parallel", false, cacheRollout)
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.Terminates); !slices.Equal(v.Excused, []string{verdict.StopScheduled}) || !strings.Contains(v.Detail, "Pod data/sessions-") {
		t.Errorf("terminates holds by %v (%s), want %s naming a pod of the Cache", v.Excused, v.Detail, verdict.StopScheduled)
	}
}

// cacheScaledDownAtTheHeal scales the Cache down to 2 at 20 s while the
// operator's view of Caches is held until just past the fault phase: the
// StatefulSet controller deletes sessions-2 at the heal, and its kill comes
// at 3m0.004s, past the heal budget (an exploration of the correct
// operators with their container ignoring SIGTERM found it at plan 25).
const cacheScaledDownAtTheHeal = `seed 1
at 20s mutate object=0 field=spec.replicas value=2 expect=valid
hold process=statefulset kind=patterns.ctrlsim.dev/v1/Cache from=0s until=1m0.001s
`

// A StatefulSet scaled down at the heal converges once its pod's kill,
// scheduled past the heal budget, has come: the run waits for it (judged
// before it, converges fired, "readyReplicas: 2 there, 3 here", the
// faulted run's sessions-2 still Terminating).
func TestAStatefulSetScaledDownAtTheHealConvergesAfterTheKill(t *testing.T) {
	for _, name := range []string{"statefulset", "statefulset-parallel"} {
		r := replayBackoff(t, name, false, cacheScaledDownAtTheHeal)
		if vs := r.Violated(); len(vs) != 0 {
			t.Errorf("%s: the correct operator violates %v", name, vs)
		}
		waited := slices.ContainsFunc(r.Steps, func(s trace.Step) bool {
			return s.Op == "scheduled" && strings.Contains(s.Result, "Pod data/sessions-2")
		})
		if !waited {
			t.Errorf("%s: the run did not wait for sessions-2's kill: the plan no longer puts it past the heal budget", name)
		}
	}
}
