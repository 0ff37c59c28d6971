package staleview_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/staleview"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, staleview.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// options are the whole of what the operator's test gives: its CRD, its
// manager (its own SetupWithManager) and a seed Migration; everything else is
// operatortest's default.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{staleview.CRD},
		Managers: []operatortest.Manager{{Name: "migrator", Setup: func(mgr manager.Manager) error {
			return (&staleview.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&staleview.Migration{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "add-index"},
			Spec: staleview.MigrationSpec{Image: "migrate:1.0"}}},
	}
}

// The correct operator holds under every generic oracle with the default
// Options.
func TestTheCorrectOperatorHolds(t *testing.T) {
	operatortest.Run(t, options(false))
}

// The buggy operator fails its test: run it to see the report (minimal plan,
// replay command, timeline).
func TestTheBuggyOperator(t *testing.T) {
	if os.Getenv("CTRLSIM_STALEVIEW") == "" {
		t.Skip("fails on purpose; CTRLSIM_STALEVIEW=1 to see its report")
	}
	operatortest.Run(t, options(true))
}

// The second run needs a restart whose watch cache of Migrations is behind
// (Running) while its watch cache of Pods is current (the Pod deleted): the
// explorer finds it within 300 plans (the median over five explorer seeds),
// its minimal plan is a stale restart scoped to Migrations, and that plan
// holds on the correct operator (the catch is the bug's, not a false alarm).
func TestARunAgainOnAStaleMigrationAndAFreshPodIsFound(t *testing.T) {
	var checks []int
	var minimal *plan.Plan
	for seed := uint64(1); seed <= 5; seed++ {
		o := options(true)
		o.Seed, o.Checks = seed, 1000
		res, err := operatortest.Explore(t, o)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Caught || len(res.Violations) == 0 || res.Violations[0].Property != operatortest.Converges {
			t.Fatalf("seed %d: the buggy operator was not caught by converges in %d plans: %+v", seed, res.Checks, res.Violations)
		}
		checks = append(checks, res.Checks)
		if minimal == nil {
			minimal = res.Minimal
		}
	}
	slices.Sort(checks)
	t.Logf("plans to catch, explorer seeds 1-5: %v; minimal plan of seed 1:\n%s", checks, minimal)
	if checks[2] > 300 {
		t.Errorf("median plans to catch %d, want at most 300 (%v)", checks[2], checks)
	}
	scoped := false
	for _, f := range minimal.Faults {
		scoped = scoped || (f.Kind == plan.Stale && strings.HasSuffix(f.Resource, "/Migration"))
	}
	if !scoped {
		t.Errorf("the minimal plan has no stale restart scoped to Migrations:\n%s", minimal)
	}
	file := filepath.Join(t.TempDir(), "buggy.plan")
	if err := os.WriteFile(file, []byte(minimal.String()), 0o644); err != nil {
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
		t.Errorf("the buggy operator's minimal plan violates the correct one too (a false alarm, not the bug): %v", fixed.Violations)
	}
}
