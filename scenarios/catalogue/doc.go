// Package catalogue defines catalogue entries (a seed's bug under one
// workload and fault profile, and the expected outcome per variant of its
// reference controller), each an operatortest test of the variant
// (Entry.Test, set by Ported), explores an (entry, variant) and replays a
// plan of it through operatortest (operatortest.go: Explore is
// operatortest.Explore and Replay operatortest.Replay, run as a test of the
// program by internal/outside.Run), writes reports/ (WriteReports: an index
// and one folder per entry), and holds the one rule of the catalogue's
// expectations (Result.Problems: the expected outcome, a minimal plan of at
// most MaxMinimalPlan lines that reproduces), which TestEntries applies at
// the catalogue's budget (Checks plans from explorer seed Seed) and
// `ctrlsim catalogue --check` applies to the results it writes (make test
// runs the latter and skips the former: one exploration of each pair), and
// each port's test (TestPorts). It runs no plan itself.
//
// # Known gaps
//
//   - An exploration's wall time is measured by the caller's clock; the harness
//     itself never reads the wall clock inside a run
//     (TestAnExplorationsWallTimeIsTheCallersClock).
//   - Report pages link into docs/ on the assumption that the catalogue
//     directory is a child of the repository root (reports/); written
//     elsewhere (--dir), those links point nowhere
//     (TestReportLinksAssumeTheCatalogueIsAChildOfTheRoot).
//   - A Result has no API-op, reconcile or virtual-time figures
//     (operatortest.Result counts none; `ctrlsim run --json` no longer
//     gives api_ops, reconciles or virtual_seconds, which the kernel's
//     explorer counted) (TestAResultCountsNoAPIOpsReconcilesOrVirtualTime).
package catalogue
