package bundledeployment

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
		"bd/terminating-cleanup/buggy":         "root-cause-visible",
		"bd/slow-cleanup/buggy":                "root-cause-visible",
		"bd/slow-cleanup/fixed":                "root-cause-visible",
		"bd/rollback-leaves-terminating/buggy": "root-cause-visible",
		"bd/rollback-leaves-terminating/fixed": "root-cause-visible",
		"bd/blocked-workers/fixed":             "bounded-queue-wait",
	}
	for _, e := range OnOperatortest() {
		for _, v := range variant.All {
			ex, ok := e.Expect[v]
			if !ok {
				continue
			}
			name := e.ID + "/" + string(v)
			t.Run(strings.TrimPrefix(name, "bd/"), func(t *testing.T) {
				o := e.Test(v)
				o.Seed = 1
				if ex == catalogue.Caught {
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
