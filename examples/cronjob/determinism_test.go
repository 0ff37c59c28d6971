package cronjob_test

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// A run is a pure function of its plan, although the controller reads
// time.Now (its real clock): the same plan, with faults of every class, gives
// the same trace hash twice (each run in a testing/synctest bubble of its
// own).
func TestTheSamePlanGivesTheSameTrace(t *testing.T) {
	p := mustParse(t, `seed 7
at 0s create-cronjob policy=Forbid duration=90s
crash process=cronjob call=23
crash process=kube-controller-manager at=1m30s
api verb=update resource=cronjobs subresource=status process=cronjob code=409 count=3 from=1m0s until=2m0s
latency process=cronjob min=1ms max=50ms
`)
	drive := func(c *cluster.Cluster) {
		if err := cronjob.Drive(c); err != nil {
			t.Error(err)
		}
	}
	if err := wallclock.CheckDeterminism(t, p, func() cluster.Options { return cronjob.World(p, cronjob.Correct) }, drive); err != nil {
		t.Fatal(err)
	}
	// The plan's faults did act: both processes crashed, and a status write
	// met a conflict.
	_, err := cronjob.Run(t, p, cronjob.Correct, func(c *cluster.Cluster) {
		crashed := map[string]bool{}
		conflicts := 0
		for _, s := range c.Trace.Steps() {
			if s.Op == "crash" {
				crashed[s.Process] = true
			}
			if strings.Contains(s.Result, "Conflict") {
				conflicts++
			}
		}
		if !crashed[cronjob.Operator] || !crashed[cronjob.JobModel] || conflicts == 0 {
			t.Errorf("the faults did not all act: crashed %v, %d conflicts", crashed, conflicts)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustParse(t *testing.T, text string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
