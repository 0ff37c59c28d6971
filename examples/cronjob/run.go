package cronjob

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// Result is one driven and judged run.
type Result struct {
	Violations Violations
	// Hash is the trace hash (trace.Trace.Hash).
	Hash string
}

// Run builds the world for p with variant v inside a testing/synctest bubble
// (wallclock.Run: the controller's real clock calls time.Now, which then reads
// virtual time),
// drives it (Drive), judges it (Judge) and closes it. inspect, if not nil, sees
// the cluster before it is closed.
func Run(t *testing.T, p *plan.Plan, v Variant, inspect func(c *cluster.Cluster)) (res Result, err error) {
	t.Helper()
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := World(p, v)
		o.Wall = wall
		c, e := cluster.New(p, o)
		if e != nil {
			err = e
			return
		}
		defer c.Close()
		if err = Drive(c); err != nil {
			return
		}
		res = Result{Violations: Judge(c), Hash: c.Trace.Hash()}
		if inspect != nil {
			inspect(c)
		}
	})
	return res, err
}
