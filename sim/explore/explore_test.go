package explore_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

var space = plan.Space{Processes: []string{"op"}, Kinds: []string{"/v1/ConfigMap"}, Horizon: time.Minute}

// rapidFlags are the flags of rapid that Run sets for its duration.
var rapidFlags = []string{"rapid.checks", "rapid.seed", "rapid.nofailfile", "rapid.failfile", "rapid.shrinktime", "test.short"}

func flagValues() map[string]string {
	out := map[string]string{}
	for _, name := range rapidFlags {
		f := flag.Lookup(name)
		if f == nil {
			panic("rapid flag " + name + " is not registered")
		}
		out[name] = f.Value.String()
	}
	return out
}

// twoFaults fails on a plan with at least two faults: its minimal plans have
// exactly two faults and no steps.
func twoFaults(p *plan.Plan) error {
	if len(p.Faults) >= 2 {
		return fmt.Errorf("%d faults", len(p.Faults))
	}
	return nil
}

func TestACaughtViolationIsAResultShrunkToAMinimalPlan(t *testing.T) {
	t.Chdir(t.TempDir()) // rapid would write its fail file under ./testdata
	calls := 0
	r := explore.Run(plan.Generator(space), 200, 1, func(p *plan.Plan) error {
		calls++
		return twoFaults(p)
	})
	if t.Failed() {
		t.Fatal("Run failed its caller")
	}
	if !r.Caught || r.Minimal == nil || r.Err == nil {
		t.Fatalf("not caught in 200 plans: %+v", r)
	}
	if r.ChecksToFirstFailure < 1 || r.Checks != r.ChecksToFirstFailure {
		t.Errorf("Checks = %d, ChecksToFirstFailure = %d: want the 1-based number of the first failing plan in both", r.Checks, r.ChecksToFirstFailure)
	}
	if calls <= r.ChecksToFirstFailure {
		t.Errorf("the property ran %d times, the first failure was plan %d: no shrinking happened", calls, r.ChecksToFirstFailure)
	}
	if len(r.Minimal.Faults) != 2 || len(r.Minimal.Steps) != 0 {
		t.Errorf("minimal plan has %d faults and %d steps, want 2 and 0:\n%s", len(r.Minimal.Faults), len(r.Minimal.Steps), r.Minimal)
	}
	if r.Failure != "2 faults" || r.Err.Error() != r.Failure {
		t.Errorf("Failure = %q, Err = %v: want the property's message for the minimal plan", r.Failure, r.Err)
	}
	if _, err := os.Stat("testdata"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Run wrote a rapid fail file (stat testdata: %v)", err)
	}
}

// Under `go test -short` too (make check): rapid would run a fifth of them.
func TestAPropertyThatHoldsRunsTheWholeBudget(t *testing.T) {
	calls := 0
	r := explore.Run(plan.Generator(space), 37, 1, func(*plan.Plan) error { calls++; return nil })
	if r.Caught || r.Minimal != nil || r.ChecksToFirstFailure != 0 || r.Failure != "" || r.Err != nil {
		t.Errorf("nothing failed, got %+v", r)
	}
	if r.Checks != 37 || calls != 37 {
		t.Errorf("Checks = %d, property ran %d times: want the budget, 37", r.Checks, calls)
	}
}

func TestTheSameSeedFindsTheSameMinimalPlan(t *testing.T) {
	t.Chdir(t.TempDir())
	a := explore.Run(plan.Generator(space), 200, 7, twoFaults)
	b := explore.Run(plan.Generator(space), 200, 7, twoFaults)
	if !a.Caught || !b.Caught {
		t.Fatalf("not caught: %+v, %+v", a, b)
	}
	if a.ChecksToFirstFailure != b.ChecksToFirstFailure || a.Minimal.String() != b.Minimal.String() {
		t.Errorf("seed 7 twice: first failure %d and %d, minimal plans\n%s\nand\n%s",
			a.ChecksToFirstFailure, b.ChecksToFirstFailure, a.Minimal, b.Minimal)
	}
	var first []string
	for _, seed := range []uint64{1, 2} {
		explore.Run(plan.Generator(space), 1, seed, func(p *plan.Plan) error { first = append(first, p.String()); return nil })
	}
	if first[0] == first[1] {
		t.Errorf("seeds 1 and 2 drew the same first plan; the seed does not reach rapid:\n%s", first[0])
	}
}

func TestRunSetsRapidsFlagsForItsDurationAndRestoresThem(t *testing.T) {
	before := flagValues()
	var during map[string]string
	explore.Run(plan.Generator(space), 3, 42, func(*plan.Plan) error {
		if during == nil {
			during = flagValues()
		}
		return nil
	})
	want := map[string]string{"rapid.checks": "3", "rapid.seed": "42", "rapid.nofailfile": "true", "rapid.failfile": "", "rapid.shrinktime": "1h0m0s", "test.short": "false"}
	for name, v := range want { // lint:order-independent each flag is compared on its own
		if during[name] != v {
			t.Errorf("during Run, -%s = %q, want %q", name, during[name], v)
		}
	}
	after := flagValues()
	for _, name := range rapidFlags {
		if after[name] != before[name] {
			t.Errorf("after Run, -%s = %q, want it restored to %q", name, after[name], before[name])
		}
	}
}

// Seed 0 explores the plans of seed 1 in every run: rapid alone would take 0
// as "draw a random seed".
func TestSeedZeroIsSeedOne(t *testing.T) {
	drawn := func(seed uint64) string {
		var out string
		explore.Run(plan.Generator(space), 20, seed, func(p *plan.Plan) error {
			out += p.String() + "\n--\n"
			return nil
		})
		return out
	}
	one := drawn(1)
	for i := 0; i < 3; i++ {
		if got := drawn(0); got != one {
			t.Fatalf("run %d of seed 0 drew other plans than seed 1", i)
		}
	}
}
