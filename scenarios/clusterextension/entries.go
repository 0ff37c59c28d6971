package clusterextension

import (
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

const (
	seedName = "2 (001)"
	seedFile = "001_dcc48e80b4053223.txt"
	upstream = "https://github.com/operator-framework/operator-controller/pull/1776"
)

// The kinds of this world, as plans name them.
const (
	ClusterExtensionKind = "olm.operatorframework.io/v1/ClusterExtension"
	SecretKind           = "/v1/Secret"
)

// Client call ranges of the operator in the entries' worlds (see the timelines
// in entries_test.go). A crash at call n means calls 1..n-1 happened.
//
// Call 1 is the catalog watch's map function listing the ClusterExtensions
// from the cache (SetupWithManager maps ClusterCatalog events through
// mgr.GetClient()) when the ClusterCatalog's initial add arrives.
//
// Fresh world (interrupted-install): the first reconcile adds the finalizer
// (calls 2-3); the second creates record v1 pending-install at call 14, the three
// objects at 15-17 and marks v1 deployed at 18. A crash at 15-18 leaves v1
// pending-install (CP-I1 at 15, CP-I2 at 16-18).
//
// 1.0.0 preinstalled (the upgrade entries): the first reconcile finds the
// release unchanged (calls 2-8, no write); the upgrade asked for later starts at
// call 9, creates record v2 pending-upgrade at 16, applies the objects at 17-23,
// supersedes v1 at 24 and marks v2 deployed at 25. A crash at 17-25 leaves v2
// pending-upgrade (CP-U1 at 17, CP-U2 at 18-24, CP-U3 at 25). (The kernel's
// entries drew crashes at calls up to 21 and 27; entries_test.go pins these
// crash points on the entries' tests, where they land at the same calls.)

func expect(buggy, fixed, robust catalogue.Outcome) map[variant.Variant]catalogue.Outcome {
	return map[variant.Variant]catalogue.Outcome{variant.Buggy: buggy, variant.Fixed: fixed, variant.Robust: robust}
}

// callOneWhy explains why the minimal crash points are one call later than in
// catalogues before the operator ran its own SetupWithManager.
const callOneWhy = "Crash points count the operator's client calls, and call 1 is not a reconcile's: the world runs operator-controller's own " +
	"SetupWithManager, whose ClusterCatalog watch maps each catalog event to the ClusterExtensions it lists through mgr.GetClient(). " +
	"The catalog's initial add makes that list at start-up, a cached read and the operator's call 1 (the timeline's first operator-controller " +
	"line after `start`: `cached-list ClusterExtension`). Catalogues generated before the simulator hosted controller-runtime's own " +
	"controller (when the world re-wired the controller and mapped catalog events through the cache, which is not a client call) had " +
	"every crash point one call earlier: call=15 here is call=14 there, the same write interrupted (`create Secret ...release.v1.op.v1` " +
	"for the install, the pending-upgrade record for the upgrades). Outcomes and checks to find are unchanged."

// entry is a seed 2 entry (its test: operatortest.go).
func entry(id, summary string, ex map[variant.Variant]catalogue.Outcome) *catalogue.Entry {
	return &catalogue.Entry{ID: id, Seed: seedName, SeedFile: seedFile, Upstream: upstream, Summary: summary, Expect: ex, Why: callOneWhy}
}

// Entries are the seed 2 entries of the catalogue.
func Entries() []*catalogue.Entry {
	const c, h = catalogue.Caught, catalogue.Holds
	es := []*catalogue.Entry{
		entry("helm/interrupted-install",
			"operator-controller installs a ClusterExtension's bundle as a Helm release. Helm first records revision 1 as pending-install, "+
				"then creates the objects, then marks the record deployed. When the operator process dies in between (OOM, node loss, lost leader "+
				"election), the record stays pending-install. Before the fix every later reconcile's dry-run upgrade fails with \"another operation "+
				"(install/upgrade/rollback) is in progress\" and the extension is stuck until a human deletes the Secret.\n\n"+
				"The fix (#1776, rebased as #1987) deletes a pending record and lets the next reconcile install again, adopting the objects the "+
				"interrupted attempt created. The robust applier marks the record failed instead (as helm does for an in-process failure) and "+
				"completes the release from that record's own manifest.",
			expect(c, h, h)),
		entry("helm/interrupted-upgrade",
			"1.0.0 is installed and the user asks for 2.0.0. Helm records revision 2 as pending-upgrade, applies the objects one by one, "+
				"supersedes revision 1 and marks revision 2 deployed. An operator crash anywhere in between (before any object changed, mid-update, "+
				"or after revision 1 was already superseded) leaves revision 2 pending-upgrade, and before the fix the extension is stuck there.\n\n"+
				"The fixed applier deletes the pending record and upgrades again, reusing revision 2; after a crash at the very end (CP-U3) no "+
				"record is deployed for a moment, so it resolves as for a fresh install, which still lands on 2.0.0 here. The robust applier keeps "+
				"the interrupted revision as failed and completes 2.0.0 from it.",
			expect(c, h, h)),
		entry("helm/interrupted-upgrade-new-version",
			"The user asks for the newest version (2.0.0 at the time) and the upgrade from 1.0.0 is interrupted part-way; 3.0.0 is published "+
				"before the operator is back. The buggy applier stays stuck on the pending record.\n\n"+
				"The fix deletes the pending record, and the next reconcile resolves again from the newest deployed record, 1.0.0: it finds 3.0.0 "+
				"and upgrades 1.0.0 to 3.0.0 over a cluster half at 2.0.0, so 2.0.0 (its migration) is never completed and its leftover objects "+
				"are orphaned (SEEDS.md weakness 1). The robust applier first completes the in-flight 2.0.0 from its record, then upgrades to 3.0.0.",
			expect(c, c, h)),
	}
	for _, e := range es {
		if w := requiredMoved[e.ID]; w != "" {
			e.Why += "\n\n" + catalogue.RequiredStepsWhy + w
		}
	}
	return es
}

// requiredMoved says, per entry, what moved when plan 0 and the sweep came
// to hold the request (request-version, Min 1) and the publication
// (publish, Min 1) every drawn plan holds.
var requiredMoved = map[string]string{
	"helm/interrupted-upgrade": "The sweep's first targeted plan is now a crash right after the operator's first write of the upgrade " +
		"(`crash process=operator-controller write=1`), the pending-upgrade record of revision 2:\n\n" +
		"    12.720881ms  operator-controller/clusterextension#1 r1 create     Secret op-system/sh.helm.release.v1.op.v2 wrote rv=31 -> ok\n" +
		"    12.720881ms  operator-controller/clusterextension#1 r1 crash       -> crash after write 1 (create)\n\n" +
		"It catches the buggy applier at plan 1 (was plan 9, a random plan's crash at call 10): `release-settles violated at 2m0s: pending at " +
		"rest: v2=pending-upgrade(2.0.0)`.",
	"helm/interrupted-upgrade-new-version": "The buggy applier is caught at plan 1 (was 2) by the same crash right after the first write of the " +
		"upgrade (`10.300945ms ... create Secret op-system/sh.helm.release.v1.op.v2 wrote rv=32 -> ok`, then `crash after write 1 (create)`), its " +
		"plan three lines with the publication of 3.0.0 that every plan holds (`pending at rest: v2=pending-upgrade(3.0.0)`). The fixed " +
		"applier's no-version-skip is found at plan 30 (was 18) with the same minimal plan: the sweep's targets, taken from the fault-free run that " +
		"now holds the request and the publication, fill other places among the random plans.",
}
