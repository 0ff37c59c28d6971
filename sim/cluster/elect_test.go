package cluster_test

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

var lease = types.NamespacedName{Namespace: "default", Name: "stamper-lock"}

// replicas is the stamper world with its two processes as replicas of one
// manager, electing a leader through the Lease default/stamper-lock.
func replicas() cluster.Options {
	opts := world()
	for i := range opts.Processes {
		opts.Processes[i].LeaderElection = &process.LeaderElection{Namespace: lease.Namespace, Name: lease.Name}
	}
	return opts
}

func runReplicas(t *testing.T, text string, d time.Duration) *cluster.Cluster {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(p, replicas())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(d)
	return c
}

func holder(t *testing.T, c *cluster.Cluster) coordinationv1.LeaseSpec {
	t.Helper()
	l := &coordinationv1.Lease{}
	if err := c.Get(lease, l); err != nil {
		t.Fatal(err)
	}
	return l.Spec
}

// reconcilers are the processes that reconciled, with their first reconcile.
func reconcilers(c *cluster.Cluster, from time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, s := range c.Trace.Steps() {
		if s.Op == "reconcile" && s.At >= from {
			if _, ok := out[s.Process]; !ok {
				out[s.Process] = s.At
			}
		}
	}
	return out
}

// Two replicas: one acquires the Lease and runs the controllers, the other
// only retries the Lease; the leader renews it every RetryPeriod.
func TestOneReplicaLeads(t *testing.T) {
	c := runReplicas(t, "seed 1\nat 1s create name=w1 size=2 color=blue\nat 5s create name=w2 size=1 color=blue\n", time.Minute)
	spec := holder(t, c)
	leader, _, _ := strings.Cut(*spec.HolderIdentity, "_")
	rec := reconcilers(c, 0)
	if len(rec) != 1 || rec[leader] == 0 {
		t.Fatalf("only the leader %s should reconcile; reconciled: %v", leader, rec)
	}
	if *spec.LeaseDurationSeconds != 15 || *spec.LeaseTransitions != 0 {
		t.Errorf("lease spec %+v: want 15s and no transitions", spec)
	}
	renews := 0
	for _, s := range c.Trace.Steps() {
		if s.Op == "update" && s.Process == leader && strings.HasPrefix(s.Object, "Lease ") {
			renews++
		}
	}
	// Renewals every 2s (plus call latency) over a minute.
	if renews < 25 || renews > 31 {
		t.Errorf("the leader renewed %d times in a minute; want about 30 (every RetryPeriod)", renews)
	}
	// One "became leader" Event on the Lease (LeaseLock.RecordEvent).
	events := 0
	for _, s := range c.Trace.Steps() {
		if s.Op == "create" && strings.HasPrefix(s.Object, "Event default/stamper-lock.") && s.Result == "ok" {
			events++
		}
	}
	if events != 1 {
		t.Errorf("%d Events on the Lease; want 1 (became leader)", events)
	}
}

// The leader crashes: its new incarnation is a new identity, so neither it nor
// the other replica may lead until the old record's LeaseDuration has passed
// since they observed it; then one takes over (a transition) and reconciles.
func TestTheOtherReplicaTakesOverAfterTheLeaseExpires(t *testing.T) {
	c := runReplicas(t, "seed 1\nat 1s create name=w1 size=2 color=blue\n", 10*time.Second)
	leader, _, _ := strings.Cut(*holder(t, c).HolderIdentity, "_")
	const crashAt = 20 * time.Second
	c = runReplicas(t, "seed 1\nat 1s create name=w1 size=2 color=blue\nat 30s create name=w2 size=1 color=blue\ncrash process="+leader+" at=20s\n", 2*time.Minute)
	spec := holder(t, c)
	if *spec.LeaseTransitions != 1 {
		t.Fatalf("lease transitions %d, want 1 (the takeover)", *spec.LeaseTransitions)
	}
	var took time.Duration
	for _, s := range c.Trace.Steps() {
		if s.Op == "log" && s.Object == "leader-election" && strings.HasPrefix(s.Result, "successfully acquired") && s.At > crashAt {
			took = s.At
			break
		}
	}
	// The last renewal was at most RetryPeriod (plus latency) before the
	// crash; candidates notice expiry at a retry at most 4.4s late.
	if took < crashAt+15*time.Second-3*time.Second || took > crashAt+15*time.Second+5*time.Second {
		t.Fatalf("the takeover came at %v; want about LeaseDuration after the crash at %v", took, crashAt)
	}
	after := reconcilers(c, crashAt)
	for proc, at := range after {
		if at < took {
			t.Errorf("%s reconciled at %v, before a leader was elected at %v", proc, at, took)
		}
	}
	if len(after) != 1 {
		t.Errorf("after the crash one replica should reconcile: %v", after)
	}
}

// A leader that cannot renew for RenewDeadline exits ("leader election lost")
// and restarts; the Lease passes to a replica once it has expired.
func TestALeaderThatCannotRenewExits(t *testing.T) {
	c := runReplicas(t, "seed 1\n", 10*time.Second)
	leader, _, _ := strings.Cut(*holder(t, c).HolderIdentity, "_")
	c = runReplicas(t, "seed 1\napi verb=update resource=leases code=500 from=20s until=40s\n", 2*time.Minute)
	var lost, crash trace.Step
	for _, s := range c.Trace.Steps() {
		if s.Process == leader && s.Op == "log" && s.Result == "leader election lost" && lost.Op == "" {
			lost = s
		}
		if s.Process == leader && s.Op == "crash" && crash.Op == "" {
			crash = s
		}
	}
	if lost.Op == "" || crash.Result != "exit 1" {
		t.Fatalf("the leader should lose the election and exit 1: lost %+v, crash %+v", lost, crash)
	}
	// Its last renewal was before 20s; the loss comes RetryPeriod+RenewDeadline after it.
	if lost.At < 20*time.Second+8*time.Second || lost.At > 20*time.Second+13*time.Second {
		t.Errorf("the leader gave up at %v; want RenewDeadline after its last renewal before 20s", lost.At)
	}
	if *holder(t, c).LeaseTransitions < 1 {
		t.Errorf("no replica took over the Lease")
	}
}

// Replicas run to one trace hash in every run.
func TestLeaderElectionDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 4\nat 1s create name=w1 size=2 color=blue\ncrash process=a at=7s\ncrash process=b at=40s\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.CheckDeterminism(p, replicas, func(c *cluster.Cluster) { c.RunFor(2 * time.Minute) }); err != nil {
		t.Fatal(err)
	}
}

// A controller whose options say it needs no leader election runs in every
// replica at once, as controller-runtime starts it with the manager's other
// runnables.
func TestAControllerThatNeedsNoElectionRunsInEveryReplica(t *testing.T) {
	p, err := plan.Parse("seed 2\nat 1s create name=w1 size=2 color=blue\n")
	if err != nil {
		t.Fatal(err)
	}
	opts := replicas()
	for i := range opts.Processes {
		opts.Processes[i].Setup = func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).
				WithOptions(controller.Options{NeedLeaderElection: ptr.To(false)}).Complete(&stamper{p: p})
		}
	}
	c, err := cluster.New(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(10 * time.Second)
	if rec := reconcilers(c, 0); len(rec) != 2 {
		t.Fatalf("both replicas should reconcile: %v", rec)
	}
}

// A replica that does not lead has started none of its controllers: no
// informer, as controller-runtime's sources start only with their controller.
func TestAFollowerStartsNoInformers(t *testing.T) {
	c := runReplicas(t, "seed 1\nat 1s create name=w1 size=2 color=blue\n", 10*time.Second)
	leader, _, _ := strings.Cut(*holder(t, c).HolderIdentity, "_")
	for _, p := range c.Processes() {
		n := len(p.GetCache().Informers())
		if p.Name() == leader && n == 0 {
			t.Errorf("the leader %s has no informers", p.Name())
		}
		if p.Name() != leader && n != 0 {
			t.Errorf("the follower %s has %d informers", p.Name(), n)
		}
	}
}
