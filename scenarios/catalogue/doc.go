// Package catalogue defines catalogue entries (a scenario under one fault profile,
// its properties, and the expected outcome per variant of its reference
// controller), runs one plan of an entry, explores an (entry, variant) with
// the explorer, writes reports/ (WriteReports: an index and one folder per
// entry), and holds the one test of the catalogue's expectations (TestEntries,
// at the catalogue's budget: Checks plans from explorer seed Seed). An entry
// with Test set runs on operatortest (operatortest.go): Explore is
// operatortest.Explore and Replay operatortest.Replay, run as a test of the
// program by operatortest.Outside; the others run on the kernel (RunPlan,
// sim/explore).
//
// # Known gaps
//
//   - An exploration's wall time is measured by the caller's clock; the harness
//     itself never reads the wall clock inside a run.
//   - Report pages link into docs/ on the assumption that the catalogue
//     directory is a child of the repository root (reports/); written
//     elsewhere (--dir), those links point nowhere.
//   - Two engines until every entry is ported: an entry on operatortest
//     has no API-op, reconcile or virtual-time figures in its Result
//     (operatortest.Result counts none; `ctrlsim run --json` gives 0), and
//     no fuzz target (fuzz/).
package catalogue
