package operatortest

import (
	"fmt"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

// FuzzTarget checks the Options before any input runs: bad ones are one
// line naming the field, as Run's are.
func TestFuzzTargetRefusesBadOptions(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Managers = nil
	if _, err := search.FuzzTarget(o); err == nil || !strings.Contains(err.Error(), "Options.Managers is empty") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line naming Options.Managers", err)
	}
}

// A fuzz input decodes to a plan of the test's space and is judged: the
// correct operator's plans hold (Fuzz's seed inputs, which go test runs).
func FuzzTheCorrectOperator(f *testing.F) { Fuzz(f, optest.AppOptions(optest.Child())) }

// The seed corpus holds inputs long enough to draw a plan from: each of them
// draws one (an input that runs out before its plan is drawn runs nothing).
func TestTheSeedCorpusDrawsPlans(t *testing.T) {
	target, err := search.FuzzTarget(optest.AppOptions(optest.Child()))
	if err != nil {
		t.Fatal(err)
	}
	seeds := search.FuzzSeeds()
	if len(seeds) == 0 {
		t.Fatal("no seed inputs")
	}
	for i, in := range seeds {
		ran := false // a skipped input (too short to draw a plan) exits before the end
		t.Run(fmt.Sprint(i), func(t *testing.T) { target(t, in); ran = true })
		if !ran {
			t.Errorf("seed input %d ran no plan", i)
		}
	}
}
