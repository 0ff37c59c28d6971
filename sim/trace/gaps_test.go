package trace_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"fmt"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A trace keeps every step it is given, in memory, unless Keep is off; the
// hash is the same either way.
func TestATraceKeepsEveryStepUnlessKeepIsOff(t *testing.T) {
	kept, hashed := trace.New(), trace.New()
	hashed.Keep = false
	for i := range 1000 {
		s := trace.Step{At: time.Duration(i) * time.Millisecond, Process: "op", Op: "get", Object: fmt.Sprintf("ConfigMap ns/x%d", i), Result: "ok"}
		kept.Add(s)
		hashed.Add(s)
	}
	if len(kept.Steps()) != 1000 || len(hashed.Steps()) != 0 || kept.Hash() != hashed.Hash() || hashed.Len() != 1000 {
		t.Fatalf("kept %d and %d steps of 1000 (hashes equal: %v), want all and none, one hash", len(kept.Steps()), len(hashed.Steps()), kept.Hash() == hashed.Hash())
	}
}

// Log values that differ between runs in ways RunIndependent does not know (a
// duration measured on the machine's clock, a random id) change the hash.
func TestALogValueRunIndependentDoesNotKnowChangesTheHash(t *testing.T) {
	for _, pair := range [][2]string{
		{"reconciled took=1.234ms", "reconciled took=1.567ms"},
		{"created id=3f9a0c2e", "created id=b71d44a0"},
	} {
		a := record([]trace.Step{{At: time.Second, Process: "op", Op: "log", Result: pair[0]}})
		b := record([]trace.Step{{At: time.Second, Process: "op", Op: "log", Result: pair[1]}})
		if a.Hash() == b.Hash() {
			t.Errorf("%q and %q hash alike: RunIndependent now knows them", pair[0], pair[1])
		}
	}
}
