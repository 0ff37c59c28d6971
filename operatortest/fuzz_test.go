package operatortest

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

// FuzzTarget checks the Options before any input runs: bad ones are one
// line naming the field, as Run's are.
func TestFuzzTargetRefusesBadOptions(t *testing.T) {
	o := appOptions(child())
	o.Managers = nil
	if _, err := search.FuzzTarget(o); err == nil || !strings.Contains(err.Error(), "Options.Managers is empty") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line naming Options.Managers", err)
	}
}

// A fuzz input decodes to a plan of the test's space and is judged: the
// correct operator's plans hold (the seed inputs of a fuzz target).
func FuzzTheCorrectOperator(f *testing.F) {
	target, err := search.FuzzTarget(appOptions(child()))
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range search.FuzzSeeds() {
		f.Add(in)
	}
	f.Fuzz(target)
}
