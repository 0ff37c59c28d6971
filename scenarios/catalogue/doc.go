// Package catalogue defines catalogue entries (a scenario under one fault profile,
// its properties, and the expected outcome per variant of its reference
// controller), runs one plan of an entry, explores an (entry, variant) with
// the explorer, writes reports/ (WriteReports: an index and one folder per
// entry), and holds the one test of the catalogue's expectations (TestEntries,
// at the catalogue's budget: Checks plans from explorer seed Seed).
//
// # Known gaps
//
//   - An exploration's wall time is measured by the caller's clock; the harness
//     itself never reads the wall clock inside a run.
//   - Report pages link into docs/ on the assumption that the catalogue
//     directory is a child of the repository root (reports/); written
//     elsewhere (--dir), those links point nowhere.
package catalogue
