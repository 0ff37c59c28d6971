package builtins_test

// The tests of this file, with gaps_internal_test.go's, show the Known gaps
// of doc.go, each as it is today: a change that closes a gap breaks its
// test, and the item goes with it.

import (
	"testing"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A plan run with the controllers of the kinds held and with every
// built-in controller: the idle ones never act, but picking among their
// starting workers takes draws of the schedule, so the two traces differ.
func TestARunWithoutTheIdleControllersHasAnotherTrace(t *testing.T) {
	w, err := search.NewWorld(optest.FinalizerOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 3\nat 1s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	_, held, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := w.RunHeld(t, p, world.Judging{}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if held.Hash == all.Hash {
		t.Errorf("the run with the kinds' controllers held and the run with every controller have one trace (hash %s)", held.Hash)
	}
}

// rootCAConfigMaps counts the kube-root-ca.crt ConfigMaps a run's log made.
func rootCAConfigMaps(r *world.RunResult) int {
	n := 0
	for _, ev := range r.Log {
		if ev.Type == watch.Added && ev.GVK.Kind == "ConfigMap" && ev.Object.GetName() == "kube-root-ca.crt" {
			n++
		}
	}
	return n
}

// The probe's run (a nil Holding) hosts none of package kcm's controllers:
// its namespaces get no kube-root-ca.crt ConfigMap, where a run given its
// kinds has one in each.
func TestTheProbeMakesNoNamespaceContent(t *testing.T) {
	w, err := search.NewWorld(optest.FinalizerOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 3\n")
	if err != nil {
		t.Fatal(err)
	}
	probe, _, err := w.RunHeld(t, p, world.Judging{}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	held, _, err := w.RunHeld(t, p, world.Judging{}, 0, &world.Holding{})
	if err != nil {
		t.Fatal(err)
	}
	if n := rootCAConfigMaps(probe); n != 0 {
		t.Errorf("the probe's run made %d kube-root-ca.crt ConfigMaps, want none", n)
	}
	if n := rootCAConfigMaps(held); n < 3 {
		t.Errorf("the run given its kinds made %d kube-root-ca.crt ConfigMaps, want one per namespace (default, kube-system, kube-public at least)", n)
	}
}
