package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The random plans keep half of every budget (rounded up), however many
// plans the sweep ranks: a 100-plan run of an operator whose fault-free
// run ranks thousands of targeted plans still runs 50 random ones.
func TestTheRandomPlansKeepHalfOfEveryBudget(t *testing.T) {
	for _, c := range []struct{ checks, want int }{
		{100, 50},
		{300, 150},
		{101, 50},
		{2, 1},
		{1, 0},
		{0, 0},
	} {
		if got := sweepBudget(c.checks); got != c.want {
			t.Errorf("sweepBudget(%d checks) = %d, want %d", c.checks, got, c.want)
		}
	}
}

// The sweep takes its classes in turn: an operator whose runs rank
// thousands of error answers and nothing else still has its (unranked)
// crashes, holds and unobserved windows tried from the first targeted
// plans; within a class the ranked plans of every workload come first,
// each rank from the workloads in turn, the re-creations' after the first
// workloads'.
func TestNoClassStarvesTheOthers(t *testing.T) {
	mk := func(c plan.SweepClass, ranked bool, n int) []plan.Targeted {
		out := make([]plan.Targeted, n)
		for i := range out {
			out[i] = plan.Targeted{Class: c, Ranked: ranked}
		}
		return out
	}
	// Workload 0: 2,000 ranked error answers, then 3 crashes and a hold,
	// unranked. Workload 1: 2 ranked crashes. Workload 2 (a re-creation):
	// one ranked crash.
	var w0 []plan.Targeted
	w0 = append(w0, mk(plan.SweepAPIErrors, true, 2000)...)
	w0 = append(w0, mk(plan.SweepCrashes, false, 3)...)
	w0 = append(w0, mk(plan.SweepHolds, false, 1)...)
	sweeps := [][]plan.Targeted{w0, mk(plan.SweepCrashes, true, 2), mk(plan.SweepCrashes, true, 1)}
	got := sweepOrder(sweeps, 2, 9)
	name := func(a [2]int) string {
		tp := sweeps[a[0]][a[1]]
		r := "unranked"
		if tp.Ranked {
			r = "ranked"
		}
		return fmt.Sprintf("%s %s of workload %d", r, tp.Class, a[0])
	}
	want := []string{
		"ranked crashes after a write of workload 1", "unranked holds across a change of workload 0", "ranked error answers to a write of workload 0",
		"ranked crashes after a write of workload 1", "ranked error answers to a write of workload 0",
		"ranked crashes after a write of workload 2", "ranked error answers to a write of workload 0",
		"unranked crashes after a write of workload 0", "ranked error answers to a write of workload 0",
	}
	if len(got) != len(want) {
		t.Fatalf("%d plans, want the budget's %d", len(got), len(want))
	}
	for i := range want {
		if name(got[i]) != want[i] {
			t.Errorf("targeted plan %d is the %s, want the %s", i+1, name(got[i]), want[i])
		}
	}
	if n := len(sweepOrder(sweeps, 2, 10_000)); n != 2007 {
		t.Errorf("a budget larger than the sweep takes %d plans, want all 2,007", n)
	}
}

// The sweep draws its targets from the fault-free runs of two schedules:
// the script alone on the explorer seed's and on the other one
// interleavings-agree runs (reference.OtherSeed), the second after the
// re-creations, so that a state one schedule never reaches is still aimed
// at.
func TestTheSweepAimsAtTwoSchedules(t *testing.T) {
	w, err := NewWorld(twoSeedOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	first, again, err := sweepWorkloads(w)
	if err != nil {
		t.Fatal(err)
	}
	base := first[0]
	other := slices.IndexFunc(again, func(p *plan.Plan) bool {
		return p.Seed == reference.OtherSeed(base.Seed) && (&plan.Plan{Steps: p.Steps}).String() == (&plan.Plan{Steps: base.Steps}).String()
	})
	if other < 0 || reference.OtherSeed(base.Seed) == base.Seed {
		t.Errorf("the re-creations' tier (seeds %v) lacks the script alone on the other schedule (seed %d)", func() (out []uint64) {
			for _, p := range again {
				out = append(out, p.Seed)
			}
			return out
		}(), reference.OtherSeed(base.Seed))
	}
}
