package search

import "testing"

// The sweep takes half the budget, or what its ranked plans need when
// they are more, the whole budget at the most.
func TestTheSweepsShareGrowsToWhatTheRankedPlansNeed(t *testing.T) {
	for _, c := range []struct{ checks, ranked, want int }{
		{100, 0, 50},
		{100, 40, 50},
		{100, 80, 80},
		{100, 300, 100},
		{1, 0, 0},
		{1, 5, 1},
	} {
		if got := sweepBudget(c.checks, c.ranked); got != c.want {
			t.Errorf("sweepBudget(%d checks, %d ranked) = %d, want %d", c.checks, c.ranked, got, c.want)
		}
	}
}
