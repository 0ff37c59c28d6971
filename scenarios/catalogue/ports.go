package catalogue

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	kclock "k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// What every scenario package's port to operatortest shares: its entries
// with their tests set (Ported), its CRDs as manifests (CRDManifests), the
// run's virtual clock (ClockOf), the test that each port keeps its
// entries' expectations (TestPorts), and the options its specs replay
// plans with (ForSpecs).

// ForSpecs is o for a spec that replays one plan and asserts what its
// trace and final state show (operatortest.Replay): the generic oracles
// off (their fault-free reference runs are not what the spec judges), the
// kernel's verdicts (hot loop, livelock, panic) and o's properties still
// judged.
func ForSpecs(o operatortest.Options) operatortest.Options {
	for _, name := range world.Oracles() {
		if !slices.Contains(world.KernelVerdicts, name) {
			o.Disable = append(o.Disable, name)
		}
	}
	return o
}

// Ported returns entries with Test set from tests, by ID: the entries as
// operatortest runs them. Every test must name an entry, and every entry
// must have a test.
func Ported(entries []*Entry, tests map[string]func(variant.Variant) operatortest.Options) []*Entry {
	var out []*Entry
	for _, e := range entries {
		test, ok := tests[e.ID]
		if !ok {
			panic(fmt.Sprintf("catalogue: entry %s has no operatortest test", e.ID))
		}
		p := *e
		p.Test = test
		out = append(out, &p)
	}
	if len(out) != len(tests) {
		panic(fmt.Sprintf("catalogue: %d tests for %d entries", len(tests), len(out)))
	}
	return out
}

// CRDManifests are the CustomResourceDefinitions of the Go types as
// manifests (Options.CRDs), generated as envtest's are.
func CRDManifests(crds ...envtestenv.CRD) [][]byte {
	var out [][]byte
	for _, d := range envtestenv.Definitions(crds...) {
		d.APIVersion, d.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		b, err := yaml.Marshal(d)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// ClockOf is the run's virtual clock, as operatortest's managers give it
// (the real clock for a manager of another kind).
func ClockOf(mgr manager.Manager) kclock.WithTicker {
	if c, ok := mgr.(interface{ Clock() kclock.WithTicker }); ok {
		return c.Clock()
	}
	return kclock.RealClock{}
}

// TestPorts is each port's test of its expectations on operatortest: a
// variant expected caught is caught by the property caughtBy names for
// "<entry>/<variant>" (within 200 plans, the catalogue's budget, seed 1,
// with Options.Expect set: the catalogue's own exploration, without it,
// may end at another property's finding first). A variant expected to hold
// is not explored here: TestEntries and `ctrlsim catalogue --check` explore
// it with the same Options at the catalogue's budget (200 plans), and a
// shorter run of the same test proved nothing they do not.
func TestPorts(t *testing.T, ports []*Entry, caughtBy map[string]string) {
	t.Helper()
	for _, e := range ports {
		for _, v := range variant.All {
			if ex, ok := e.Expect[v]; !ok || ex != Caught {
				continue
			}
			name := e.ID + "/" + string(v)
			t.Run(name[strings.Index(name, "/")+1:], func(t *testing.T) {
				o := e.Test(v)
				o.Seed = 1
				o.Expect, o.Checks, o.ShrinkRuns = caughtBy[name], Checks, 30
				if o.Expect == "" {
					t.Fatalf("no property named for %s", name)
				}
				operatortest.Run(t, o)
			})
		}
	}
}
