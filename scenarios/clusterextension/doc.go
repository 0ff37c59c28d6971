// Package clusterextension is the simulator world of seed 2 (operator-controller
// #1776/#1987, interrupted helm releases) and its specs.
//
// The world (Test, operatortest.go, written with the public operatortest
// API): a process "operator-controller" running the reference
// ClusterExtension controller (controllers/clusterextension) as the
// ServiceAccount olmv1-system/operator-controller, bound to a ClusterRole that
// grants its own kinds (clusterextensions, their status, clustercatalogs), Secrets
// (release records), and the bundles' kinds (ConfigMaps, ServiceAccounts,
// Deployments); the install namespace op-system; the ClusterCatalog operatorhubio;
// the ClusterExtension op, asking for package op at version 1.0.0; and a catalog
// (models/catalog) holding 1.0.0 and 2.0.0 (Bundle describes their content).
//
// Steps:
//
//	at 30s request-version version=>=1.0.0   set spec.source.catalog.version
//	at 35s publish version=3.0.0             publish a bundle and bump the ClusterCatalog
//
// Observe reads, from a run's log of committed changes, the bundle version of
// every revision that becomes deployed and every successive status.install,
// for the specs; the properties read the same history from the log.
//
// Options.Installed starts the world with a version already installed, as an
// earlier incarnation of the operator left it (record v1 deployed, its objects,
// the finalizer and status.install), so that a run's first helm operation is an
// upgrade.
//
// The specs (clusterextension_test.go) replay hand-written plans on Test
// (operatortest.Replay) that crash the operator at the client call of each
// crash point of SEEDS.md seed 2 and check each variant's documented outcome
// in the records, the objects and the trace. The call numbers are those of
// this world (listed in the specs); each spec first checks that its crash
// lands right after the intended call.
//
// # Catalogue entries
//
// Entries (entries.go) are helm/interrupted-install (fresh world),
// helm/interrupted-upgrade and helm/interrupted-upgrade-new-version (1.0.0
// preinstalled). Their fault profile is crashes of the operator at client calls
// (the call ranges that leave a record pending are listed in entries.go) and at
// times; their workload asks for 2.0.0, or for the newest version with 3.0.0
// published shortly after. Their properties (properties.go), judged on the watch
// log and the final Secrets:
//
//   - release-settles: at the end of the heal budget no record is pending and the
//     newest is deployed at the desired version (the highest published version
//     the final spec admits);
//   - no-version-skip: once a revision went pending towards bundle B, the next
//     revision to become deployed is at B, unless the version range then in force
//     no longer admits B.
//
// OnOperatortest gives the three entries their tests (operatortest.go),
// which the catalogue runs: the catalog
// is an operatortest.System (publish bumps the ClusterCatalog), request-version
// and publish are domain steps in every plan (DomainStep.Min), the RBAC, the
// ClusterCatalog and the ClusterExtension are seed objects with their status,
// and with 1.0.0 preinstalled so are the release record and the bundle's
// objects (models/helm's Install on a recording client). Helm's release records
// are declared History: release-settles and no-version-skip judge them, the
// generic oracles judge the rest. Crashes are drawn as operatortest draws them
// (at the fault-free run's calls and writes, and at times), not bounded by
// the kernel entries' call numbers (entries.go; the kernel's world is
// gone, entries_test.go pins the crash points on the tests).
//
// # Known gaps
//
//   - In the entries' tests, request-version is drawn in [0, 20 s] and publish in
//     [0, 40 s] independently (the kernel's entry publishes 1-20 s after the
//     request): a plan may publish 3.0.0 before asking for the newest
//     (TestRequestAndPublishAreDrawnIndependently).
//   - One operator replica, no leader election, no human helm CLI: weakness 4 of
//     the fix (a live writer's pending record deleted) and CP-R (a pending
//     rollback) have no spec yet (TestOneOperatorReplicaAndNoOtherHelmWriter).
//   - The catalog is in memory; publishing also bumps the ClusterCatalog so the
//     controller is told, as catalogd's unpack would
//     (TestPublishingBumpsTheClusterCatalogAndKeepsTheBundleInMemory).
//   - no-version-skip takes any pending revision as the start of an operation;
//     with one writer a pending revision that is not followed by its own deploy
//     was interrupted, with several writers (not modelled) it could be live
//     (TestNoVersionSkipTakesAnyPendingRevisionForAnOperationsStart).
//   - release-settles computes the desired version as the highest admitted one,
//     which is what resolution gives in this world because every bundle upgrades
//     from every older one; a catalog with gaps in its upgrade graph would need
//     the resolver's own answer
//     (TestReleaseSettlesDesiresTheHighestAdmittedVersionNotTheResolversAnswer).
package clusterextension
