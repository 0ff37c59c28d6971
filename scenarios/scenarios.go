// Package scenarios is the catalogue: every entry of every scenario package, in
// catalogue order. Each scenario package (one per seed, plus the canary) binds a
// reference controller and the models it needs into a world, and defines its
// entries: fault profile, properties and expected outcome per variant.
//
// Every scenario package has the same shape:
//
//   - operatortest.go: the world written with the public operatortest API:
//     one func(variant.Variant) operatortest.Options per entry, the entry
//     as a test of the reference controller's variant; Test, the world
//     with every step declared, on which the package's specs replay their
//     plans (operatortest.Replay); and OnOperatortest, the entries with
//     their tests set (catalogue.Ported).
//   - entries.go: Entries(), the catalogue entries' text (ID, summary,
//     why, expectations).
//   - model.go: Options (Variant and the world's knobs), Scheme() and the
//     shared scheme, and the world's data and helpers (bundles, records,
//     objects).
//   - properties.go: the properties, each a check.Property over the run
//     (operatortest/world.FromCheck adapts them).
//   - entries_test.go: TestEntries, which only calls catalogue.TestEntries,
//     the one test of the catalogue's expectations; and the package's specs
//     (ginkgo), each a plan replayed on Test and what its trace and final
//     state must show.
//
// (The canary keeps all of it in canary.go.)
//
// Every entry runs on the one engine, operatortest: `ctrlsim run`,
// `catalogue` and `replay`, the fuzz targets and the specs run them through
// operatortest (scenarios/catalogue's operatortest.go); no scenario package
// builds a kernel world of its own (sim/cluster).
//
// # Known gaps
//
// Entries are registered here by hand; a scenario package that is not listed in
// All is not in the catalogue.
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
