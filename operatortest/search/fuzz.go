package search

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// FuzzTarget is a `go test -fuzz` target over the operator's plans: the fuzz
// bytes drive the same generator Explore draws from, so every input decodes
// to a plan of the test's workload and fault profile, run and judged as Run
// judges it (reference runs, the generic oracles, the test's properties). A
// plan that violates a property fails the fuzz test with its text; a world
// that cannot run fails it with the error. The Options are checked at once
// (the error names the bad one, as Run's does). An author's fuzz test is
// operatortest.Fuzz, which adds FuzzSeeds and fuzzes this target; fuzz/'s
// targets of the catalogue's entries use the two directly.
func FuzzTarget(o world.Options) (func(t *testing.T, data []byte), error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	w, err := NewWorld(o.WithDefaults())
	if err != nil {
		return nil, err
	}
	gen := plan.Generator(w.Space)
	return func(t *testing.T, data []byte) {
		var p *plan.Plan
		rapid.MakeFuzz(func(rt *rapid.T) { p = gen.Draw(rt, "plan") })(t, data)
		if p == nil {
			t.Skip("the input is too short to draw a plan from")
		}
		r, err := func() (*world.RunResult, error) {
			defer world.Simulating()()
			return reference.Run(w, t, p)
		}()
		if err != nil {
			t.Fatalf("the world cannot run the plan: %v\n%s", err, p)
		}
		if bad := check.Violated(r.Verdicts); len(bad) > 0 {
			var lines []string
			for _, v := range bad {
				lines = append(lines, v.Property+": "+v.Detail)
			}
			t.Fatalf("%s\nthe plan:\n%s", strings.Join(lines, "\n"), p)
		}
	}, nil
}

// FuzzSeeds are inputs long enough to draw a plan from (rapid skips an
// input that runs out before the plan is drawn: a seed corpus of short
// inputs would run nothing): the simplest plan, and two of pseudo-random
// bytes.
func FuzzSeeds() [][]byte {
	out := [][]byte{make([]byte, 8192)}
	for _, seed := range []uint64{1, 2} {
		b, x := make([]byte, 8192), seed
		for i := range b {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			b[i] = byte(x)
		}
		out = append(out, b)
	}
	return out
}
