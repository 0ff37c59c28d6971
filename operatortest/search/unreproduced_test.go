package search

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/workers"
)

// A violation a worker process saw that this process, looking for every
// one, never showed is reported (Result.Unreproduced), once, with the first
// place that showed it (numbered after the sweep's), never dropped; those
// it showed, and places that held, say nothing.
func TestAViolationAWorkerSawAndThisProcessDidNotIsReported(t *testing.T) {
	pre := &workers.Verdicts{Sigs: map[int][]string{
		3: {"converges ConfigMap"},
		5: nil,
		7: {"update-summaries ConfigMap", "converges ConfigMap"},
		9: {"update-summaries ConfigMap"},
	}}
	got := unreproduced(pre, map[string]bool{"converges ConfigMap": true}, 50)
	if want := []string{"update-summaries ConfigMap at plan 57"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}
