package cronjob_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// apiFaults are the API errors a CronJob controller meets: its Job writes and
// its status writes fail, or a Job create commits and its response is lost.
var apiFaults = []apiserver.Fault{
	{Agent: cronjob.Operator, Verb: "create", Resource: "jobs", Code: 500},
	{Agent: cronjob.Operator, Verb: "create", Resource: "jobs", Ambiguous: true},
	{Agent: cronjob.Operator, Verb: "delete", Resource: "jobs", Code: 503},
	{Agent: cronjob.Operator, Verb: "update", Resource: "cronjobs", Subresource: "status", Code: 409},
}

// space is the faults a run of the operator can meet in its fault
// phase, for a fixed or drawn workload.
func space(workload *rapid.Generator[[]plan.Step]) plan.Space {
	return plan.Space{
		Processes: []string{cronjob.Operator},
		Kinds:     []string{cronjob.CronJobKind, cronjob.JobKind},
		Horizon:   cronjob.FaultPhase,
		APIFaults: apiFaults,
		Workload:  workload,
	}
}

func create(args ...plan.Arg) []plan.Step {
	return []plan.Step{{At: 0, Action: "create-cronjob", Args: args}}
}

// forbidSample is the sample CronJob with concurrencyPolicy Forbid
// and Jobs that run 90 s, longer than the one-minute schedule: Forbid has to
// skip or delay runs.
var forbidSample = create(plan.Arg{Key: "policy", Value: "Forbid"}, plan.Arg{Key: "duration", Value: "90s"})

// drawnCronJob draws the CronJob a user might write: any policy, history
// limits from 0 to the webhook's default 3, the sample's deadline or none, and
// Jobs shorter or longer than the schedule's minute.
var drawnCronJob = rapid.Custom(func(t *rapid.T) []plan.Step {
	return create(
		plan.Arg{Key: "policy", Value: rapid.SampledFrom([]string{"Allow", "Forbid", "Replace"}).Draw(t, "policy")},
		plan.Arg{Key: "successful", Value: rapid.SampledFrom([]string{"3", "2", "1", "0"}).Draw(t, "successful")},
		plan.Arg{Key: "deadline", Value: rapid.SampledFrom([]string{"60", "none"}).Draw(t, "deadline")},
		plan.Arg{Key: "duration", Value: rapid.SampledFrom([]string{"30s", "90s", "10s", "150s"}).Draw(t, "duration")},
	)
})

// Explorations are deterministic: the explorer's seed and plan budget are
// fixed, so every run of a test tries the same plans, and shrinking is bounded
// by a number of runs rather than by time (rapid's -rapid.shrinktime is
// checked only between shrink steps, and a step can cost a hundred runs of
// 50 ms). Once shrinkRuns plans have been run after the first failure, the
// property answers "holds" without running the plan, and rapid's shrinker
// stops improving: the minimal plan is the smallest failing plan met within
// the budget, the same on every machine. Every plan reported did fail.
const shrinkRuns = 60

// exploreProperties searches the plans of gen, run on variant v, for a
// violation of any property and returns what it found, with its minimal plan.
func exploreProperties(t *testing.T, v cronjob.Variant, gen *rapid.Generator[*plan.Plan], checks int, seed uint64) explore.Result {
	t.Helper()
	start := time.Now()
	runs, failed := 0, false
	res := explore.Run(gen, checks, seed, func(p *plan.Plan) error {
		if failed {
			if runs++; runs > shrinkRuns {
				return nil // the shrink budget is spent (see shrinkRuns)
			}
		}
		r, err := cronjob.Run(t, p, v, nil)
		if err != nil {
			return err
		}
		if r.Violations != nil {
			failed = true
		}
		return r.Violations.Err()
	})
	if res.Caught {
		t.Logf("%s: caught at plan %d of %d, shrunk in %d runs (%v in all): %s\nminimal plan (%d lines):\n%s", v, res.ChecksToFirstFailure, checks, min(runs, shrinkRuns), time.Since(start).Round(time.Millisecond), res.Failure, res.Minimal.Size(), res.Minimal)
	} else {
		t.Logf("%s: nothing caught in %d plans (%v)", v, res.Checks, time.Since(start).Round(time.Millisecond))
	}
	return res
}

// caught requires that the exploration of the tutorial-design variant found
// property broken, that its minimal plan still breaks it, and that the
// operator as written holds on the same plans: the first
// res.ChecksToFirstFailure plans of the same generator and seed (the last of
// them the one that broke the variant) and the minimal plan.
func caught(t *testing.T, gen *rapid.Generator[*plan.Plan], seed uint64, res explore.Result, property string) {
	t.Helper()
	if !res.Caught {
		t.Fatalf("%s was not caught in %d plans", property, res.Checks)
	}
	again, err := cronjob.Run(t, res.Minimal, cronjob.TutorialDesign, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Violations.Has(property) {
		t.Fatalf("the minimal plan does not break %s when replayed (%v):\n%s", property, again.Violations, res.Minimal)
	}
	fixed, err := cronjob.Run(t, res.Minimal, cronjob.Correct, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Violations != nil {
		t.Errorf("the operator breaks the minimal plan too: %v\n%s", fixed.Violations, res.Minimal)
	}
	if same := exploreProperties(t, cronjob.Correct, gen, res.ChecksToFirstFailure, seed); same.Caught {
		t.Errorf("the operator breaks a plan the variant was explored on: %s; minimal plan:\n%s", same.Failure, same.Minimal)
	}
}

// The sample with concurrencyPolicy Forbid and Jobs longer than the
// schedule's minute, under every fault class: the exploration of the
// tutorial-design variant finds Finding 1 (a stalled Job watch lets two Jobs
// run at once); the operator holds on the same plans.
func TestExploreForbidSample(t *testing.T) {
	gen := plan.Generator(space(rapid.Just(forbidSample)))
	res := exploreProperties(t, cronjob.TutorialDesign, gen, 100, 1)
	caught(t, gen, 1, res, "forbid-never-overlaps")
}

// CronJobs a user might write (policy, history limit, deadline and Job length
// drawn), under every fault class: the exploration of the tutorial-design
// variant finds Finding 2 (a history limit of 0 runs scheduled times again);
// the operator holds on the same plans.
func TestExploreDrawnCronJobs(t *testing.T) {
	gen := plan.Generator(space(drawnCronJob))
	res := exploreProperties(t, cronjob.TutorialDesign, gen, 100, 1)
	caught(t, gen, 1, res, "no-scheduled-time-run-twice")
}

// The sample as it ships (concurrencyPolicy Allow, the webhook's history
// limits 3 and 1, 30 s Jobs), on the operator as written: no plan of faults
// breaks a property.
func TestExploreTheSampleHolds(t *testing.T) {
	sample := rapid.Just(create())
	if res := exploreProperties(t, cronjob.Correct, plan.Generator(space(sample)), 40, 1); res.Caught {
		t.Fatalf("the sample broke a property: %s; minimal plan:\n%s", res.Failure, res.Minimal)
	}
}
