package catalogue

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/outside"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// An entry is an operatortest test of its reference controller's variants:
// it is explored, replayed and paged through operatortest's engine
// (reference runs, targeting, the generic oracles beside its own
// properties, shrinking, replay), the one an operator author uses. Caught
// is "operatortest finds a violating plan within the budget", holds
// "none". The catalogue's budget (Checks, Seed) is the test's
// Options.Checks and Options.Seed.

// options are the entry's operatortest Options for v at the given budget.
func (e *Entry) options(v variant.Variant, checks int, seed uint64) operatortest.Options {
	o := e.Test(v)
	o.Checks, o.Seed = checks, seed
	return o
}

// testName is the name of the entry's test of variant v (its plans' header).
func testName(id string, v variant.Variant) string { return id + "/" + string(v) }

// exploreTest is Explore for an entry on operatortest: operatortest.Explore,
// run as a test of this program (internal/outside) when it is not one.
func (e *Entry) exploreTest(v variant.Variant, checks int, seed uint64, wallClock func() time.Time) Result {
	res := Result{Entry: e.ID, Variant: v, Expect: e.Expect[v], Outcome: Holds}
	start := wallClock()
	var out operatortest.Result
	var exploreErr error
	err := outside.Run(testName(e.ID, v), func(t *testing.T) {
		out, exploreErr = operatortest.Explore(t, e.options(v, checks, seed))
	})
	res.Wall = wallClock().Sub(start)
	if err = firstErr(exploreErr, err); err != nil {
		// A world that cannot run is no outcome: it shows as a caught
		// "error" (unexpected for a variant that should hold, and for one
		// that should be caught its Violated says so), never as a pass.
		res.Outcome, res.Checks = Caught, out.Checks
		res.Violated = []string{"error: " + oneLine(err.Error())}
		return res
	}
	res.Checks = out.Checks
	if out.Caught {
		res.Outcome = Caught
		res.ChecksToFirstFailure = out.FirstFailure
		res.Minimal = out.Minimal
		res.WallToCatch = out.TimeToFirstFailure
		for _, x := range out.Violations {
			res.Violated = append(res.Violated, x.Property)
		}
	}
	return res
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Replayed is one plan of an entry, run and judged by the entry's engine:
// what a page, `ctrlsim replay` and TestEntries show of it.
type Replayed struct {
	Verdicts []check.Verdict
	Hash     string
	Steps    int
	// Timeline is the run's timeline, one step a line.
	Timeline string
	// story writes the picture (.svg) and inspector (.html) at base+".svg"
	// and base+".html".
	story func(base, title string) error
	close func()
}

// Violated are the verdicts that do not hold.
func (r *Replayed) Violated() []check.Verdict { return check.Violated(r.Verdicts) }

// WriteStory writes the run's picture at base+".svg" and its inspector at
// base+".html".
func (r *Replayed) WriteStory(base, title string) error { return r.story(base, title) }

// Close releases the run.
func (r *Replayed) Close() {
	if r.close != nil {
		r.close()
	}
}

// Replay runs p on the entry's world for v, by the entry's engine, and
// judges it. The caller must Close the result.
func (e *Entry) Replay(v variant.Variant, p *plan.Plan) (*Replayed, error) {
	var r *operatortest.Replayed
	var replayErr error
	err := outside.Run(testName(e.ID, v), func(t *testing.T) {
		r, replayErr = operatortest.Replay(t, e.options(v, Checks, Seed), p)
	})
	if err = firstErr(replayErr, err); err != nil {
		return nil, err
	}
	return &Replayed{Verdicts: r.Verdicts, Hash: r.Hash, Steps: len(r.Steps), Timeline: strings.Join(r.Timeline, "\n") + "\n",
		story: func(base, title string) error {
			_, _, err := r.WriteStory(base+".plan", title)
			return err
		}}, nil
}

// planBase is the path of a plan file without its extension.
func planBase(dir, planFile string) string {
	return filepath.Join(dir, strings.TrimSuffix(planFile, filepath.Ext(planFile)))
}
