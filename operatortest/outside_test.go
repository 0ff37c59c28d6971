package operatortest

import (
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/internal/outside"
)

// Outside runs an exploration as a test of a program that is not a test
// (ctrlsim run): the same Explore, with its result, and a failing test's
// output returned as the error.
func TestOutsideRunsExploreAndReturnsAFailureAsAnError(t *testing.T) {
	var res search.Result
	err := outside.Run("catalogue/entry", func(t *testing.T) {
		var err error
		if res, err = search.Explore(t, optest.DomainOptions()); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil || res.Checks != 6 {
		t.Fatalf("Outside: %v, %d plans explored; want nil and the 6 plans of the options", err, res.Checks)
	}
	err = outside.Run("catalogue/broken", func(t *testing.T) { t.Fatal("the world could not run") })
	if err == nil || !strings.Contains(err.Error(), "the world could not run") || !strings.Contains(err.Error(), "catalogue/broken") {
		t.Fatalf("a failing test: error %v, want its name and output", err)
	}
}

// Outside explores in its own process: worker processes re-run a test
// binary's test by name, and a program running Outside is not one. An
// explicit Options.Workers above 1 there is an error, never ignored.
func TestOutsideRefusesExplicitWorkers(t *testing.T) {
	err := outside.Run("catalogue/workers", func(t *testing.T) {
		o := optest.DomainOptions()
		o.Workers = 2
		if _, err := search.Explore(t, o); err != nil {
			t.Fatal(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "Options.Workers is 2 in catalogue/workers, run outside a test binary") {
		t.Fatalf("Outside with Options.Workers 2: error %v, want it refused", err)
	}
}
