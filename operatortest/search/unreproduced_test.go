package search

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/workers"
)

// A violation a worker process saw that this process, looking for every
// one, never showed is reported (Result.Unreproduced), once, with the first
// place that showed it (numbered among the sweep's: random plan 7 of a
// sweep of 50 plans is plan 14), never dropped; those
// it showed, and places that held, say nothing.
func TestAViolationAWorkerSawAndThisProcessDidNotIsReported(t *testing.T) {
	pre := &workers.Verdicts{Sigs: map[int][]string{
		3: {"converges ConfigMap"},
		5: nil,
		7: {"update-summaries ConfigMap", "converges ConfigMap"},
		9: {"update-summaries ConfigMap"},
	}}
	got := unreproduced(pre, map[string]bool{"converges ConfigMap": true}, func(k int) int { return randomPlace(k, 50) })
	if want := []string{"update-summaries ConfigMap at plan 14"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}
