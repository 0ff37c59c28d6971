// Package clusterextension is the simulator world of seed 2 (operator-controller
// #1776/#1987, interrupted helm releases) and its specs.
//
// The world: a process "operator-controller" running the reference
// ClusterExtension controller (controllers/clusterextension) as the
// ServiceAccount olmv1-system/operator-controller, bound to a ClusterRole that
// grants its own kinds (clusterextensions, their status, clustercatalogs), Secrets
// (release records), and the bundles' kinds (ConfigMaps, ServiceAccounts,
// Deployments); the install namespace op-system; the ClusterCatalog operatorhubio;
// the ClusterExtension op, asking for package op at version 1.0.0; and a catalog
// (models/catalog) holding 1.0.0 and 2.0.0 (Bundle describes their content).
//
// Actions:
//
//	at 30s request-version version=>=1.0.0   set spec.source.catalog.version
//	at 35s publish version=3.0.0             publish a bundle and bump the ClusterCatalog
//
// Observer records, from the API server's watch log, the bundle version of every
// revision that becomes deployed and every successive status.install, which is
// what the release-settles and no-version-skip properties (DESIGN.md) will read.
//
// The specs (clusterextension_test.go) run hand-written plans that crash the
// operator at the client call of each crash point of SEEDS.md seed 2 and check
// each variant's documented outcome in the records, the objects and the trace.
// The call numbers are those of this world (listed in the specs); each spec
// first checks that its crash lands right after the intended call.
//
// # Known gaps
//
//   - One operator replica, no leader election, no human helm CLI: weakness 4 of
//     the fix (a live writer's pending record deleted) and CP-R (a pending
//     rollback) have no spec yet.
//   - The catalog is in memory; publishing also bumps the ClusterCatalog so the
//     controller is told, as catalogd's unpack would.
//   - No catalogue entries (plan spaces, properties, expectations) yet.
package clusterextension
