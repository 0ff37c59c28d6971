package clusterextension

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Each port's expectation, on operatortest: a variant expected caught is
// caught by the property the kernel entry names (within 200 plans, the
// catalogue's budget, seed 1), and one expected to hold holds over 30 plans
// (200 in the catalogue) with the generic oracles beside the entry's own.
func TestThePortsKeepTheirExpectations(t *testing.T) {
	caughtBy := map[string]string{
		"helm/interrupted-install/buggy":             PropReleaseSettles,
		"helm/interrupted-upgrade/buggy":             PropReleaseSettles,
		"helm/interrupted-upgrade-new-version/buggy": PropReleaseSettles,
		"helm/interrupted-upgrade-new-version/fixed": PropNoVersionSkip,
	}
	for _, e := range OnOperatortest() {
		for _, v := range variant.All {
			name := e.ID + "/" + string(v)
			t.Run(strings.TrimPrefix(name, "helm/"), func(t *testing.T) {
				o := e.Test(v)
				o.Seed = 1
				if e.Expect[v] == catalogue.Caught {
					o.Expect, o.Checks, o.ShrinkRuns = caughtBy[name], 200, 30
					if o.Expect == "" {
						t.Fatalf("no property named for %s", name)
					}
				} else {
					if testing.Short() {
						t.Skip("explores 30 plans")
					}
					o.Checks = 30
				}
				operatortest.Run(t, o)
			})
		}
	}
}

// OnOperatortest replaces exactly the three kernel entries, each with its
// kernel entry's expectations and an operatortest Test, and no kernel world
// left to run by mistake.
func TestOnOperatortestReplacesTheThreeKernelEntries(t *testing.T) {
	var ids []string
	for i, e := range OnOperatortest() {
		k := Entries()[i]
		ids = append(ids, e.ID)
		if e.ID != k.ID || e.Test == nil || e.World != nil || e.Properties != nil || len(e.Expect) != 3 || e.Summary != k.Summary {
			t.Errorf("%s: want the kernel entry's ID, Summary and Expect with Test set and no World or Properties", e.ID)
		}
	}
	if got, want := strings.Join(ids, " "), "helm/interrupted-install helm/interrupted-upgrade helm/interrupted-upgrade-new-version"; got != want {
		t.Errorf("OnOperatortest: %s, want %s", got, want)
	}
}
