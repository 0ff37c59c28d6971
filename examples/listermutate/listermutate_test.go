package listermutate_test

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

	"github.com/ctrlsim/ctrlsim/examples/listermutate"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
)

// options are the whole of what the operator's test gives: its scheme, its
// start and a seed object. No fault profile: the default Options.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "stamp", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			q, err := clientgo.Queue[cache.ObjectName](env, nil)
			if err != nil {
				return err
			}
			f := env.InformerFactory
			c, err := listermutate.NewController(env.Clientset, f.Core().V1().ConfigMaps(), q, buggy)
			if err != nil {
				return err
			}
			f.Start(ctx.Done())
			return c.Run(ctx, 2)
		})}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
			Labels: map[string]string{listermutate.StampLabel: "yes"}}, Data: map[string]string{"color": "blue"}}},
	}
}

// explorePlan runs one plan (as -ctrlsim.plan does) on the controller.
func explorePlan(t *testing.T, text string, buggy bool) operatortest.Result {
	t.Helper()
	file := filepath.Join(t.TempDir(), "one.plan")
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

// One 500 on the stamping update: the buggy controller's cache keeps the
// stamp it never stored, its retry does nothing, and the ConfigMap ends
// unstamped (converges); the correct controller's retry stamps it.
func TestOneFailedUpdateLeavesOnlyTheBuggyControllersConfigMapUnstamped(t *testing.T) {
	const text = "seed 1\napi process=stamp verb=update resource=configmaps namespace=shop name=web code=500 count=1 from=0s until=1m0s\n"
	res := explorePlan(t, text, true)
	if !res.Caught || len(res.Violations) == 0 || res.Violations[0].Property != operatortest.Converges {
		t.Errorf("the buggy controller under %q: %+v, want converges violated", text, res)
	}
	if res := explorePlan(t, text, false); res.Caught {
		t.Errorf("the correct controller under %q: violated %v, want nothing", text, res.Violations)
	}
}

// With the default Options (no fault profile, no API template), the buggy
// controller is caught within 300 plans from each of several explorer
// seeds, by an API error drawn from the fault-free run's own update (at
// plan 9 of each of seeds 1, 2 and 3, the sweep's 500 on the stamping
// update, an unranked plan: it only delays a reconcile of one write, and
// is each minimal plan); the correct controller holds on each minimal
// plan.
func TestTheListerMutatingControllerIsCaughtWithDefaultOptions(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			o := options(true)
			o.Checks, o.Seed = 300, seed
			res, err := operatortest.Explore(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Caught || len(res.Violations) == 0 {
				t.Fatalf("the buggy controller was not caught in 300 plans: %+v", res)
			}
			t.Logf("caught at plan %d by %s: %s", res.Checks, res.Violations[0].Property, res.Minimal)
			if fixed := explorePlan(t, res.Minimal.String(), false); fixed.Caught {
				t.Errorf("the buggy controller's minimal plan violates the correct one too: %v", fixed.Violations)
			}
		})
	}
}

// The correct controller holds over 300 plans of the default Options.
func TestTheDeepCopyingControllerHolds(t *testing.T) {
	o := options(false)
	o.Checks = 300
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks != 300 {
		t.Errorf("the correct controller: %+v, want 300 plans and no violation", res)
	}
}
