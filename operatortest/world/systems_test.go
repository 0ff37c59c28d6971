package world_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A system is made once a run, before time starts, and that one instance is
// what every start of the manager (a crash restarts it), every domain step
// and every property of the run gets; the next run gets a new one.
func TestASystemIsOneInstancePerRunSharedByManagersStepsAndProperties(t *testing.T) {
	made := 0
	o := optest.LedgerOptions(&made)
	var seen []string
	o.Properties = []world.Property{{Name: "ledger", Check: func(h *world.History) error {
		l := h.System("ledger").(*optest.Ledger)
		seen = append(seen, fmt.Sprintf("instance %d: %d starts, %d notes", l.Made, l.Starts, l.Notes))
		return nil
	}}}
	p, err := plan.Parse("seed 1\nat 1s note\nat 3s note\ncrash process=op at=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reference.Run(w, t, p); err != nil {
		t.Fatal(err)
	}
	// The run judged last is the faulted one (its references ran first,
	// each with an instance of its own).
	last := seen[len(seen)-1]
	if want := fmt.Sprintf("instance %d: 2 starts, 2 notes", made); last != want {
		t.Errorf("the faulted run's property saw %q, want %q (all runs: %v)", last, want, seen)
	}
	if made < 2 || len(seen) != made {
		t.Errorf("%d instances for %d judged runs: want one a run", made, len(seen))
	}
	if n := len(world.ActiveSystems.Runs); n != 0 {
		t.Errorf("%d runs' systems still held after their runs ended", n)
	}
}

// A system's faults are domain steps drawn within the fault phase, however
// long their Within.
func TestASystemsFaultsAreDrawnWithinTheFaultPhase(t *testing.T) {
	made := 0
	w, err := search.NewWorld(optest.LedgerOptions(&made).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	gen, drawn := plan.Generator(w.Space), 0
	for seed := range 40 {
		for _, s := range gen.Example(seed).Steps {
			if s.Action == "ledger-fails" {
				drawn++
				if s.At > w.Opts.FaultPhase {
					t.Fatalf("ledger-fails at %v, after the fault phase (%v)", s.At, w.Opts.FaultPhase)
				}
			}
		}
	}
	if drawn == 0 {
		t.Fatal("40 plans drew no ledger-fails")
	}
}

// Bad systems are refused with one line naming the field.
func TestBadSystemsEachGiveOneErrorNamingTheField(t *testing.T) {
	made := 0
	for _, tc := range []struct {
		edit func(o *world.Options)
		want string
	}{
		{func(o *world.Options) { o.Systems[0].Name = "" }, "Name is empty"},
		{func(o *world.Options) { o.Systems[0].New = nil }, "New is nil"},
		{func(o *world.Options) { o.Systems = append(o.Systems, o.Systems[0]) }, "taken"},
		{func(o *world.Options) { o.Systems[0].Faults[0].Name = "note" }, "taken by an earlier domain step"},
		{func(o *world.Options) { o.Managers[0].Setup = func(manager.Manager) error { return nil } }, "not both"},
	} {
		o := optest.LedgerOptions(&made)
		tc.edit(&o)
		_, err := search.NewWorld(o.WithDefaults())
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %v, want one line with %q", err, tc.want)
		}
	}
}
