// Package explore searches plans for a property violation with rapid and shrinks
// what it finds, without failing the calling test: for a buggy controller a caught
// violation is the expected result. Run reports whether the property was caught,
// after how many plans, and the minimal failing plan.
//
// # Known gaps
//
//   - Rapid's configuration is global (flags), so Run sets and restores rapid's
//     flags and explorations cannot run in parallel in one process.
//   - Rapid's engine reads testing.Short(), so a binary that is not a test must
//     call testing.Init() before Run.
//   - Shrinking has no time limit of its own (Run sets -rapid.shrinktime to an
//     hour, so that a minimal plan does not depend on the machine's speed): a
//     property that is slow to check shrinks slowly.
package explore
