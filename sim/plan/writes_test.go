package plan_test

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// With Writes, a crash right after a write is drawn after one of the
// reference run's intermediate states as well as after any of the first
// MaxWrite writes: both show among the plans, and a targeted k is one of
// those Writes gives.
func TestACrashAfterAWriteIsDrawnAtTheIntermediateStatesWritesGives(t *testing.T) {
	sp := plan.Space{Processes: []string{"op"}, MaxWrite: 50,
		Writes: func(*plan.Plan) map[string][]int { return map[string][]int{"op": {7, 9}} }}
	seen := map[int]int{}
	gen := plan.Generator(sp)
	for i := range 400 { // 400 plans of fixed seeds, whatever -rapid.checks (-short) says
		for _, f := range gen.Example(i).Faults {
			if f.Kind == plan.Crash && f.Write > 0 {
				seen[f.Write]++
			}
		}
	}
	targeted, other := seen[7]+seen[9], 0
	for k, n := range seen {
		if !slices.Contains([]int{7, 9}, k) {
			other += n
		}
	}
	if targeted == 0 || other == 0 || targeted < other/10 {
		t.Errorf("crashes after a write: %d at the intermediate states (7, 9), %d elsewhere (%v): want both, the targeted ones far above their 2 in 50", targeted, other, seen)
	}
}
