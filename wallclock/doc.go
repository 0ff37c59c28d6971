// Package wallclock runs simulated worlds inside testing/synctest bubbles, so
// that unmodified controller code that reads the wall clock sees virtual time:
// time.Now, time.Since, metav1.Now, meta.SetStatusCondition's
// LastTransitionTime, and the deadlines of contexts made with
// context.WithTimeout. A world built with the Wall that Run hands out starts at
// the bubble's start (midnight UTC, 1 January 2000) and the bubble's clock
// moves exactly as the virtual clock does, so a run that stores wall-clock
// readings is still a pure function of its plan: two runs give the same trace
// hash (CheckDeterminism).
//
// How: the virtual clock calls time.Sleep(d) in the bubble for every step d it
// takes (clock.SetFollower). The kernel is then the only goroutine not durably
// blocked (every task is parked on a channel the scheduler owns), so the
// bubble's clock advances by exactly d and whatever timers fall due in it
// (context deadlines) fire before the kernel goes on.
//
// SeedRandom (random.go) makes what code in the process draws at random
// follow a seed in the bubble: crypto/rand (testing/cryptotest), google/uuid,
// math/rand's global functions (re-seeded with GODEBUG randseednop=0 for the
// call) and k8s.io/apimachinery/pkg/util/rand. CheckDeterminism seeds each of
// its two runs with the plan's seed. It also sets the draw a create that
// the apiserver model remembers makes in place of its field manager
// (apiserver.SetCreateDraw), so that what code under test draws from
// math/rand does not depend on the runs the process made before.
//
// Run also points ctrl.GetConfig (KUBECONFIG, and http.DefaultTransport for
// the plain-HTTP server it names) at the world for the bubble's duration
// (kubeconfig.go): a process that builds its clients from
// ctrl.GetConfigOrDie() rather than from its manager makes its own calls to
// the simulated cluster (TestCtrlGetConfigInAProcessReachesTheSimulatedClusterDeterminism).
// A test run with controller-runtime's -kubeconfig flag is refused, as that
// flag comes first.
//
// A client-go workqueue the code under test builds itself
// (workqueue.NewTypedRateLimitingQueue, in a constructor or a Setup) runs
// in the bubble as any of client-go's goroutines do: its waiting loop's
// timers (AddAfter, AddRateLimited), its rate limiter's clock and its
// metrics' ticker are the bubble's, which follows virtual time, and a
// worker blocked in its Get waits outside the scheduler until an Add wakes
// it, rejoining at its next request
// (TestAnOperatorsOwnClientGoWorkqueueDeterminism). With several workers,
// which one an Add wakes takes which item is Go's scheduler's choice (under
// -race, at random); the workers that take items at one instant are put in
// the order of what each then asks (sim/scheduler's JoinAsking), so two runs
// agree under -race too (TestSeveralWorkersOfAnOperatorsOwnQueueDeterminism).
//
// Run takes a census of the bubble's goroutines (census.go): goroutines still in
// the bubble once the world has closed (a library's janitor that nothing
// stops, a loop waiting on a context nobody cancels) are abandoned with the
// world and named in one line of the test's output, by the frame that
// started each and where it waits, each such site once per test (a later
// world names only the sites no earlier one left): no failure, as the
// world's close has frozen their calls (TestAWorldWithAJanitorTickingForeverClosesNamingIt;
// examples/traps). The close itself is bounded: the kernel waits at most 10
// minutes of the bubble's clock for tasks blocked outside to unwind
// (sim/scheduler's closeForever), so a goroutine ticking through it costs
// a fraction of a second, where before the close slept a hundred years of
// ticks and never returned.
//
// # Known gaps
//
//   - A goroutine abandoned with a world keeps what it references (its
//     closure, a client, a cache) for the rest of the test binary: many
//     plans of an operator whose library goroutines hold its manager keep
//     many worlds' memory. And a call it would make after the run's end (a
//     write a real process would make) is frozen, not judged
//     (TestAnAbandonedGoroutinesCallAfterTheCloseIsNotJudged).
//   - The census names a client-go workqueue left at the close by its
//     goroutine and the client-go function that started it, not by the
//     line of the operator that built it (a stack dump holds only the go
//     statement's place:
//     TestTheCensusNamesAWorkqueueByClientGoNotByTheOperatorsLine).
//     A workqueue with no goroutine of its own (a plain Typed queue with no
//     metrics provider) is not seen: it waits on a sync.Cond
//     (TestTheCensusDoesNotSeeAPlainTypedQueue). An informer factory
//     the operator builds itself (informers.NewSharedInformerFactory) runs
//     the same client-go goroutines as clientgo.Setup's and is not told
//     apart (TestTheCensusDoesNotTellAnOperatorsInformerFactoryApart;
//     sim/process's Known gaps say why one with several informer types is
//     not deterministic).
//   - A goroutine of the bubble that stays blocked on something that is not
//     durable (a mutex, a channel made outside the bubble, I/O) keeps the
//     world from stepping or closing at all: nothing in the bubble can say
//     so. A watchdog outside it can (Stuck names those goroutines;
//     operatortest's plan timeout ends the test binary with it); a world
//     run without one (a test's own wallclock.Run) waits for go test's
//     -timeout (TestStuckNamesATaskBlockedOnAMutexInABubble).
//   - Only with a *testing.T: testing/synctest needs one. A program that is
//     not a test (ctrlsim run) gets one from internal/outside.Run. A
//     kernel world built without a Wall (sim/cluster's and the models' own
//     tests) runs outside a bubble,
//     where the wall clock is the machine's (and a controller that stores
//     it fails the determinism check, as it should:
//     TestWallClockReadsAreVirtualInsideABubble).
//   - In a program that is not a test binary, testing/cryptotest refuses to
//     run: SeedRandom seeds crypto/rand.Reader instead (Read, Text, Int and
//     Prime follow it), and the implicit draws of crypto/... (key
//     generation) are not seeded there. The catalogue's reference
//     controllers draw none; an operator that does gives two trace hashes
//     for one plan under ctrlsim run, and the same under go test
//     (TestAProgramThatIsNoTestSeedsCryptoRandsReaderButNotItsImplicitDraws).
//   - Code that waits on the wall clock (time.Sleep, <-time.After, a
//     time.Timer or Ticker, client-go's retry.RetryOnConflict and
//     wait.PollUntilContextTimeout) inside a reconcile, a Runnable or any task
//     waits in virtual time (sim/scheduler's wait.go): its task blocks outside
//     the scheduler, the run goes on, and when the virtual clock reaches the
//     timer's instant the clock's follower stops there (Wall.Sleep's wake) and
//     the task runs on; a crash during the wait kills it. What still moves the
//     bubble's clock ahead of virtual time is code the kernel runs itself: a
//     process's Setup that sleeps (it runs in the kernel, not as a task), or a
//     killed task's deferred code that sleeps while another task kills it. Run
//     reports that as a test error at the next step of virtual time
//     (TestAWaitOnTheWallClockIsReported).
//   - Goroutines that the operator starts itself wait on the bubble's timers
//     as tasks do: one that calls into the simulator is adopted as a task of
//     its process there (sim/scheduler's adopt.go), so the clock's follower
//     settles the bubble at every step and stops short for it
//     (TestGoroutinesOfAProcessAreItsTasksDeterminism); one that never calls
//     in runs at its timer's instant alongside the sleeping kernel.
//   - math/rand/v2's global functions read the runtime's per-thread
//     generator, which nothing can seed: code that draws from them makes two
//     runs of one plan differ, and CheckDeterminism names the step where
//     they part (TestMathRandV2GlobalsCannotFollowTheSeedAndAreDetected).
//     A parallel test cannot use SeedRandom (it fails the test:
//     TestAParallelTestCannotSeedRandomness).
//   - retry.DefaultRetry, DefaultBackoff and wait.Jitter draw their jitter
//     from the global math/rand, which SeedRandom seeds from the plan in
//     operatortest's runs; a world run without it (the command's catalogue)
//     keeps an unseeded jitter (TestRetryJitterDrawsFromTheGlobalMathRand).
//   - A parallel test cannot set KUBECONFIG (t.Setenv refuses): there
//     ctrl.GetConfig is not served and reads the machine's configuration
//     (TestAParallelTestDoesNotServeKubeconfig).
//   - One world per bubble: a second world built in the same bubble starts where
//     the first left the bubble's clock
//     (TestASecondWorldInABubbleStartsWhereTheFirstLeftTheClock).
//     CheckDeterminism runs each run in a bubble of its own.
package wallclock
