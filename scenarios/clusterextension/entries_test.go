package clusterextension

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// tests are the helm/ entries' tests (operatortest.go), by ID.
var tests = map[string]func(variant.Variant) operatortest.Options{
	"helm/interrupted-install":             InterruptedInstall,
	"helm/interrupted-upgrade":             InterruptedUpgrade,
	"helm/interrupted-upgrade-new-version": InterruptedUpgradeNewVersion,
}

// replayEntry replays p on the test of entry id for v, judged by the
// entry's properties and the kernel's verdicts (the generic oracles left
// out: the cases pin release-settles and no-version-skip).
func replayEntry(t *testing.T, id string, v variant.Variant, p *plan.Plan) *operatortest.Replayed {
	t.Helper()
	test, ok := tests[id]
	if !ok {
		t.Fatalf("no entry %s", id)
	}
	o := test(v)
	o = catalogue.ForSpecs(o)
	r, err := operatortest.Replay(t, o, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runPlan runs a plan text on an entry's world and returns the verdicts by
// property, and the "op object" of the operator's last call before its first
// crash ("" if it never crashed).
func runPlan(t *testing.T, id string, v variant.Variant, text string) (map[string]check.Verdict, string) {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	r := replayEntry(t, id, v, p)
	out := map[string]check.Verdict{}
	for _, x := range r.Verdicts {
		if slices.Contains(world.KernelVerdicts, x.Property) && !x.Holds {
			t.Fatalf("the kernel's verdict: %s", x)
		}
		out[x.Property] = x
	}
	last, prev := "", ""
	for _, s := range r.Steps {
		if s.Process != ProcessName {
			continue
		}
		if s.Op == "crash" {
			last = prev
			break
		}
		if s.Op != "log" {
			prev = s.Op + " " + s.Object
		}
	}
	return out, last
}

// The crash points of SEEDS.md seed 2 at the call numbers entries.go documents,
// and how each variant's run is judged. A violation's detail names what is
// wrong; "" means the property holds.
func TestPropertiesJudgeEachCrashPoint(t *testing.T) {
	const (
		install   = "helm/interrupted-install"
		upgrade   = "helm/interrupted-upgrade"
		drift     = "helm/interrupted-upgrade-new-version"
		requestV2 = "seed 1\nat 1s request-version version=2.0.0\n"
		// 3.0.0 is published 5s after the crash, before the operator is back (10s).
		requestNewest = "seed 1\nat 1s request-version version=>=1.0.0\nat 6s publish version=3.0.0\n"
		recordV1      = "Secret op-system/sh.helm.release.v1.op.v1"
		recordV2      = "Secret op-system/sh.helm.release.v1.op.v2"
	)
	cases := []struct {
		name, entry, plan, lands string
		v                        variant.Variant
		settles, noSkip          string // substrings of the violation detail; "" holds
	}{
		{"CP-I1 buggy: stuck pending-install", install, "seed 1\ncrash process=operator-controller call=15\n", "create " + recordV1,
			variant.Buggy, "pending at rest: v1=pending-install(1.0.0)", ""},
		{"CP-I1 fixed: record deleted, installed again", install, "seed 1\ncrash process=operator-controller call=15\n", "create " + recordV1,
			variant.Fixed, "", ""},
		{"CP-I2 robust: completed from the failed record", install, "seed 1\ncrash process=operator-controller call=17\n", "create ConfigMap op-system/op-config",
			variant.Robust, "", ""},
		{"before the record: nothing pending, every variant installs", install, "seed 1\ncrash process=operator-controller call=14\n", "get Deployment op-system/op-controller",
			variant.Buggy, "", ""},
		{"CP-U1 buggy: stuck pending-upgrade", upgrade, requestV2 + "crash process=operator-controller call=17\n", "create " + recordV2,
			variant.Buggy, "pending at rest: v2=pending-upgrade(2.0.0)", ""},
		{"CP-U2 fixed: upgraded again over the partial objects", upgrade, requestV2 + "crash process=operator-controller call=22\n", "create ConfigMap op-system/op-migration",
			variant.Fixed, "", ""},
		{"CP-U3 buggy: superseded and pending, nothing deployed", upgrade, requestV2 + "crash process=operator-controller call=25\n", "update " + recordV1,
			variant.Buggy, "pending at rest: v2=pending-upgrade(2.0.0) (records v1=superseded(1.0.0) v2=pending-upgrade(2.0.0))", ""},
		{"CP-U3 fixed: resolved as a fresh install, still 2.0.0", upgrade, requestV2 + "crash process=operator-controller call=25\n", "update " + recordV1,
			variant.Fixed, "", ""},
		{"CP-U3 robust", upgrade, requestV2 + "crash process=operator-controller call=25\n", "update " + recordV1,
			variant.Robust, "", ""},
		{"drift, CP-U2 buggy: stuck", drift, requestNewest + "crash process=operator-controller call=22\n", "create ConfigMap op-system/op-migration",
			variant.Buggy, "pending at rest: v2=pending-upgrade(2.0.0)", ""},
		{"drift, CP-U2 fixed: 1.0.0 -> partial 2.0.0 -> 3.0.0", drift, requestNewest + "crash process=operator-controller call=22\n", "create ConfigMap op-system/op-migration",
			variant.Fixed, "", "revision 2 went pending towards 2.0.0 at 1s; the next deployed revision, 2 at 11s, is 3.0.0"},
		{"drift, CP-U2 robust: 2.0.0 completed, then 3.0.0", drift, requestNewest + "crash process=operator-controller call=22\n", "create ConfigMap op-system/op-migration",
			variant.Robust, "", ""},
		{"drift, CP-U3 fixed: no deployed record, resolved from scratch to 3.0.0", drift, requestNewest + "crash process=operator-controller call=25\n", "update " + recordV1,
			variant.Fixed, "", "the next deployed revision, 2 at 11s, is 3.0.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			verdicts, lands := runPlan(t, tc.entry, tc.v, tc.plan)
			if lands != tc.lands {
				t.Errorf("the crash landed after %q, want after %q", lands, tc.lands)
			}
			for prop, want := range map[string]string{PropReleaseSettles: tc.settles, PropNoVersionSkip: tc.noSkip} {
				got, ok := verdicts[prop]
				if !ok {
					if want != "" {
						t.Errorf("%s is not a property of %s", prop, tc.entry)
					}
					continue
				}
				switch {
				case want == "" && !got.Holds:
					t.Errorf("%s violated, want it to hold: %s", prop, got.Detail)
				case want != "" && got.Holds:
					t.Errorf("%s holds, want violated with %q", prop, want)
				case want != "" && !strings.Contains(toSeconds(got.Detail), want):
					t.Errorf("%s detail %q, want it to contain %q (times to the second)", prop, got.Detail, want)
				}
			}
		})
	}
}

// toSeconds truncates the times in a verdict's detail to whole seconds
// (11.0452s -> 11s): the milliseconds are API latency, not what a case pins.
func toSeconds(detail string) string {
	return regexp.MustCompile(`(\d)\.\d+s\b`).ReplaceAllString(detail, "${1}s")
}

// Without faults the properties hold for every variant, and the preinstalled
// world is what the controller itself would have left: its first reconcile
// writes nothing.
func TestEntriesHoldWithoutFaults(t *testing.T) {
	plans := map[string]string{
		"helm/interrupted-install":             "seed 1\n",
		"helm/interrupted-upgrade":             "seed 1\nat 1s request-version version=2.0.0\n",
		"helm/interrupted-upgrade-new-version": "seed 1\nat 1s request-version version=>=1.0.0\nat 6s publish version=3.0.0\n",
	}
	for _, e := range Entries() {
		for _, v := range e.Variants() {
			verdicts, _ := runPlan(t, e.ID, v, plans[e.ID])
			for _, x := range verdicts {
				if !x.Holds {
					t.Errorf("%s %s: %s", e.ID, v, x)
				}
			}
		}
	}
	p, _ := plan.Parse("seed 1\n")
	r := replayEntry(t, "helm/interrupted-upgrade", variant.Buggy, p)
	for _, s := range r.Steps {
		if s.Process == ProcessName && (s.Op == "create" || s.Op == "update" || s.Op == "patch" || s.Op == "delete" || s.Op == "update/status") {
			t.Errorf("the operator wrote to a preinstalled world: %s", s)
		}
	}
}

// TestEntries checks the expectations of this package's catalogue entries
// on operatortest (catalogue.TestEntries: the catalogue's budget; skipped
// under -short).
func TestEntries(t *testing.T) { catalogue.TestEntries(t, OnOperatortest()) }
