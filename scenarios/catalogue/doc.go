// Package catalogue defines catalogue entries (a scenario under one fault profile,
// its properties, and the expected outcome per variant of its reference
// controller), runs one plan of an entry, and explores an (entry, variant) with
// the explorer.
//
// # Known gaps
//
//   - An exploration's wall time is measured by the caller's clock; the harness
//     itself never reads the wall clock inside a run.
package catalogue
