// Package outside runs a Go test function in a program that is not a test
// binary (ctrlsim run, catalogue, bench), so that it can call
// operatortest's Explore and Replay, which run every plan in a
// testing/synctest bubble and need a *testing.T. It drives testing's own
// M.Run (testing.MainStart) with one test, and hides the calling test
// binary's selection and files from that nested run.
//
// # Known gaps
//
//   - Runs are sequential (one at a time, as explorations are:
//     sim/explore's Known gaps), and an exploration in the test runs in this
//     process alone: worker processes re-run a test binary's test by name,
//     and a program that is not one cannot be re-run so (operatortest
//     refuses an explicit Options.Workers above 1 while Running)
//     (TestRunningIsSetWhileRunRunsItsTest,
//     operatortest.TestOutsideRefusesExplicitWorkers).
//   - Called within a test binary, the nested run keeps none of the
//     binary's selection (-test.run, -skip, -count, -cpu, -list, -shuffle,
//     -bench, -fuzz) or files: it runs its one test once
//     (TestRunRunsItsTestOnceWhateverSelectedTheOuterTests,
//     TestRunLeavesTheTestBinarysFilesToIt). testing rebuilds its -test.cpu
//     list in every run, so after Run that binary's benchmarks run at the
//     GOMAXPROCS of the moment, not its list
//     (TestANestedRunKeepsNoCPUListAndRunsAtTheGOMAXPROCSOfTheMoment).
package outside
