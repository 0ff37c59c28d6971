package kopf

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// The persistent-422 entry on operatortest: the buggy kopf's retries of a
// refused PATCH outrun kopf's throttling envelope and are caught by
// bounded-retry-rate, as the catalogue's kernel entry catches them.
func TestPersistent422CatchesTheBuggyOperatorOnOperatortest(t *testing.T) {
	o := Persistent422(variant.Buggy)
	o.Expect = RetryRate{}.Name()
	o.Checks = 50
	// A bounded shrink: the whole one takes about 40 s on operatortest,
	// 0.4 s on the kernel's explorer.
	o.ShrinkRuns = 100
	operatortest.Run(t, o)
}

// ... and the fixed kopf, whose throttling keeps to the envelope, holds,
// by bounded-retry-rate and by the generic oracles with default options.
func TestPersistent422HoldsForTheFixedOperatorOnOperatortest(t *testing.T) {
	if testing.Short() {
		t.Skip("explores 50 plans")
	}
	o := Persistent422(variant.Fixed)
	o.Checks = 50
	operatortest.Run(t, o)
}
