// Package scenarios is the catalogue: every entry of every scenario package, in
// catalogue order. Each scenario package (one per seed, plus the canary) binds a
// reference controller and the models it needs into a world, and defines its
// entries: fault profile, properties and expected outcome per variant.
//
// Every scenario package has the same shape:
//
//   - operatortest.go: one func(variant.Variant) operatortest.Options per
//     entry, the entry as a test of the reference controller's variant,
//     and OnOperatortest, the entries with those tests set
//     (catalogue.Ported).
//   - entries.go: Entries(), the catalogue entries' text (ID, summary,
//     why, expectations).
//   - world.go: Options (Variant and the world's knobs), Scheme() and the
//     shared scheme, and World(Options) cluster.Options, the world on the
//     kernel, which the package's own tests run (Known gaps).
//   - properties.go: the properties, each a check.Property over the run
//     (operatortest.FromCheck adapts them).
//   - entries_test.go: TestEntries, which only calls catalogue.TestEntries,
//     the one test of the catalogue's expectations.
//
// (The canary keeps all of it in canary.go.)
//
// Every entry runs on the one engine, operatortest: its package's
// OnOperatortest returns its entries with Test set (the operatortest.Options
// of the reference controller's variant: managers, seed objects, domain
// steps, systems, properties as operatortest.Property), in place of World,
// Space and Properties (catalogue.Ported); `ctrlsim run`, `catalogue` and
// `replay` and the fuzz targets run them through operatortest
// (scenarios/catalogue's operatortest.go).
//
// # Known gaps
//
// Entries are registered here by hand; a scenario package that is not listed in
// All is not in the catalogue. The kernel's worlds remain (each package's
// World(Options) cluster.Options in world.go): its ginkgo suites, its
// determinism checks, the helm crash-point table (clusterextension's
// entries_test.go, pinned by the kernel's client call numbers) and
// internal/promobench run plans on them through sim/cluster. Until those
// are written against the ports (operatortest.Replay), scenarios/ still runs
// plans in its tests (issue 30).
package scenarios

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ctrlsim/ctrlsim/scenarios/bundledeployment"
	"github.com/ctrlsim/ctrlsim/scenarios/canary"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/scenarios/clusterextension"
	"github.com/ctrlsim/ctrlsim/scenarios/kopf"
	"github.com/ctrlsim/ctrlsim/scenarios/pipeline"
	"github.com/ctrlsim/ctrlsim/scenarios/reposync"
)

// All returns the catalogue entries in catalogue order, each an operatortest
// test of its reference controller's variants (catalogue.Entry.Test).
func All() []*catalogue.Entry {
	all := []*catalogue.Entry{canary.OnOperatortest()}
	all = append(all, bundledeployment.OnOperatortest()...)
	all = append(all, clusterextension.OnOperatortest()...)
	all = append(all, kopf.OnOperatortest()...)
	all = append(all, reposync.OnOperatortest()...)
	all = append(all, pipeline.OnOperatortest()...)
	return all
}

// Lookup returns the entry with this ID.
func Lookup(id string) (*catalogue.Entry, error) {
	var ids []string
	for _, e := range All() {
		if e.ID == id {
			return e, nil
		}
		ids = append(ids, e.ID)
	}
	return nil, fmt.Errorf("unknown entry %q (known: %s)", id, strings.Join(ids, ", "))
}

// Match returns the entries whose ID matches the glob: '*' matches any run of
// characters (slashes included), '?' any one character.
func Match(glob string) ([]*catalogue.Entry, error) {
	var re strings.Builder
	re.WriteString("^")
	for _, r := range glob {
		switch r {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	pattern := regexp.MustCompile(re.String())
	var out []*catalogue.Entry
	var ids []string
	for _, e := range All() {
		ids = append(ids, e.ID)
		if pattern.MatchString(e.ID) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--entry %q matches no entry (known: %s)", glob, strings.Join(ids, ", "))
	}
	return out, nil
}
