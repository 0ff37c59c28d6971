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

// space is the faults a run of the tutorial's controller can meet in its fault
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

// forbidSample is the tutorial's sample CronJob with concurrencyPolicy Forbid
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

// explore searches the plans of gen for a violation of any property, with a
// fixed explorer seed and budget, so that every run of the test tries the same
// plans; it returns what it found.
func exploreProperties(t *testing.T, gen *rapid.Generator[*plan.Plan], checks int, seed uint64) explore.Result {
	t.Helper()
	start := time.Now()
	res := explore.Run(gen, checks, seed, func(p *plan.Plan) error {
		r, err := cronjob.Run(t, p, nil)
		if err != nil {
			return err
		}
		return r.Violations.Err()
	})
	if res.Caught {
		t.Logf("caught after %d plans (%v): %s\nminimal plan (%d lines):\n%s", res.ChecksToFirstFailure, time.Since(start).Round(time.Millisecond), res.Failure, res.Minimal.Size(), res.Minimal)
	} else {
		t.Logf("nothing caught in %d plans (%v)", res.Checks, time.Since(start).Round(time.Millisecond))
	}
	return res
}

func TestExploreForbidSample(t *testing.T) {
	exploreProperties(t, plan.Generator(space(rapid.Just(forbidSample))), 100, 1)
}

func TestExploreDrawnCronJobs(t *testing.T) {
	exploreProperties(t, plan.Generator(space(drawnCronJob)), 100, 1)
}
