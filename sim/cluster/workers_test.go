package cluster_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// workerTasks lists the worker tasks of process op's widget controller.
func workerTasks(c *cluster.Cluster) []string {
	var out []string
	for _, t := range c.Sched.Tasks() {
		if strings.HasPrefix(t.Name(), "op/widget#") {
			out = append(out, t.Name())
		}
	}
	slices.Sort(out)
	return out
}

// A controller runs exactly MaxConcurrentReconciles workers (controller-runtime's
// default: 1), or as many as a plan's workers fault says, each once: no worker is
// started twice, in the first incarnation or after a restart.
func TestAControllerRunsExactlyItsWorkers(t *testing.T) {
	for _, tc := range []struct {
		plan string
		want []string
	}{
		{"seed 1\n", []string{"op/widget#1"}},
		{"seed 1\nworkers process=op controller=widget n=3\n", []string{"op/widget#1", "op/widget#2", "op/widget#3"}},
		{"seed 1\ncrash process=op at=1s\n", []string{"op/widget#1"}},
	} {
		p, err := plan.Parse(tc.plan)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cluster.New(p, statusWorld(&statusWriter{}, 2))
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute) // long enough for a crash at 1s and the 10s restart
		if got := workerTasks(c); !slices.Equal(got, tc.want) {
			t.Errorf("plan %q: worker tasks %v, want %v", tc.plan, got, tc.want)
		}
		c.Close()
	}
}
