package search

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A signature names kinds as words of the report: one bug reported on a
// ConfigMap and on a Secret is two signatures, and two reports that name no
// kind (a custom resource's error at rest) are one, whatever object each
// names.
func TestASignatureNamesTheKindsItsReportNamesAsWords(t *testing.T) {
	w, err := NewWorld(twoSeedOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	sig := func(detail string) string {
		return signature(w, check.Verdict{Property: world.NoErrorAtRest, Detail: detail})
	}
	if a, b := sig("op/app's last reconcile of team/app ended in error: ConfigMap team/app-out: boom"),
		sig("op/app's last reconcile of team/app ended in error: Secret team/app-out: boom"); a == b {
		t.Errorf("one error on a ConfigMap and on a Secret: one signature %q, want two", a)
	}
	if a, b := sig("op/widget's last reconcile of team/a ended in error: boom"),
		sig("op/widget's last reconcile of team/b ended in error: quota exceeded"); a != b {
		t.Errorf("two reports naming no kind: signatures %q and %q, want one", a, b)
	}
}

// The sweep's unranked targeted plans of the re-creations come after every
// unranked plan of the same class of the first workloads (the script
// alone, the lifecycle steps).
func TestTheRecreationsUnrankedPlansComeLast(t *testing.T) {
	w, err := NewWorld(twoSeedOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	first, again, err := sweepWorkloads(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) == 0 {
		t.Fatal("no re-creation workload")
	}
	plans, targeted, _, err := targetedPlans(w, t, 100000)
	if err != nil {
		t.Fatal(err)
	}
	text := func(p *plan.Plan) string { return (&plan.Plan{Seed: p.Seed, Steps: p.Steps}).String() }
	isAgain := func(p *plan.Plan) bool {
		return slices.ContainsFunc(again, func(a *plan.Plan) bool { return text(a) == text(p) }) &&
			!slices.ContainsFunc(first, func(f *plan.Plan) bool { return text(f) == text(p) })
	}
	order := map[plan.SweepClass][]bool{} // of each class's unranked plans: whether each is a re-creation's
	for i, p := range plans {
		if !targeted[i].Ranked {
			order[targeted[i].Class] = append(order[targeted[i].Class], isAgain(p))
		}
	}
	both := 0
	for _, c := range plan.SweepClasses {
		i := slices.Index(order[c], true)
		if i < 0 {
			continue
		}
		if i > 0 {
			both++
		}
		if slices.Contains(order[c][i:], false) {
			t.Errorf("an unranked %s plan of a first workload comes after a re-creation's: %v", c, order[c])
		}
	}
	if both == 0 {
		t.Fatalf("unranked plans %v: want a class with the first workloads' and then the re-creations'", order)
	}
}

// nondeterministicOptions is an operator that writes a new value to its
// ConfigMap at each run (a counter kept across runs) once Secret trigger
// exists, and nothing before; the seed objects hold the trigger when
// triggered.
func nondeterministicOptions(triggered bool) world.Options {
	n := 0
	o := world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			c := mgr.GetClient()
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
				Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					var s corev1.Secret
					if err := c.Get(ctx, client.ObjectKey{Namespace: "team", Name: "trigger"}, &s); err != nil {
						return reconcile.Result{}, client.IgnoreNotFound(err)
					}
					var cm corev1.ConfigMap
					if err := c.Get(ctx, req.NamespacedName, &cm); err != nil || cm.Data["n"] != "" {
						return reconcile.Result{}, client.IgnoreNotFound(err)
					}
					n++
					cm.Data = map[string]string{"n": strconv.Itoa(n)}
					return reconcile.Result{}, c.Update(ctx, &cm)
				}))
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}},
		Checks:  1,
		Workers: 1,
	}
	if triggered {
		o.Objects = append(o.Objects, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "trigger"}})
	}
	return o
}

// The operator's nondeterminism is found by the preflight plan's runs (no
// workload, no fault) only on a path that plan takes: the same operator is
// found nondeterministic when a seed object takes it there, and not when
// only a workload step would.
func TestNondeterminismOnAPathThePreflightNeverTakesIsNotFound(t *testing.T) {
	for _, triggered := range []bool{true, false} {
		w, err := NewWorld(nondeterministicOptions(triggered).WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		_, first, err := reference.RunOnce(w, t, &plan.Plan{Seed: w.Opts.EffectiveSeed()}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkDeterminism(w, t, first); err != nil {
			t.Fatal(err)
		}
		if found := explorationOf(w).nondeterminism != ""; found != triggered {
			t.Errorf("trigger among the seed objects %v: nondeterminism found %v (%q), want %v", triggered, found, explorationOf(w).nondeterminism, triggered)
		}
	}
}
