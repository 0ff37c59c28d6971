package builtins_test

// The tests of this file, with gaps_internal_test.go's, show the Known gaps
// of doc.go, each as it is today: a change that closes a gap breaks its
// test, and the item goes with it.

import (
	"testing"

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
