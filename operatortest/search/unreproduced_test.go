package search

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"

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
	got, past := unreproduced(pre, map[string]bool{"converges ConfigMap": true}, func(k int) int { return randomPlace(k, 50) }, -1)
	if want := []sighting{{"update-summaries ConfigMap", 7, 14}}; !slices.Equal(got, want) || len(past) > 0 {
		t.Errorf("%q (past the end %q), want %q", got, past, want)
	}
}

// A search that a finding ended at a place judged nothing past it: what a
// worker saw only there is said as seen past the end (Result.Unjudged), not
// as a run that is not a function of its plan (the CI failure of
// bd/blocked-workers' fixed variant: the known bug pinned at plan 1 ended
// the search, a worker had already judged plan 2 and seen no-error-at-rest,
// and this process, which never ran plan 2, called it unreproduced).
func TestWhatAWorkerSawPastTheEndOfTheSearchIsNotUnreproduced(t *testing.T) {
	pre := &workers.Verdicts{Sigs: map[int][]string{
		1: {"bounded-queue-wait BundleDeployment", "converges Deployment"},
		2: {"no-error-at-rest Deployment"},
	}}
	seen := map[string]bool{"bounded-queue-wait BundleDeployment": true}
	got, past := unreproduced(pre, seen, func(k int) int { return k }, 1)
	if want := []sighting{{"converges Deployment", 1, 1}}; !slices.Equal(got, want) {
		t.Errorf("unreproduced %q, want %q: this process judged plan 1", got, want)
	}
	if want := []sighting{{"no-error-at-rest Deployment", 2, 2}}; !slices.Equal(past, want) {
		t.Errorf("past the end %q, want %q", past, want)
	}
}

// A plan whose fault-free run shows Options.Expect's known bug reports
// what that run shows and leaves out what its fault adds; the signature
// left out was shown here all the same, so a worker that saw it at the same
// place is no "run that is not a function of its plan" (the CI failure of
// bd/slow-cleanup's buggy variant: update-summaries ConfigMap at plan 1,
// seen by a worker, left out here, then reported as unreproduced).
func TestASignatureTheKnownBugLeftOutIsNoUnreproducedOne(t *testing.T) {
	nf := []Finding{{Signature: "root-cause-visible Deployment", NoFault: true}}
	f := Finding{Signature: "update-summaries ConfigMap", Also: []string{"converges ConfigMap"}}
	seen := map[string]bool{}
	out, dropped := reportable(true, nf, f, seen)
	if len(out) != 1 || out[0].Signature != "root-cause-visible Deployment" || dropped != "update-summaries ConfigMap" {
		t.Fatalf("reported %v, left out %q; want the fault-free run's finding reported and the fault's left out", out, dropped)
	}
	pre := &workers.Verdicts{Sigs: map[int][]string{1: {"update-summaries ConfigMap", "converges ConfigMap", "root-cause-visible Deployment"}}}
	if got, _ := unreproduced(pre, seen, func(k int) int { return k }, -1); len(got) > 0 {
		t.Errorf("unreproduced %q, want none: this process showed each", got)
	}
	out, dropped = reportable(false, nf, f, map[string]bool{})
	if len(out) != 2 || dropped != "" {
		t.Errorf("not pinned: reported %d, left out %q; want both reported", len(out), dropped)
	}
}

// The plan a sighting names is the one its place draws, as the worker that
// judged it drew it: drawing it alone (the places before skipped) gives the
// plan the whole sequence gives there.
func TestASightingsPlanIsTheOneItsPlaceDraws(t *testing.T) {
	gen := rapid.Custom(func(t *rapid.T) *plan.Plan {
		return &plan.Plan{Seed: rapid.Uint64().Draw(t, "seed"), Steps: []plan.Step{{Action: rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "action")}}}
	})
	var all []string
	explore.RunPlaces(gen, 6, 3, explore.Places{}, func(_ int, p *plan.Plan) error {
		all = append(all, p.String())
		return nil
	})
	for k := 1; k <= 6; k++ {
		if got := drawnAt(gen, 3, k).String(); got != all[k-1] {
			t.Errorf("place %d drawn alone:\n%s\nin the sequence:\n%s", k, got, all[k-1])
		}
	}
}
