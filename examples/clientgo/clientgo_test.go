package clientgo_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mirror "github.com/ctrlsim/ctrlsim/examples/clientgo"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
)

// options are the whole of what the operator's test gives: its scheme, its
// start (what its main does with a clientset and an informer factory) and a
// seed object.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "mirror", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			q, err := clientgo.Queue[cache.ObjectName](env, nil)
			if err != nil {
				return err
			}
			f := env.InformerFactory
			c, err := mirror.NewController(ctx, env.Clientset, f.Core().V1().ConfigMaps(), f.Core().V1().Secrets(), q, buggy)
			if err != nil {
				return err
			}
			f.Start(ctx.Done())
			return c.Run(ctx, 2)
		})}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
			Labels: map[string]string{mirror.MirrorLabel: "yes"}}}},
	}
}

// The buggy controller is caught, and the correct one holds on the buggy
// one's minimal plan: the catch is the bug's, not a false alarm.
func TestTheBuggyControllerIsCaughtAndItsTwinHoldsOnItsPlan(t *testing.T) {
	res, err := operatortest.Explore(t, options(true))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || len(res.Violations) == 0 {
		t.Fatalf("the buggy controller was not caught: %+v", res)
	}
	t.Logf("caught after %d plans by %s: %s", res.Checks, res.Violations[0].Property, res.Minimal)
	file := filepath.Join(t.TempDir(), "buggy.plan")
	if err := os.WriteFile(file, []byte(res.Minimal.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	fixed, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Caught {
		t.Errorf("the buggy controller's minimal plan violates the correct one too: %v", fixed.Violations)
	}
}

// The correct controller holds over 100 plans.
func TestTheCorrectControllerHolds(t *testing.T) {
	o := options(false)
	o.Checks = 100
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks < 100 { // 100: Options.Checks (-ctrlsim.checks=1000 measures more)
		t.Errorf("the correct controller: %+v, want 100 plans or more and no violation", res)
	}
}

// explorePlan runs one plan (as -ctrlsim.plan does) on the controller.
func explorePlan(t *testing.T, text string, buggy bool) operatortest.Result {
	t.Helper()
	file := filepath.Join(t.TempDir(), "hold.plan")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	res, err := operatortest.Explore(t, options(buggy))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The bug in one fault both controllers meet: the process's Secret watch
// held across its own create. The buggy controller's next sync (its own
// annotation's event) finds no Secret in the lister and makes a second
// one, which the fault-free run never has (converges); the correct one's
// create fails with AlreadyExists and its retry finds the Secret once the
// hold ends.
func TestASecretWatchHeldAcrossTheCreateDuplicatesOnlyTheBuggyMirror(t *testing.T) {
	const text = "seed 1\nhold process=mirror kind=/v1/Secret from=1ms until=10s\n"
	res := explorePlan(t, text, true)
	if !res.Caught || len(res.Violations) == 0 || res.Violations[0].Property != operatortest.Converges {
		t.Errorf("the buggy controller under %q: %+v, want converges violated", text, res)
	}
	if res := explorePlan(t, text, false); res.Caught {
		t.Errorf("the correct controller under %q: violated %v, want nothing", text, res.Violations)
	}
}

// Same plan, same trace: plans with a crash mid-run (the informers', the
// reflectors' and the workers' goroutines frozen and started again), lag, a
// hold, a stale restart and the workload's deletion and re-creation give one
// trace hash run after run.
func TestTheClientGoOperatorIsDeterministic(t *testing.T) {
	for _, text := range []string{
		"seed 7\nlag process=mirror kind=* min=1ms max=40ms\nhold process=mirror kind=/v1/ConfigMap from=3ms until=2s\ncrash process=mirror at=20ms\n",
		"seed 11\nat 1.03s delete object=0\nat 3s recreate object=0\ncrash process=mirror write=1\nstale process=mirror kind=/v1/Secret at=5s age=3s\n",
	} {
		for _, buggy := range []bool{false, true} {
			var hashes []string
			for range 3 {
				hashes = append(hashes, explorePlan(t, text, buggy).Hash)
			}
			if hashes[0] == "" || hashes[0] != hashes[1] || hashes[1] != hashes[2] {
				t.Errorf("buggy=%v, plan %q: three runs: trace hashes %q", buggy, text, hashes)
			}
		}
	}
}

// The controller's event broadcaster (record.NewBroadcaster, its goroutines
// and its sink on the clientset) writes the Event of each create as the
// process's call: in a fault-free run the ConfigMap has its Mirrored Event.
func TestTheEventBroadcasterWritesTheEvent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "none.plan")
	if err := os.WriteFile(file, []byte("seed 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	o := options(false)
	o.Properties = []operatortest.Property{{Name: "mirrored-event", Check: func(h *operatortest.History) error {
		var events corev1.EventList
		if err := h.List(&events); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == "Mirrored" && e.InvolvedObject.Name == "web" && e.Source.Component == "mirror" && e.Message == "Secret web-mirror created" {
				return nil
			}
		}
		return fmt.Errorf("no Mirrored Event for ConfigMap web among %d Events", len(events.Items))
	}}}
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Errorf("fault-free run: %v", res.Violations)
	}
}
