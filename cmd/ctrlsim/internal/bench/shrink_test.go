package bench

import (
	"os"
	"strconv"
	"testing"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/canary"
	"github.com/ctrlsim/ctrlsim/scenarios/kopf"
)

// ShrinkEnv, when set, runs TestShrinkFigures: time to the first failure and
// to the minimal plan of the catalogue's operatortest ports and the
// examples' bugs, one line each (seeds from CTRLSIM_SHRINK_SEEDS, default 1).
const ShrinkEnv = "CTRLSIM_SHRINK"

// TestShrinkFigures explores each buggy operator on one worker and logs how
// long finding and shrinking took and the minimal plan's hash (so that two
// builds can be compared: same plan, same hash).
func TestShrinkFigures(t *testing.T) {
	which := os.Getenv(ShrinkEnv)
	if which == "" {
		t.Skip("set " + ShrinkEnv + "=all or a name")
	}
	seeds := 1
	if s, err := strconv.Atoi(os.Getenv("CTRLSIM_SHRINK_SEEDS")); err == nil {
		seeds = s
	}
	ops := map[string]func() operatortest.Options{
		"canary": func() operatortest.Options { return canary.Test(variant.Buggy) },
		"kopf":   func() operatortest.Options { return kopf.Persistent422(variant.Buggy) },
	}
	for _, op := range benchOperators {
		ops[op.name] = func() operatortest.Options { return op.options(true) }
	}
	for _, name := range []string{"canary", "kopf", "twowrites", "patterns/conditions", "patterns/owned-children"} {
		if which != "all" && which != name {
			continue
		}
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			t.Run(name+"/seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
				o := ops[name]()
				o.Checks, o.Seed, o.Workers = 1000, seed, 1
				res, err := operatortest.Explore(t, o)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Caught {
					t.Fatalf("%s seed %d: not caught in %d plans", name, seed, res.Checks)
				}
				t.Logf("SHRINK %s seed=%d plans=%d first=%.3fs shrink=%.3fs hash=%s minimal=%q", name, seed, res.FirstFailure,
					res.TimeToFirstFailure.Seconds(), res.ShrinkTime.Seconds(), res.Hash, res.Minimal.String())
			})
		}
	}
}
