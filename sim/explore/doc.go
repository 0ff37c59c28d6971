// Package explore searches plans for a property violation with rapid and shrinks
// what it finds, without failing the calling test: for a buggy controller a caught
// violation is the expected result. Run reports whether the property was caught,
// after how many plans, and the minimal failing plan. RunPlaces explores some
// places of the sequence only (Places.Skip): rapid seeds each check from the
// seed and its index, so a place's plan does not depend on the places
// skipped before it (a parallel exploration's workers; see Places.Invalid for
// the exception).
//
// # Known gaps
//
//   - Rapid's configuration is global (flags), so Run sets and restores rapid's
//     flags (and -test.short, which rapid reads) and explorations cannot run in
//     parallel in one process (TestRunSetsRapidsFlagsForItsDurationAndRestoresThem,
//     TestAnExplorationInsideAnotherOverwritesItsFlags).
//   - Rapid's engine reads testing.Short(), so a binary that is not a test must
//     call testing.Init() before Run
//     (TestABinaryThatIsNoTestMustCallTestingInitBeforeRun).
//   - Shrinking has no time limit (rapid's -rapid.shrinktime is set to an hour,
//     so that a minimal plan never depends on the machine's load); a plan space
//     whose shrinking takes long makes its exploration long
//     (TestRunSetsRapidsFlagsForItsDurationAndRestoresThem).
package explore
