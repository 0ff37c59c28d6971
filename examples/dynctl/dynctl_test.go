package dynctl_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/dynctl"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// options are the whole of the test: the scheme, what the operator's main
// does (build the controller, which builds its own workqueue; start the
// factory; run two workers) and two seed objects; default Options
// otherwise.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "dynctl", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			c, err := dynctl.New(env.Dynamic, env.DynamicInformerFactory, dynctl.ConfigMaps, buggy)
			if err != nil {
				return err
			}
			env.DynamicInformerFactory.Start(ctx.Done())
			return c.Run(ctx, 2)
		})}},
		Objects: []client.Object{
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{dynctl.SummarizeLabel: "yes"}},
				Data: map[string]string{"a": "1", "b": "2"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db", Labels: map[string]string{dynctl.SummarizeLabel: "yes"}},
				Data: map[string]string{"a": "1"}},
		},
	}
}

// The correct controller holds over default Options' plans (100), its
// queue client-go's own.
func TestTheCorrectControllerHolds(t *testing.T) {
	res, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks < 100 { // 100: default Options (-ctrlsim.checks=1000 measures more)
		t.Errorf("the correct controller: %d plans, violations %v; want 100 plans or more and none", res.Checks, res.Violations)
	}
}

// The buggy controller is caught; its minimal plan replays with the same
// trace hash twice (the world with client-go's queue in it is
// deterministic), and the correct controller holds on it.
func TestTheBuggyControllerIsCaughtAndItsTwinHoldsOnItsPlan(t *testing.T) {
	res, err := operatortest.Explore(t, options(true))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || len(res.Violations) == 0 {
		t.Fatalf("the buggy controller was not caught in %d plans", res.Checks)
	}
	t.Logf("caught after %d plans by %s: %s", res.Checks, res.Violations[0].Property, res.Minimal)
	var hashes []string
	for range 2 {
		r, err := operatortest.Replay(t, options(true), res.Minimal)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violated()) == 0 {
			t.Errorf("the minimal plan's replay holds")
		}
		hashes = append(hashes, r.Hash)
	}
	if hashes[0] != hashes[1] {
		t.Errorf("two replays of one plan: trace hashes %s and %s", hashes[0], hashes[1])
	}
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

// The controller's expiring LRU starts a janitor in New that ticks forever:
// the exploration ends, the controller holds, and the test's output names
// the janitor once, in one line, by the frame that started it and where it
// ticks (a world whose process crashed also leaves its dead incarnation's
// queue, named once in a line of its own).
func TestAJanitorTickingForeverIsNamedOnce(t *testing.T) {
	var lines []string
	report := wallclock.Report
	wallclock.Report = func(t *testing.T, line string) { lines = append(lines, line) }
	defer func() { wallclock.Report = report }()
	res, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Errorf("violations %v", res.Violations)
	}
	var janitor []string
	for _, l := range lines {
		if strings.Contains(l, "dynctl.newRecent") {
			janitor = append(janitor, l)
		}
	}
	if len(janitor) != 1 {
		t.Fatalf("%d lines name the janitor, want one:\n%s", len(janitor), strings.Join(lines, "\n"))
	}
	t.Logf("%d lines in all; the janitor's: %s", len(lines), janitor[0])
	for _, w := range []string{"outlived the world", "started by github.com/ctrlsim/ctrlsim/examples/dynctl.newRecent", "dynctl.(*recent).janitor"} {
		if !strings.Contains(janitor[0], w) {
			t.Errorf("the line lacks %q:\n%s", w, janitor[0])
		}
	}
}
