package cronjob_test

import (
	"regexp"
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// A simulator artefact, pinned so that its fix is noticed: when the tutorial
// logs a Job (log.Error(err, "unable to create Job for CronJob", "job", job)),
// the process's log sink (sim/process/logs.go) prints the *batchv1.Job by its
// String method, whose ownerReference shows the Controller and
// BlockOwnerDeletion *bool fields as heap addresses. The trace then depends on
// where the Go heap put two booleans, and the determinism check
// (wallclock.CheckDeterminism) fails for such runs whenever the addresses
// differ, although every call, write and object of the two runs is the same.
// controller-runtime's zap logger (its KubeAwareEncoder) would print the
// object as its kind, namespace and name. When this test fails, the sink was
// fixed: delete the test and the masking in cronjob.StableHash.
func TestArtefactLoggedObjectsPrintHeapAddresses(t *testing.T) {
	address := regexp.MustCompile(`0x[0-9a-f]{6,}`)
	var line string
	_, err := cronjob.Run(t, mustParse(t, jobLagPlan), func(c *cluster.Cluster) {
		for _, s := range c.Trace.Steps() {
			if s.Op == "log" && address.MatchString(s.Result) && line == "" {
				line = s.Result
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if line == "" {
		t.Fatal("no log line of the tutorial shows heap addresses any more: the simulator's log sink was fixed; remove this test and cronjob.StableHash's masking")
	}
	t.Logf("a log line with heap addresses: %.300s...", line)
}
