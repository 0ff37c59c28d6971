package explore

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Result is what an exploration found.
type Result struct {
	// Caught is true when some plan violated the property.
	Caught bool
	// Checks is the number of plans tried before the first failure, or the budget.
	Checks int
	// ChecksToFirstFailure is the 1-based number of the first failing plan; 0 when
	// none failed.
	ChecksToFirstFailure int
	// Minimal is the shrunk failing plan; nil when none failed.
	Minimal *plan.Plan
	// Failure is the property's message for Minimal, and Err the error itself.
	Failure string
	Err     error
}

// Run draws up to checks plans from gen (rapid, starting from seed), checks prop on
// each, and on the first failure lets rapid shrink it to a minimal plan. It never
// fails the caller: a caught bug is a result. prop returns nil when the property
// holds for the plan it was given.
//
// Run sets rapid's global flags (checks, seed, no fail files, no shrink time
// limit) and turns off -test.short (with which rapid runs a fifth of the
// checks) for its duration, so
// explorations must not run in parallel within one process.
//
// Seed 0 is seed 1: rapid would take 0 as "draw a random seed", and an
// exploration must be the same in every run.
func Run(gen *rapid.Generator[*plan.Plan], checks int, seed uint64, prop func(p *plan.Plan) error) Result {
	return RunPlaces(gen, checks, seed, Places{}, func(_ int, p *plan.Plan) error { return prop(p) })
}

// Places lets a caller explore some places of the sequence only (a worker
// of a parallel exploration, a parent recalling verdicts its workers gave).
type Places struct {
	// Skip, if set, is asked for each place (from 1) of the sequence before
	// its plan is drawn: a skipped place is neither drawn nor checked (it
	// holds). Rapid seeds each check's draws from the seed and the check's
	// index only, so skipping a place does not change the plans of the
	// others, as long as every place draws a valid plan (see Invalid).
	// Skip is not asked while shrinking.
	Skip func(place int) bool
	// Invalid, if set, is told of a place whose draw rapid rejected (a
	// filter that found no value): rapid then draws one more check at the
	// end, so the places after it are not the places a run skipping it
	// would number (a caller skipping places must then draw them all).
	Invalid func(place int)
}

// RunPlaces is Run with places: prop gets the plan's place in the sequence
// (from 1; while shrinking, the failing place).
func RunPlaces(gen *rapid.Generator[*plan.Plan], checks int, seed uint64, pl Places, prop func(place int, p *plan.Plan) error) Result {
	if seed == 0 {
		seed = 1
	}
	restore := setFlags(map[string]string{
		"rapid.checks":     strconv.Itoa(checks),
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.nofailfile": "true",
		"rapid.failfile":   "",
		// rapid stops shrinking after -rapid.shrinktime (30s) of wall clock:
		// the minimal plan would then depend on the machine's load, and the
		// catalogue that CI checks with it. Shrinking ends on its own instead.
		"rapid.shrinktime": "1h",
		// rapid runs a fifth of its checks under `go test -short`: an
		// exploration's budget and outcome must not depend on it.
		"test.short": "false",
	})
	defer restore()

	var res Result
	calls, place, drawn := 0, 0, false
	rapid.Check(&recorder{}, func(t *rapid.T) {
		if !res.Caught {
			place++
			if pl.Skip != nil && pl.Skip(place) {
				calls++
				return
			}
		}
		drawn = false
		if pl.Invalid != nil && !res.Caught {
			defer func() {
				if drawn {
					return
				}
				if r := recover(); r != nil {
					if fmt.Sprintf("%T", r) == "rapid.invalidData" {
						pl.Invalid(place)
						place-- // rapid does not count it: the next check is this place again
					}
					panic(r)
				}
			}()
		}
		p := gen.Draw(t, "plan")
		drawn = true
		calls++
		if err := prop(place, p); err != nil {
			if !res.Caught {
				res.Caught = true
				res.ChecksToFirstFailure = calls
			}
			// Rapid keeps the smallest failing plan; the last failure it sees is it.
			res.Minimal, res.Failure, res.Err = p, err.Error(), err
			t.Fatal(err.Error())
		}
	})
	res.Checks = calls
	if res.Caught {
		res.Checks = res.ChecksToFirstFailure
	}
	return res
}

func setFlags(values map[string]string) (restore func()) {
	old := map[string]string{}
	for name, v := range values { // lint:order-independent each flag is set independently
		f := flag.Lookup(name)
		if f == nil && strings.HasPrefix(name, "test.") {
			continue // not a test binary, and testing.Init was not called: not short
		}
		if f == nil {
			panic(fmt.Sprintf("explore: rapid flag %s is not registered", name))
		}
		old[name] = f.Value.String()
		if err := f.Value.Set(v); err != nil {
			panic(err)
		}
	}
	return func() {
		for name, v := range old { // lint:order-independent each flag is restored independently
			_ = flag.Lookup(name).Value.Set(v)
		}
	}
}

// recorder is a rapid.TB that records instead of failing.
type recorder struct {
	failed bool
	log    []string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "ctrlsim-explore" }
func (r *recorder) Logf(format string, args ...any) {
	r.log = append(r.log, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any)                   { r.log = append(r.log, fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any)  { r.Logf(format, args...) }
func (r *recorder) Skip(args ...any)                  { r.Log(args...) }
func (r *recorder) SkipNow()                          {}
func (r *recorder) Errorf(format string, args ...any) { r.failed = true; r.Logf(format, args...) }
func (r *recorder) Error(args ...any)                 { r.failed = true; r.Log(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = true; r.Logf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.failed = true; r.Log(args...) }
func (r *recorder) FailNow()                          { r.failed = true }
func (r *recorder) Fail()                             { r.failed = true }
func (r *recorder) Failed() bool                      { return r.failed }
