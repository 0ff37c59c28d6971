package staleview_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/staleview"
	"github.com/ctrlsim/ctrlsim/operatortest"
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

// replay runs the plan text on the operator and returns what it violated.
func replay(t *testing.T, buggy bool, text string) []string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "stale.plan")
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
	var out []string
	for _, v := range res.Violations {
		out = append(out, string(v.Property))
	}
	return out
}

// The Migration claims its run at once, its Pod runs from about 0.1s to 4s,
// the outcome is recorded at 4.01s and the Pod deleted right after; a crash
// at 4.02s restarts the operator at 14.02s (the crash back-off). A restart
// whose watch cache of Migrations is 12s behind (the Migration Running, as
// at 2.02s) while its watch cache of Pods is current (the Pod deleted) makes
// the buggy operator run the migration a second time, which converges sees;
// the correct one reads the Migration live first and holds. The same
// restart 12s behind for every kind shows a consistent past (the Pod still
// there) that neither acts on.
func TestARunAgainOnAStaleMigrationAndAFreshPodIsCaught(t *testing.T) {
	const scoped = "seed 1\nstale process=migrator kind=staleview.ctrlsim.dev/v1/Migration at=4.02s age=12s\n"
	const everyKind = "seed 1\nstale process=migrator at=4.02s age=12s\n"
	if v := replay(t, true, scoped); !slices.Contains(v, string(operatortest.Converges)) {
		t.Errorf("the buggy operator under %q: violated %v, want converges", scoped, v)
	}
	if v := replay(t, false, scoped); len(v) != 0 {
		t.Errorf("the correct operator under %q: violated %v, want nothing (a false alarm)", scoped, v)
	}
	for _, buggy := range []bool{true, false} {
		if v := replay(t, buggy, everyKind); len(v) != 0 {
			t.Errorf("buggy=%v under %q (a consistent past): violated %v, want nothing", buggy, everyKind, v)
		}
	}
}

// Exploration finds the second run (CTRLSIM_STALEVIEW_EXPLORE=1: it takes
// minutes): caught by converges within 1,000 plans, and the minimal plan
// holds on the correct operator (the catch is the bug's, not a false alarm).
func TestExplorationFindsTheRunAgain(t *testing.T) {
	if os.Getenv("CTRLSIM_STALEVIEW_EXPLORE") == "" {
		t.Skip("minutes of exploration; CTRLSIM_STALEVIEW_EXPLORE=1 runs it")
	}
	o := options(true)
	o.Checks = 1000
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || res.Violations[0].Property != operatortest.Converges {
		t.Fatalf("the buggy operator was not caught by converges in %d plans: %v", res.Checks, res.Violations)
	}
	t.Logf("caught after %d plans; minimal plan:\n%s", res.Checks, res.Minimal)
	if v := replay(t, false, res.Minimal.String()); len(v) != 0 {
		t.Errorf("the buggy operator's minimal plan violates the correct one too (a false alarm, not the bug): %v", v)
	}
}
