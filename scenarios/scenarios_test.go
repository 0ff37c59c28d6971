package scenarios_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// checksCaught is the deterministic budget within which every variant expected
// to be caught must be caught (the catalogue uses 200; docs/design.md's bound is 1000).
var checksCaught = flag.Int("ctrlsim.checks", 200, "plans to try for each variant expected to be caught")

func TestScenarios(t *testing.T) {
	// rapid draws a random seed when none is given; CI runs a deterministic budget.
	if f := flag.Lookup("rapid.seed"); f != nil && f.Value.String() == "0" {
		_ = f.Value.Set("1")
	}
	gomega.RegisterFailHandler(Fail)
	RunSpecs(t, "ctrlsim catalogue")
}

var _ = Describe("The catalogue", func() {
	for _, e := range scenarios.All() {
		Describe(fmt.Sprintf("%s (seed %s)", e.ID, e.Seed), func() {
			for _, v := range e.Variants() {
				switch e.Expect[v] {
				case catalogue.Caught:
					It(fmt.Sprintf("catches the %s variant within %d plans and shrinks it", v, *checksCaught), func() {
						r := e.Explore(v, *checksCaught, 1, time.Now)
						if r.Outcome != catalogue.Caught {
							Fail(fmt.Sprintf("%s/%s held for %d plans; expected to be caught", e.ID, v, r.Checks))
						}
						GinkgoWriter.Printf("%s/%s caught after %d plans, violated %v, minimal plan:\n%s", e.ID, v, r.ChecksToFirstFailure, r.Violated, r.Minimal)
					})
				case catalogue.Holds:
					It(fmt.Sprintf("holds for the %s variant under rapid (-rapid.checks, -rapid.seed)", v), func() {
						gen := plan.Generator(e.Space)
						rapid.Check(GinkgoT(), func(t *rapid.T) {
							p := gen.Draw(t, "plan")
							run, err := e.RunPlan(v, p)
							if err != nil {
								t.Fatalf("world error: %v", err)
							}
							defer run.Cluster.Close()
							if bad := run.Violated(); len(bad) > 0 {
								file := savePlan(e.ID, string(v), p)
								t.Fatalf("%s/%s: %v\nminimal plan saved to %s\nreplay: go run ./cmd/ctrlsim replay --entry %s --variant %s --plan %s --timeline",
									e.ID, v, bad, file, e.ID, v, file)
							}
						})
					})
				}
			}
		})
	}
})

// savePlan writes a failing plan under scenarios/testdata/failures and returns its
// absolute path.
func savePlan(entry, v string, p *plan.Plan) string {
	dir := filepath.Join("testdata", "failures")
	_ = os.MkdirAll(dir, 0o755)
	name := filepath.Join(dir, fmt.Sprintf("%s-%s.plan", sanitize(entry), v))
	_ = os.WriteFile(name, []byte(p.String()), 0o644)
	abs, _ := filepath.Abs(name)
	return abs
}

func sanitize(id string) string {
	out := []byte(id)
	for i, c := range out {
		if c == '/' {
			out[i] = '-'
		}
	}
	return string(out)
}
