package promobench_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/internal/promobench"
)

// The scripted promotion reaches prod on both sides, and the simulator is faster.
func TestPromotionRunsOnEnvtestAndOnTheSimulator(t *testing.T) {
	assets := envtestenv.Require(t)
	real, err := promobench.PromotionOnEnvtest(assets)
	if err != nil {
		t.Fatalf("envtest: %v", err)
	}
	sim, err := promobench.PromotionOnSimulator()
	if err != nil {
		t.Fatalf("simulator: %v", err)
	}
	t.Logf("one promotion through three environments: envtest %s, simulator %s, speedup %.0fx", real, sim, float64(real)/float64(sim))
	if real < 2*promobench.BenchLag {
		t.Errorf("envtest took %s, less than the two promotion lags (%s each): the effects cannot have been waited for", real, promobench.BenchLag)
	}
	if sim >= real {
		t.Errorf("the simulator (%s) is not faster than envtest (%s)", sim, real)
	}
}

// The simulator side needs no assets: one scripted promotion reaches prod.
func TestPromotionOnSimulator(t *testing.T) {
	d, err := promobench.PromotionOnSimulator()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulator: %s", d)
}
