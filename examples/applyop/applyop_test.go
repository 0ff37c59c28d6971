package applyop_test

import (
	"os"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/applyop"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// options are the whole of what the operator's test gives: its scheme, its
// manager (its own SetupWithManager) and a seed object.
func options(fixed bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "applyop", Setup: func(mgr manager.Manager) error {
			return (&applyop.Reconciler{Client: mgr.GetClient(), Fixed: fixed}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
			Labels: map[string]string{applyop.AppLabel: "yes"}}, Data: map[string]string{"color": "blue"}}},
	}
}

// The fixed operator holds under every generic oracle, with default options.
func TestTheFixedOperatorHolds(t *testing.T) {
	operatortest.Run(t, options(true))
}

// The buggy operator fails its test: run it to see the report (minimal plan,
// replay command, timeline).
func TestTheBuggyOperator(t *testing.T) {
	if os.Getenv("CTRLSIM_APPLYOP") == "" {
		t.Skip("fails on purpose; CTRLSIM_APPLYOP=1 to see its report")
	}
	operatortest.Run(t, options(false))
}

// The apply that re-creates a deleted app is found under three explorer
// seeds within 20 random plans each (after the sweep's targeted plans of the
// test's workload, which has no step: the bug needs the user's deletion, a
// drawn step), and the fixed operator, whose apply carries the app's uid,
// holds over the default budget with the same seed.
func TestTheRecreationIsFoundAndTheFixHolds(t *testing.T) {
	var checks []int
	for seed := uint64(1); seed <= 3; seed++ {
		o := options(false)
		o.Seed = seed
		res, err := operatortest.Explore(t, o)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Caught || len(res.Violations) == 0 {
			t.Fatalf("seed %d: the buggy operator was not caught: %+v", seed, res)
		}
		t.Logf("seed %d: caught after %d checks by %s: %s", seed, res.Checks, res.Violations[0].Property, res.Minimal)
		if p := res.Violations[0].Property; p != operatortest.Converges && p != operatortest.InterleavingsAgree {
			t.Errorf("seed %d: caught by %s, want converges or interleavings-agree (the re-created app)", seed, p)
		}
		swept := 0
		for _, c := range res.Targeted {
			swept += c.Ran
		}
		if random := res.Checks - swept; random > 20 {
			t.Errorf("seed %d: %d random plans to catch (after %d targeted), want at most 20", seed, random, swept)
		}
		checks = append(checks, res.Checks-swept)
	}
	slices.Sort(checks)
	t.Logf("random plans to catch, seeds 1-3: %v", checks)
	o := options(true)
	o.Seed = 1
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Errorf("the fixed operator: %+v, want no violation", res.Violations)
	}
}
