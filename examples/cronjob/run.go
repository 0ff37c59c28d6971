package cronjob

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
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
	// StableHash is the hash of the trace with Go heap addresses masked in log
	// lines: the simulator prints an object a controller logs by its String
	// method, which shows pointer fields as addresses that change from run to
	// run (README.md, "Simulator artefacts"). Replays are compared with it.
	StableHash string
	// Masked reports whether StableHash masked any address; when it did not,
	// StableHash covers the same steps as Hash.
	Masked bool
}

// Run builds the world for p inside a testing/synctest bubble (wallclock.Run:
// the tutorial's realClock calls time.Now, which then reads virtual time),
// drives it (Drive), judges it (Judge) and closes it. inspect, if not nil, sees
// the cluster before it is closed.
func Run(t *testing.T, p *plan.Plan, inspect func(c *cluster.Cluster)) (res Result, err error) {
	t.Helper()
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := World()
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
		stable, masked := StableHash(c)
		res = Result{Violations: Judge(c), Hash: c.Trace.Hash(), StableHash: stable, Masked: masked}
		if inspect != nil {
			inspect(c)
		}
	})
	return res, err
}

// heapAddress is how fmt prints a pointer inside a struct (%v of a *bool
// field): 0x followed by hex digits.
var heapAddress = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// StableHash hashes c's kept trace steps with heap addresses in log lines
// masked (see Result.StableHash), and reports whether it masked any.
func StableHash(c *cluster.Cluster) (hash string, masked bool) {
	h := sha256.New()
	for _, s := range c.Trace.Steps() {
		if s.Op == "log" && heapAddress.MatchString(s.Result) {
			s.Result = heapAddress.ReplaceAllString(s.Result, "0x?")
			masked = true
		}
		h.Write([]byte(s.Canonical()))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)), masked
}
