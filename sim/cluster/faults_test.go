package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Each fault class does what its text says, and nothing beyond it: a fault
// naming process a leaves process b alone, a fault naming a kind leaves other
// kinds alone, a window ends when it says. Two processes, a and b, run the same
// status-writing controller over the same Widgets; the admin adds a ConfigMap
// at 10s.

func twoProcesses() cluster.Options {
	proc := func(name string) process.Spec {
		r := &statusWriter{}
		return process.Spec{Name: name, Setup: func(p *process.Process) error {
			r.p = p
			return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).Complete(r)
		}}
	}
	opts := statusWorld(nil, 2)
	opts.Processes = []process.Spec{proc("a"), proc("b")}
	setup := opts.Setup
	opts.Setup = func(c *cluster.Cluster) error {
		if err := setup(c); err != nil {
			return err
		}
		c.Clock.AfterFunc(10*time.Second, func() {
			_ = c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "late"}})
		})
		return nil
	}
	return opts
}

func runFaults(t *testing.T, text string, d time.Duration) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(mustParse(t, text), twoProcesses())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(d)
	return c
}

// cached reports whether process p's cache holds ConfigMap default/late, reading
// it (and so creating the informer, as a controller's first Get would).
func cached(t *testing.T, c *cluster.Cluster, p string) bool {
	t.Helper()
	err := c.Process(p).GetCache().Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "late"}, &corev1.ConfigMap{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func stepsOf(c *cluster.Cluster, keep func(trace.Step) bool) []trace.Step {
	var out []trace.Step
	for _, s := range c.Trace.Steps() {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func TestALagFaultDelaysOnlyItsProcessAndKind(t *testing.T) {
	c := runFaults(t, "seed 1\nlag process=a kind=/v1/ConfigMap min=5s max=5s\n", 9*time.Second)
	cached(t, c, "a") // create both informers before the ConfigMap exists
	cached(t, c, "b")
	c.RunUntil(11 * time.Second)
	if cached(t, c, "a") || !cached(t, c, "b") {
		t.Errorf("1s after the create: a has it %v (want false, 5s of lag), b %v (want true)", cached(t, c, "a"), cached(t, c, "b"))
	}
	c.RunUntil(15*time.Second + 10*time.Millisecond)
	if !cached(t, c, "a") {
		t.Error("a does not have the ConfigMap once its 5s lag is over")
	}
	// Widgets are another kind: a hears an edit of one as fast as b does.
	w := &apiservertest.Widget{}
	if err := c.Get(client.ObjectKey{Namespace: "default", Name: "w0"}, w); err != nil {
		t.Fatal(err)
	}
	w.Spec.Size = 3
	if err := c.Admin().Update(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	edited := c.Now()
	c.RunFor(time.Second)
	for _, p := range []string{"a", "b"} {
		r := stepsOf(c, func(s trace.Step) bool {
			return s.Process == p && s.Op == "reconcile" && s.Object == "default/w0" && s.At >= edited
		})
		if len(r) == 0 || r[0].At > edited+50*time.Millisecond {
			t.Errorf("%s reconciled the Widget edit at %v: %v; want within the default delivery time (the lag is on ConfigMaps)", p, edited, r)
		}
	}
}

func TestAHoldOfEveryKindHoldsEveryInformerOfItsProcessForItsWindow(t *testing.T) {
	c := runFaults(t, "seed 1\nhold process=a kind=* from=5s until=20s\n", 9*time.Second)
	if hold := stepsOf(c, func(s trace.Step) bool { return s.Op == "hold" }); len(hold) != 1 || hold[0].Process != "a" || hold[0].At != 5*time.Second {
		t.Fatalf("hold steps %v, want one, of a, at 5s", hold)
	}
	c.RunUntil(12 * time.Second)
	// The ConfigMap informer is created during the hold: it lists, then hears nothing.
	if !cached(t, c, "a") {
		t.Error("a's ConfigMap informer, created during the hold, did not list: a stalled watch still lists")
	}
	c.Admin().Delete(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "late"}})
	c.RunUntil(13 * time.Second)
	if !cached(t, c, "a") || cached(t, c, "b") {
		t.Errorf("after the delete at 12s: a still has it %v (want true: held), b %v (want false)", cached(t, c, "a"), cached(t, c, "b"))
	}
	w := &apiservertest.Widget{}
	if err := c.Get(client.ObjectKey{Namespace: "default", Name: "w0"}, w); err != nil {
		t.Fatal(err)
	}
	w.Spec.Size = 7
	if err := c.Admin().Update(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	c.RunUntil(19 * time.Second)
	reconciled := func(p string) int {
		return len(stepsOf(c, func(s trace.Step) bool {
			return s.Process == p && s.Op == "reconcile" && s.At > 13*time.Second && s.Object == "default/w0"
		}))
	}
	if reconciled("a") != 0 || reconciled("b") == 0 {
		t.Errorf("the Widget edit at 13s: a reconciled it %d times (want 0: its Widget informer is held too), b %d (want >0)", reconciled("a"), reconciled("b"))
	}
	c.RunUntil(21 * time.Second)
	if cached(t, c, "a") || reconciled("a") == 0 {
		t.Errorf("after the release at 20s a still has the deleted ConfigMap (%v) or has not reconciled the edit (%d)", cached(t, c, "a"), reconciled("a"))
	}
}

func TestACrashAtACallKillsItsProcessThere(t *testing.T) {
	c := runFaults(t, "seed 1\ncrash process=a call=2\n", 5*time.Second)
	crashes := stepsOf(c, func(s trace.Step) bool { return s.Op == "crash" })
	if len(crashes) != 1 || crashes[0].Process != "a" || !strings.Contains(crashes[0].Result, "crash at client call 2") {
		t.Fatalf("crash steps %v, want one of a at its call 2", crashes)
	}
	var before []trace.Step // a's calls before its crash, in trace order
	for _, s := range c.Trace.Steps() {
		if s.Op == "crash" {
			break
		}
		if s.Process == "a" && s.Op != "start" && s.Op != "reconcile" && s.Op != "log" {
			before = append(before, s)
		}
	}
	if len(before) != 1 {
		t.Errorf("a made %d calls before the crash, want 1 (the second is where it dies): %v", len(before), before)
	}
	if c.Process("b").Restarts() != 0 || !c.Process("b").Running() {
		t.Error("b was touched by a's crash")
	}
}

func TestACrashAtATimeKillsItsProcessThen(t *testing.T) {
	c := runFaults(t, "seed 1\ncrash process=b at=3s\n", 15*time.Second)
	crashes := stepsOf(c, func(s trace.Step) bool { return s.Op == "crash" })
	restarts := stepsOf(c, func(s trace.Step) bool { return s.Op == "restart" })
	if len(crashes) != 1 || crashes[0].Process != "b" || crashes[0].At != 3*time.Second {
		t.Fatalf("crash steps %v, want one of b at 3s", crashes)
	}
	if len(restarts) != 1 || restarts[0].Process != "b" || restarts[0].At != 13*time.Second {
		t.Errorf("restart steps %v, want b's at 13s (CrashLoopBackOff 10s)", restarts)
	}
}

func TestAnAPIFaultWithAProcessFailsOnlyThatProcesssRequests(t *testing.T) {
	const fault = "api verb=update resource=widgets subresource=status code=409 from=0s until=30s"
	failed := func(c *cluster.Cluster, p string) int {
		return len(stepsOf(c, func(s trace.Step) bool {
			return s.Process == p && s.Op == "update/status" && strings.Contains(s.Result, "Conflict")
		}))
	}
	c := runFaults(t, "seed 1\n"+strings.Replace(fault, "api ", "api process=a ", 1)+"\n", 10*time.Second)
	if failed(c, "a") == 0 || failed(c, "b") != 0 {
		t.Errorf("api process=a: a's status updates failed %d times (want >0), b's %d (want 0)", failed(c, "a"), failed(c, "b"))
	}
	if f := stepsOf(c, func(s trace.Step) bool { return s.Op == "fault" }); len(f) != 1 || !strings.Contains(f[0].Result, "process=a") {
		t.Errorf("the trace's fault step %v does not name the process", f)
	}
	c = runFaults(t, "seed 1\n"+fault+"\n", 10*time.Second)
	if failed(c, "a") == 0 || failed(c, "b") == 0 {
		t.Errorf("api without process: a's status updates failed %d times, b's %d: want both >0", failed(c, "a"), failed(c, "b"))
	}
	c = runFaults(t, "seed 1\n"+fault+"\n", 40*time.Second)
	if late := stepsOf(c, func(s trace.Step) bool {
		return s.At > 30*time.Second+time.Second && strings.Contains(s.Result, "Conflict")
	}); len(late) != 0 {
		t.Errorf("conflicts after the window ended at 30s: %v", late)
	}
}

func TestALatencyFaultSlowsOnlyItsProcesssCalls(t *testing.T) {
	c := runFaults(t, "seed 1\nlatency process=a min=1s max=1s\n", 10*time.Second)
	first := func(p string) time.Duration {
		s := stepsOf(c, func(s trace.Step) bool { return s.Process == p && s.Op == "update/status" })
		if len(s) == 0 {
			t.Fatalf("%s wrote no status", p)
		}
		return s[0].At
	}
	if a, b := first("a"), first("b"); a < time.Second || b > 100*time.Millisecond {
		t.Errorf("first status writes at %v (a, 1s of latency) and %v (b): want a after 1s, b within the default latency", a, b)
	}
}

// Heal ends every fault: an API fault without an end stops failing requests.
func TestHealEndsAnAPIFault(t *testing.T) {
	c := runFaults(t, "seed 1\napi verb=update resource=widgets subresource=status code=500\n", 5*time.Second)
	if ok := stepsOf(c, func(s trace.Step) bool { return s.Op == "update/status" && s.Result == "ok" }); len(ok) != 0 {
		t.Fatalf("status writes succeeded under the fault: %v", ok)
	}
	c.Heal()
	c.RunFor(time.Minute)
	if ok := stepsOf(c, func(s trace.Step) bool { return s.Op == "update/status" && s.Result == "ok" }); len(ok) == 0 {
		t.Error("no status write succeeded after Heal")
	}
}

// Sieve's intermediate state: a crash right after a process's k-th write has
// committed, before the response reaches it. The write is in the apiserver; the
// process never saw it succeed, and makes no other call before it dies.
func TestACrashAfterAWriteKillsItsProcessWithTheWriteCommitted(t *testing.T) {
	c := runFaults(t, "seed 1\ncrash process=a write=1\n", 5*time.Second)
	crashes := stepsOf(c, func(s trace.Step) bool { return s.Op == "crash" })
	if len(crashes) != 1 || crashes[0].Process != "a" || !strings.Contains(crashes[0].Result, "crash after write 1") {
		t.Fatalf("crash steps %v, want one of a after its write 1", crashes)
	}
	var last trace.Step
	writes := 0
	for _, s := range c.Trace.Steps() {
		if s.Op == "crash" {
			break
		}
		if s.Process == "a" && s.Op != "log" && s.Op != "start" {
			last = s
			if s.Op == "update" || s.Op == "create" || s.Op == "patch" || strings.HasPrefix(s.Op, "update/") {
				writes++
			}
		}
	}
	if writes != 1 || last.Result != "ok" || last.RVWritten == 0 {
		t.Errorf("a's last step before the crash is %v after %d writes; want its first write, committed", last, writes)
	}
	if c.Process("b").Restarts() != 0 {
		t.Error("b was touched by a's crash")
	}
}

// A stale fault restarts its process onto an apiserver age behind: the new
// incarnation's cache shows the world as it was (the ConfigMap created at 10s
// is missing) until each change is age old or the lagging apiserver has caught
// up, age after the restart. The other process is untouched.
func TestAStaleFaultRestartsItsProcessOntoThePast(t *testing.T) {
	c := runFaults(t, "seed 1\nstale process=b at=12s age=20s\n", 29*time.Second)
	if restarts := stepsOf(c, func(s trace.Step) bool { return s.Op == "restart" }); len(restarts) != 1 || restarts[0].Process != "b" || restarts[0].At != 22*time.Second {
		t.Fatalf("restart steps %v, want b's at 22s (crash at 12s, CrashLoopBackOff 10s)", restarts)
	}
	stale := stepsOf(c, func(s trace.Step) bool { return s.Op == "stale" })
	if len(stale) != 1 || stale[0].Process != "b" || !strings.Contains(stale[0].Result, "20s behind until 42s") {
		t.Fatalf("stale steps %v, want b's, 20s behind until 42s", stale)
	}
	if !cached(t, c, "a") || cached(t, c, "b") {
		t.Fatalf("at 29s: a has the ConfigMap of 10s: %t (want true); b has it: %t (want false)", cached(t, c, "a"), cached(t, c, "b"))
	}
	c.RunFor(time.Second)
	if !cached(t, c, "b") {
		t.Fatal("at 30s b's cache still lacks the ConfigMap created at 10s (due 20s after its commit)")
	}
}

// The heal ends every fault: a stale view still running at the heal is caught
// up by it, as a lagging watch cache that has caught up would be. b restarts
// at 22s onto an apiserver 20s behind (until 42s): the ConfigMap created at
// 10s would reach it at 30s, but the heal at 24s delivers it then, and says
// so in the trace. It holds for a stale restart of every kind and for one of
// a single kind (kind=) alike.
func TestAStaleViewRunningAtTheHealIsCaughtUpByIt(t *testing.T) {
	for _, fault := range []string{
		"stale process=b at=12s age=20s",
		"stale process=b kind=/v1/ConfigMap at=12s age=20s",
	} {
		t.Run(fault, func(t *testing.T) {
			c := runFaults(t, "seed 1\n"+fault+"\n", 24*time.Second)
			if cached(t, c, "b") {
				t.Fatal("at 24s, before the heal, b already has the ConfigMap created at 10s (due 20s after its commit)")
			}
			c.Heal()
			if !cached(t, c, "b") {
				t.Fatal("right after the heal at 24s, b's stale cache still lacks the ConfigMap created at 10s: the heal did not end the stale view")
			}
			up := stepsOf(c, func(s trace.Step) bool { return s.Op == "catch-up" })
			if len(up) != 1 || up[0].Process != "b" || up[0].At != 24*time.Second {
				t.Fatalf("catch-up steps %v, want b's at 24s", up)
			}
		})
	}
}

// A blind fault's stale start (a reference's replay of a faulted run's stale
// restart) ends at the heal too, as the view it replays did; a start after
// the heal is fresh. b is stopped at 12s and starts again at 22s, onto an
// apiserver 20s behind until 42s; the heal at 24s catches it up. In a second
// run, b starts again only after the heal: no stale view at all.
func TestABlindStaleStartEndsAtTheHeal(t *testing.T) {
	c := runFaults(t, "seed 1\nstop process=b from=12s until=22s\nblind process=b at=22s age=20s\n", 24*time.Second)
	if stale := stepsOf(c, func(s trace.Step) bool { return s.Op == "stale" }); len(stale) != 1 || stale[0].Process != "b" {
		t.Fatalf("stale steps %v, want b's start at 22s onto the lagging apiserver", stale)
	}
	if cached(t, c, "b") {
		t.Fatal("at 24s, before the heal, b's blind stale start already shows the ConfigMap created at 10s")
	}
	c.Heal()
	if !cached(t, c, "b") {
		t.Fatal("right after the heal, b's blind stale start still lacks the ConfigMap created at 10s")
	}

	c = runFaults(t, "seed 1\nstop process=b from=12s until=22s\nblind process=b at=22s age=20s\n", 21*time.Second)
	c.Heal()
	c.RunFor(2 * time.Second)
	if stale := stepsOf(c, func(s trace.Step) bool { return s.Op == "stale" }); len(stale) != 0 {
		t.Fatalf("stale steps %v after a heal at 21s, want none: the view a blind start replays ends at the heal", stale)
	}
	if !cached(t, c, "b") {
		t.Fatal("b, started after the heal, lacks the ConfigMap created at 10s")
	}
}
