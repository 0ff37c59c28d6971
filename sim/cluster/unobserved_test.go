package cluster_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/cluster"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// An unobserved fault keeps one object from one process, from its creation
// until the heal: the process's informers never get it, a restart inside
// the window lists without it, the other process and the other objects are
// untouched, and the heal hands the process its newest state.
func TestAnObjectUnobservedFromItsCreationReachesItsProcessOnlyAtTheHeal(t *testing.T) {
	c := runFaults(t, "seed 1\nunobserved process=a kind=/v1/ConfigMap object=default/late from=0 until=0\ncrash process=a at=15s\n", 9*time.Second)
	cached(t, c, "a") // the informers exist before the ConfigMap does
	cached(t, c, "b")
	c.RunUntil(12 * time.Second)
	if cached(t, c, "a") || !cached(t, c, "b") {
		t.Fatalf("after its creation at 10s: a has it %v (want false: unobserved), b %v (want true)", cached(t, c, "a"), cached(t, c, "b"))
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "late"}}
	if err := c.Get(crclient.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"v": "2"}
	if err := c.Admin().Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	c.RunUntil(14 * time.Second)
	if cached(t, c, "a") {
		t.Fatal("a sees the ConfigMap after its first update: the window runs until its deletion or the heal")
	}
	c.RunUntil(40 * time.Second) // a crashed at 15s and started again, listing
	if !c.Process("a").Running() || cached(t, c, "a") {
		t.Fatalf("a restarted inside the window: running %v, has the ConfigMap %v (want true, false)", c.Process("a").Running(), cached(t, c, "a"))
	}
	c.Heal()
	c.RunFor(time.Second)
	got := &corev1.ConfigMap{}
	if err := c.Process("a").GetCache().Get(context.Background(), crclient.ObjectKeyFromObject(cm), got); err != nil || got.Data["v"] != "2" {
		t.Fatalf("after the heal a reads the ConfigMap as %v (err %v), want its newest state (v=2)", got.Data, err)
	}
	var lines []string
	for _, s := range stepsOf(c, func(s trace.Step) bool { return s.Op == "unobserved" || s.Op == "catch-up" }) {
		lines = append(lines, s.Process+" "+s.Op+" "+s.Object+": "+s.Result)
	}
	want := []string{
		"a unobserved ConfigMap default/late: its changes from resourceVersion",
		"a unobserved ConfigMap default/late: the window ends at the heal",
		"a catch-up : its informers got the newest state of the objects they did not observe, at the heal",
	}
	if len(lines) != len(want) {
		t.Fatalf("the trace says\n%q\nwant lines starting\n%q", lines, want)
	}
	for i := range want {
		if len(lines[i]) < len(want[i]) || lines[i][:len(want[i])] != want[i] {
			t.Fatalf("the trace says\n%q\nwant lines starting\n%q", lines, want)
		}
	}
}

// A Widget unobserved by a from its creation: a's controller never
// reconciles it during the fault phase, across a restart, while b's does at
// once; after the heal a reconciles it. The same plan gives the same trace.
func TestAnUnobservedObjectIsNeverReconciledByItsProcessUntilTheHeal(t *testing.T) {
	const text = "seed 1\nunobserved process=a kind=test.ctrlsim.dev/v1/Widget object=default/w0 from=0 until=0\ncrash process=a at=5s\n"
	run := func(c *cluster.Cluster) {
		c.RunUntil(30 * time.Second)
		c.Heal()
		c.RunFor(5 * time.Second)
	}
	c, err := cluster.New(mustParse(t, text), twoProcesses())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	run(c)
	first := func(p, object string) time.Duration {
		for _, s := range c.Trace.Steps() {
			if s.Process == p && s.Op == "reconcile" && s.Object == object {
				return s.At
			}
		}
		return -1
	}
	if at := first("b", "default/w0"); at < 0 || at > time.Second {
		t.Errorf("b first reconciled w0 at %v, want at the start", at)
	}
	if at := first("a", "default/w1"); at < 0 || at > time.Second {
		t.Errorf("a first reconciled w1 at %v, want at the start: only w0 is unobserved", at)
	}
	if at := first("a", "default/w0"); at < 30*time.Second {
		t.Errorf("a first reconciled w0 at %v, want after the heal at 30s", at)
	}
	if err := cluster.CheckDeterminism(mustParse(t, text), twoProcesses, run); err != nil {
		t.Error(err)
	}
}
