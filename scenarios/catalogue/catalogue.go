package catalogue

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Outcome is what exploring an (entry, variant) finds.
type Outcome string

// The outcomes.
const (
	Caught Outcome = "caught" // a plan violating a property was found (and shrunk)
	Holds  Outcome = "holds"  // no violation within the budget
)

// RequiredStepsWhy opens the explanation of an outcome that moved when plan
// 0 and the sweep's targeted plans came to start from what every drawn plan
// starts from (session 40); each entry's Why goes on with what moved.
const RequiredStepsWhy = "Plan 0 and the sweep's targeted plans now start from what every drawn plan starts from: the entry's domain steps of Min 1, " +
	"at their earliest time and first values (operatortest/search's sweepBase, operatortest/workload.Required), on the explorer seed's schedule " +
	"(seed 1). Before, they ran the script alone, a world no drawn plan reaches: the sweep aimed its faults at a run without the entry's own steps, " +
	"and the bug was first met by a random plan and shrunk (its minimal plan on seed 0). "

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

	// Test is the entry as an operatortest test of its reference
	// controller's variant v (operatortest.go): its world, workload, fault
	// profile and properties. The entry is explored, replayed and paged
	// through operatortest (Ported sets it).
	Test func(v variant.Variant) operatortest.Options
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
	for _, p := range e.Test(variant.Buggy).Properties {
		names = append(names, p.Name)
	}
	return names
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
	// Reproduced is whether the minimal plan, replayed, violated a property
	// again; set where it is replayed (WriteReports, TestEntries).
	Reproduced bool
}

// AsExpected reports whether the outcome is the expected one.
func (r Result) AsExpected() bool { return r.Outcome == r.Expect }

// Problems lists how a result breaks the catalogue's expectations, the one
// rule TestEntries and `ctrlsim catalogue --check` apply: the outcome is the
// expected one, and a caught variant's minimal plan has at most
// MaxMinimalPlan lines and, replayed, violates a property again.
func (r Result) Problems() []string {
	var out []string
	if !r.AsExpected() {
		out = append(out, fmt.Sprintf("outcome %s, expected %s", r.Outcome, r.Expect))
	}
	if r.Minimal == nil {
		return out
	}
	if n := r.Minimal.Size(); n > MaxMinimalPlan {
		out = append(out, fmt.Sprintf("minimal plan has %d lines, want at most %d", n, MaxMinimalPlan))
	}
	if !r.Reproduced {
		out = append(out, "the minimal plan does not reproduce the violation")
	}
	return out
}

// Explore runs up to checks plans of the entry's test for v from the explorer
// seed, and shrinks the first violation (operatortest.Explore). wallClock
// measures the exploration (the harness's own time, outside any simulated
// world).
func (e *Entry) Explore(v variant.Variant, checks int, seed uint64, wallClock func() time.Time) Result {
	return e.exploreTest(v, checks, seed, wallClock)
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
