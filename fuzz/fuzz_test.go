package fuzz

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// fuzzEntry fuzzes the variants of an entry that are expected to hold, each
// as its operatortest test (search.FuzzTarget): an input decodes to a
// plan of the entry's workload and fault profile, judged by the generic
// oracles and the entry's properties. The seeds are operatortest's
// (FuzzSeeds: inputs long enough to draw a plan from).
func fuzzEntry(f *testing.F, id string) {
	e, err := scenarios.Lookup(id)
	if err != nil {
		f.Fatal(err)
	}
	holding, err := holdingVariants(e)
	if err != nil {
		f.Fatal(err)
	}
	var targets []func(*testing.T, []byte)
	for _, v := range holding {
		target, err := search.FuzzTarget(e.Test(v))
		if err != nil {
			f.Fatalf("%s/%s: %v", id, v, err)
		}
		targets = append(targets, target)
	}
	for _, in := range search.FuzzSeeds() {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, target := range targets {
			target(t, data)
		}
	})
}

// holdingVariants are the variants of e expected to hold, the ones fuzzed;
// an entry with none has nothing to fuzz.
func holdingVariants(e *catalogue.Entry) ([]variant.Variant, error) {
	var out []variant.Variant
	for _, v := range e.Variants() {
		if e.Expect[v] == catalogue.Holds {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no variant is expected to hold: nothing to fuzz", e.ID)
	}
	return out, nil
}

func FuzzCanary(f *testing.F) { fuzzEntry(f, "canary/stale-cache") }

// One target per seed scenario: the entry whose holding variants are checked.
func FuzzPipeline(f *testing.F) { fuzzEntry(f, "pipeline/app-event-race") }

func FuzzBundleDeployment(f *testing.F) { fuzzEntry(f, "bd/terminating-cleanup") }

func FuzzClusterExtension(f *testing.F) { fuzzEntry(f, "helm/interrupted-upgrade") }

func FuzzKopf(f *testing.F) { fuzzEntry(f, "kopf/persistent-422") }

func FuzzRepoSync(f *testing.F) { fuzzEntry(f, "reposync/namespace-deleted") }

// FuzzPlanParser: any text either fails to parse with an error, or parses to a
// plan whose text form parses back to the same plan.
func FuzzPlanParser(f *testing.F) {
	for _, s := range []string{
		"seed 1\n",
		"seed 42\nat 1s create-pipeline name=p envs=3\nlag process=manager kind=/v1/Namespace min=0s max=2s\n",
		"seed 7\ncrash process=op call=17\napi verb=patch resource=x code=422 message=\"bad value\" from=1s until=1m0s\n",
		"seed 0\nhold process=b kind=test.ctrlsim.dev/v1/Widget from=0s until=1m0s\nworkers process=a controller=w n=3\n",
		"seed 1\nat 0s \"odd action\" k=\"a b\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := plan.Parse(text)
		if err != nil {
			return
		}
		q, err := plan.Parse(p.String())
		if err != nil {
			t.Fatalf("the text form of a parsed plan does not parse: %v\n%s", err, p)
		}
		if !reflect.DeepEqual(norm(p), norm(q)) || q.String() != p.String() {
			t.Fatalf("round trip changed the plan:\n%s---\n%s", p, q)
		}
	})
}

func norm(p *plan.Plan) *plan.Plan {
	q := *p
	if len(q.Steps) == 0 {
		q.Steps = nil
	}
	for i := range q.Steps {
		if len(q.Steps[i].Args) == 0 {
			q.Steps[i].Args = nil
		}
	}
	if len(q.Faults) == 0 {
		q.Faults = nil
	}
	return &q
}
