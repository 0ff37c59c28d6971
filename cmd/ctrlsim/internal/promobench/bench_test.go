package promobench_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/promobench"
)

// BenchmarkPromotionOnSimulator is the simulator side of speedup_vs_envtest.
func BenchmarkPromotionOnSimulator(b *testing.B) {
	for _, timing := range []struct {
		name string
		t    promobench.Timing
	}{{"Catalogue", promobench.Catalogue}, {"NoWait", promobench.NoWait}} {
		b.Run(timing.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := promobench.PromotionOnSimulator(timing.t); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
