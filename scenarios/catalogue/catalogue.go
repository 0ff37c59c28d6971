package catalogue

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Outcome is what exploring an (entry, variant) finds.
type Outcome string

// The outcomes.
const (
	Caught Outcome = "caught" // a plan violating a property was found (and shrunk)
	Holds  Outcome = "holds"  // no violation within the budget
)

// Entry is one catalogue entry: a scenario under one fault profile, with its
// properties and the expected outcome per variant of its reference controller.
type Entry struct {
	ID       string // e.g. "bd/terminating-cleanup"
	Seed     string // e.g. "1 (000)"
	SeedFile string // file under docs/seeds/ (SeedsDir)
	Upstream string // the upstream PR
	// Summary is what the bug is, in two paragraphs (for the entry's page).
	Summary string
	// Expect gives the expected outcome per variant; variants absent are not run.
	Expect map[variant.Variant]Outcome
	// Why explains the outcomes where they need it (e.g. where a faithful model contradicts docs/design.md).
	Why string

	// Test, when set, is the entry as an operatortest test of its reference
	// controller's variant v (operatortest.go): it is explored and replayed
	// through operatortest, and World, Space, FaultPhase, HealBudget and
	// Properties are unused. Entries not yet ported keep those instead.
	Test func(v variant.Variant) operatortest.Options

	// World builds the world for a variant.
	World func(v variant.Variant) cluster.Options
	// Space is the plan space of the entry's fault profile.
	Space plan.Space
	// FaultPhase and HealBudget are the lengths of the two phases of a run.
	FaultPhase, HealBudget time.Duration
	// Properties are judged over every run of this world (check.Run: its trace,
	// watch log, final state and plan).
	Properties []check.Property
}

// Variants returns the variants the entry has expectations for, in catalogue order.
func (e *Entry) Variants() []variant.Variant {
	var out []variant.Variant
	for _, v := range variant.All {
		if _, ok := e.Expect[v]; ok {
			out = append(out, v)
		}
	}
	return out
}

// PropertyNames lists the names of the entry's properties.
func (e *Entry) PropertyNames() []string {
	var names []string
	if e.onOperatortest() {
		for _, p := range e.Test(variant.Buggy).Properties {
			names = append(names, p.Name)
		}
		return names
	}
	for _, p := range e.Properties {
		names = append(names, p.Name())
	}
	return names
}

// Run is the result of running one plan.
type Run struct {
	Cluster  *cluster.Cluster
	Verdicts []check.Verdict
	// Figures of the run.
	APIOps, Reconciles int
	Virtual            time.Duration
}

// Violated returns the violated verdicts.
func (r *Run) Violated() []check.Verdict { return check.Violated(r.Verdicts) }

// RunPlan runs p on the entry's world for v: the fault phase, heal, the heal
// budget, then the properties. The caller must Close the returned cluster.
func (e *Entry) RunPlan(v variant.Variant, p *plan.Plan) (*Run, error) {
	if e.onOperatortest() {
		return nil, errNotKernel(e.ID)
	}
	c, err := cluster.New(p, e.World(v))
	if err != nil {
		return nil, err
	}
	verdicts := c.RunPhases(cluster.Phases{Fault: e.FaultPhase, Heal: e.HealBudget}, e.Properties...)
	r := &Run{Cluster: c, Verdicts: verdicts, Virtual: c.Now()}
	for _, s := range c.Trace.Steps() {
		switch {
		case s.Op == "reconcile":
			r.Reconciles++
		case s.Process != "" && s.Process != "admin" && isCall(s.Op):
			r.APIOps++
		}
	}
	return r, nil
}

func isCall(op string) bool {
	op = strings.TrimPrefix(op, "cached-")
	switch strings.SplitN(op, "/", 2)[0] {
	case "get", "list", "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// Violation is the error a failing run gives the explorer.
type Violation = check.Violation

// Result is the outcome of exploring one (entry, variant).
type Result struct {
	Entry                string
	Variant              variant.Variant
	Expect               Outcome
	Outcome              Outcome
	Checks               int
	ChecksToFirstFailure int
	Violated             []string
	Minimal              *plan.Plan
	// Wall is the exploration's wall time, shrinking included; WallToCatch is the
	// time until the first violating plan was found (0 when none was).
	Wall        time.Duration
	WallToCatch time.Duration
	APIOps      int
	Reconciles  int
	Virtual     time.Duration
}

// AsExpected reports whether the outcome is the expected one.
func (r Result) AsExpected() bool { return r.Outcome == r.Expect }

// Explore runs up to checks plans of the entry's space for v from the explorer
// seed, and shrinks the first violation. wallClock measures the exploration (the
// harness's own time, outside any simulated world).
func (e *Entry) Explore(v variant.Variant, checks int, seed uint64, wallClock func() time.Time) Result {
	if e.onOperatortest() {
		return e.exploreTest(v, checks, seed, wallClock)
	}
	res := Result{Entry: e.ID, Variant: v, Expect: e.Expect[v], Outcome: Holds}
	start := wallClock()
	out := explore.Run(plan.Generator(e.Space), checks, seed, func(p *plan.Plan) error {
		r, err := e.RunPlan(v, p)
		if err != nil {
			return fmt.Errorf("world error: %w", err)
		}
		defer r.Cluster.Close()
		res.APIOps += r.APIOps
		res.Reconciles += r.Reconciles
		res.Virtual += r.Virtual
		if bad := r.Violated(); len(bad) > 0 {
			if res.WallToCatch == 0 {
				res.WallToCatch = wallClock().Sub(start)
			}
			return &Violation{Verdicts: bad}
		}
		return nil
	})
	res.Wall = wallClock().Sub(start)
	res.Checks = out.Checks
	if out.Caught {
		res.Outcome = Caught
		res.ChecksToFirstFailure = out.ChecksToFirstFailure
		res.Minimal = out.Minimal
		var viol *Violation
		if errors.As(out.Err, &viol) {
			res.Violated = viol.Properties()
		} else {
			res.Violated = []string{"error: " + out.Failure}
		}
	}
	return res
}

// FailureReport is what a test says about an unexpected result: for a caught one,
// where its minimal plan is saved and the command that replays it (SavePlan);
// for one that held, the command that explores further.
func FailureReport(r Result) string {
	if r.Minimal == nil {
		return fmt.Sprintf("no violating plan in %d checks; explore further: go run ./cmd/ctrlsim run --entry %s --variant %s --checks 2000", r.Checks, r.Entry, r.Variant)
	}
	return fmt.Sprintf("violated %v; %s", r.Violated, SavePlan(r.Entry, r.Variant, r.Minimal))
}

// SavePlan saves p, a plan of the entry's world that a test found violating,
// under testdata/failures (relative to the test's package), and says where,
// with the one-line command that replays it: the one way a test hands a
// failing plan to a person (the entries test, the fuzz targets).
func SavePlan(entry string, v variant.Variant, p *plan.Plan) string {
	dir := filepath.Join("testdata", "failures")
	file := filepath.Join(dir, fmt.Sprintf("%s-%s.plan", slug(entry), v))
	if err := os.MkdirAll(dir, 0o755); err == nil {
		_ = os.WriteFile(file, []byte(p.String()), 0o644)
	}
	abs, _ := filepath.Abs(file)
	return fmt.Sprintf("plan saved to %s\nreplay: %s", abs, Replay(entry, string(v), abs))
}

// NewScheme returns client-go's scheme with the types add registers: what every
// world needs. Build it once per scenario and share it (sync.OnceValue):
// explorations build thousands of worlds, and a scheme is only read once built.
func NewScheme(add ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, f := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme}, add...) {
		if err := f(s); err != nil {
			panic(err)
		}
	}
	return s
}
