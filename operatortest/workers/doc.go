// Package workers is how an exploration of package search is spread over
// processes: worker processes on every core, the shrink jobs of distinct
// violations in processes of their own, and shards across CI jobs merged
// back into the unsharded result (shard.go).
//
// Parallel exploration, on every core. A plan's run seeds process-global
// randomness (wallclock.SeedRandom: crypto/rand, math/rand, util/rand, uuid),
// so two plans cannot run in one process at once. As Go's fuzzing does, the
// test binary re-executes itself: with Options.Workers n, the test's process
// is one worker and n-1 processes are the others, each running the same test
// (-test.run=<its name>) with CTRLSIM_WORKER set, so that the test's first
// exploration in the worker process becomes a worker. The parent hands the
// places of the sequence (those this shard owns) out one at a time, the
// lowest not yet handed out to whichever worker asks (a worker that starts
// late judges fewer; a worker process holds workerWindow places ahead), over
// the worker's stdin; each worker judges its places
// in order and streams each verdict back on a pipe (fd 3). A worker does not
// draw the plans of the places it is not given: rapid seeds each check from
// the explorer's seed and the check's index only (a place whose draw rapid
// rejects renumbers the places after it: then every place is drawn in the
// test's process, with a log line).
//
// The parent collects the verdicts: the first failing plan is the lowest
// place that violates (or that the world cannot run), once every place
// before it has been judged (no place after a known failure is handed out);
// the worker processes are then stopped. It then runs the
// sequential pass itself, recalling the workers' verdicts rather than running
// the plans again (they are functions of their plans): the same place fails
// first, is shrunk by the same runs, and gives the same minimal plan and
// trace hash as a run with one worker. With KeepGoing the workers judge the
// whole budget and every pass recalls their verdicts: a place whose
// signatures are all seen is skipped.
//
// Search gives what the workers judge with (Exploration.Judge, its
// JudgePlace) and what they say (Progress); this package knows the places,
// the processes and their protocol (Run, Serve, Role, RunJob), not how a
// plan is drawn or judged.
//
// # Known gaps
//
//   - A worker process re-runs the test binary on the test by name
//     (-test.run): a test that name cannot select again, or an exploration
//     other than its test's first, is not run by workers (search explores
//     it in the test's process, or fails when workers were asked for:
//     operatortest/search.TestADefaultExplorationWorkersCannotReachRunsInTheTestsProcess,
//     operatortest/search.TestAWorkerThatCannotReachTheExplorationFailsLoudly,
//     operatortest/search.TestWorkersOnASecondExplorationOfATestAreRefused).
//   - Only the flags the parent was given are passed on (Args), and a
//     worker's exploration is told from the parent's by its Hello alone
//     (the test, seed, budget, shard and KeepGoing;
//     TestAWorkersHelloCarriesTheTestSeedBudgetShardAndKeepGoingAlone): a test whose other
//     options depend on what the worker process does not share (an
//     environment variable set in the test, a random value) is not refused
//     at its hello; what its workers saw and the parent does not show is
//     reported as unreproduced (search's Result.Unreproduced;
//     operatortest/search.TestAViolationAWorkerSawAndThisProcessDidNotIsReported).
//   - A worker that dies fails the whole exploration; its places are not
//     handed to another worker
//     (operatortest/search.TestAWorkerThatDiesFailsLoudly).
//   - Shards are merged by their documents alone: Merge checks that they
//     are of one test, seed and budget, not of one version of the operator
//     (TestShardsOfTwoVersionsOfTheOperatorMerge).
package workers
