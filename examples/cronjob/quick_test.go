package cronjob_test

import (
	"os"
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func TestQuick(t *testing.T) {
	p, err := plan.Parse(os.Getenv("PLAN"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cronjob.Run(t, p, func(c *cluster.Cluster) { c.Trace.WriteTimeline(os.Stdout) })
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Violations)
}
