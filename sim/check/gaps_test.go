package check_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/check"
)

// What a property judges is the trace, the phases, the watch log, the final
// objects and the plan, and of a process only the keys the cluster's own
// controllers hold in back-off at the end.
func TestARunHoldsNoProcessState(t *testing.T) {
	want := []string{"Steps", "HealAt", "End", "Log", "Start", "Objects", "Kinds", "Plan", "Backoffs", "Scheduled"}
	typ := reflect.TypeFor[check.Run]()
	var got []string
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Name)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("check.Run's fields are %v, want %v", got, want)
	}
}

// A liveness property asks once, of the run as it ended, whether the desired
// state holds, and a violation is placed at the run's end.
func TestLivenessIsJudgedOnceAtTheEnd(t *testing.T) {
	r := &check.Run{End: time.Hour, HealAt: 10 * time.Minute}
	calls := 0
	desired := func(*check.Run) error { calls++; return errors.New("not yet") }
	for _, p := range []check.Property{
		check.Eventually{Property: "released", Desired: desired},
		check.Converges{Desired: desired, Window: time.Minute},
	} {
		calls = 0
		v := p.Check(r)
		if v.Holds || v.At != r.End || calls != 1 {
			t.Errorf("%s: holds %v at %v after %d calls of Desired, want a violation at the end (%v) after one", p.Name(), v.Holds, v.At, calls, r.End)
		}
	}
}
