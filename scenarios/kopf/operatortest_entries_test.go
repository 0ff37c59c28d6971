package kopf

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// A flaky webhook's every-other 422 while x is edited often: the fixed
// kopf's throttling resets at each success, so its failures outrun the
// envelope, as the kernel entry finds (within 2 plans on seed 1).
func TestAlternating422CatchesTheFixedOperatorOnOperatortest(t *testing.T) {
	o := Alternating422(variant.Fixed)
	o.Expect = RetryRate{}.Name()
	o.Checks = 20
	o.ShrinkRuns = 50 // bounded: a whole shrink on operatortest takes long
	operatortest.Run(t, o)
}

// ... and the robust operator, whose backoff resets only after ten quiet
// minutes, holds by bounded-retry-rate and the generic oracles.
func TestAlternating422HoldsForTheRobustOperatorOnOperatortest(t *testing.T) {
	if testing.Short() {
		t.Skip("explores 30 plans")
	}
	o := Alternating422(variant.Robust)
	o.Checks = 30
	operatortest.Run(t, o)
}

// One object whose events the fixed kopf cannot decode makes it exit at
// every start (#509), and y's edit is not handled within 30 s: isolation.
func TestPoisonEventCatchesTheFixedOperatorOnOperatortest(t *testing.T) {
	o := PoisonEvent(variant.Fixed)
	o.Expect = Isolation{}.Name()
	o.Checks = 20
	o.ShrinkRuns = 50 // bounded: a whole shrink on operatortest takes long
	operatortest.Run(t, o)
}

// ... while the buggy kopf, which ignores the event, goes on handling y.
func TestPoisonEventHoldsForTheBuggyOperatorOnOperatortest(t *testing.T) {
	if testing.Short() {
		t.Skip("explores 30 plans")
	}
	o := PoisonEvent(variant.Buggy)
	o.Checks = 30
	operatortest.Run(t, o)
}

// With a handler that writes nothing, a refused PATCH is retried only on the
// next event of the object: none comes, and kopf's diff base never holds
// x's spec (#510 has no timer-driven retry).
func TestNoEventAfterFailureCatchesTheFixedOperatorOnOperatortest(t *testing.T) {
	o := NoEventAfterFailure(variant.Fixed)
	o.Expect = "converges"
	o.Checks = 100    // caught at plan 38 (seed 1) since API errors are drawn by default (a 500 on the PATCH)
	o.ShrinkRuns = 50 // bounded: a whole shrink on operatortest takes long
	operatortest.Run(t, o)
}

// ... and the robust operator's own retry timer handles it once the fault ends.
func TestNoEventAfterFailureHoldsForTheRobustOperatorOnOperatortest(t *testing.T) {
	if testing.Short() {
		t.Skip("explores 30 plans")
	}
	o := NoEventAfterFailure(variant.Robust)
	o.Checks = 30
	operatortest.Run(t, o)
}
