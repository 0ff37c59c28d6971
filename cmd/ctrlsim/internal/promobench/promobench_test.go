package promobench_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/promobench"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
)

// The scripted promotion reaches prod on both sides, envtest waits for the
// promotion system, and the simulator is faster.
func TestPromotionRunsOnEnvtestAndOnTheSimulator(t *testing.T) {
	assets := envtestenv.Require(t)
	timing := promobench.Short
	real, err := promobench.PromotionOnEnvtest(assets, timing)
	if err != nil {
		t.Fatalf("envtest: %v", err)
	}
	sim, err := promobench.PromotionOnSimulator(timing)
	if err != nil {
		t.Fatalf("simulator: %v", err)
	}
	t.Logf("one promotion through three environments (%s): envtest %s, simulator %s, speedup %.0fx", timing, real, sim, float64(real)/float64(sim))
	if wait := 2 * (timing.CallTime + timing.Lag); real < wait {
		t.Errorf("envtest took %s, less than two promotions (%s): the effects cannot have been waited for", real, wait)
	}
	if sim >= real {
		t.Errorf("the simulator (%s) is not faster than envtest (%s)", sim, real)
	}
}

// The simulator side needs no assets: the scripted promotion reaches prod under
// every timing ctrlsim bench uses.
func TestPromotionOnSimulator(t *testing.T) {
	for _, timing := range []promobench.Timing{promobench.Catalogue, promobench.NoWait, promobench.Short} {
		d, err := promobench.PromotionOnSimulator(timing)
		if err != nil {
			t.Fatalf("%s: %v", timing, err)
		}
		t.Logf("%s: simulator %s", timing, d)
	}
}
