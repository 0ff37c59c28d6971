// Package search explores an operator's plans for operatortest.Run and
// Explore: the targeted sweep's plans (faults aimed from the reference run's
// own writes, reads and changes) taking turns with random plans, on every core (worker
// processes re-running the test binary on the test), in shards for CI jobs,
// with recall of plans already judged, shrinking of what it finds and the
// report of a failing test (the saved plan and its replay). What a plan is
// judged by is package reference's (against which fault-free runs) and
// package verdict's (the oracles); what a failure tells, package
// failure's. Where a stale restart is aimed: sweep.go's targeted plans and
// sim/plan's Sweep (the reference run's reads and writes, from
// reference.TargetsOf).
//
// # Flags, workers and shards
//
// go test runs it; -ctrlsim.checks=N and -ctrlsim.seed=S change the budget
// and the explorer's seed, -ctrlsim.plan=FILE replays one plan (in Run and
// Explore), and -ctrlsim.keepgoing explores past violations (KeepGoing).
// -ctrlsim.shard=i/n explores one shard of the plans (n CI jobs, or an
// Indexed Job's pods) and -ctrlsim.json=FILE writes what it found; `ctrlsim
// merge` of the n files prints the unsharded exploration's result (package
// workers's shard.go). Plans are explored on every core: Options.Workers (or
// -ctrlsim.workers; default GOMAXPROCS, 1 for the test's own process) workers
// judge the places of the plan sequence, handed out lowest first: the test's
// process and worker processes re-running the test binary on the test
// (-test.run=<its name>, CTRLSIM_WORKER set); the parent takes the lowest
// failing place once every place before it is judged, and shrinks it itself,
// recalling the workers' verdicts: the first failing plan, the minimal plan
// and the trace hashes are those of a run with one worker (package workers;
// every worker draws from the pass's generator, the reference run's targets
// and writes included, so a place's plan is the same in any process). A
// worker that dies fails the exploration with one line; so does one that
// cannot reach it (a test -test.run cannot select again) when Workers or
// -ctrlsim.workers asked for workers, while by default such a test is
// explored in its own process alone (a log line says why), as is every
// exploration run by internal/outside (no test binary to re-run). While it
// simulates (Run, Explore, Replay, a fuzz input) the process runs on one P
// and at GOGC=400, put back after, unless the environment sets them
// (world/cores.go). A saved plan is replayed first on every later run until
// it holds; it names its seed objects by kind and name (failure.PlanText),
// which readPlanFile resolves.
//
// A long exploration says how far it has got every ProgressEvery (5 s;
// LogProgress is the line's hook), and while one plan or shrink candidate
// runs, a watcher (longrun.go) names it once it has run longer than two
// periods: "plan 17 has run for 12s, judging it against its fault-free runs:
// <the plan in one line>" (with worker processes, the parent's progress line
// names the worker and the place). One that runs past Options.PlanTimeout
// (wall time, default 2m) is cut at its runs' next step (wallclock.CutRuns):
// named with its plan, not judged, counted among the cut plans (Result.Cut),
// and the exploration goes on; a reference run cut so is kept as cut, as one
// cut at the work bound is, so the count of cut plans (never a verdict)
// depends on the machine's speed. A run that still has not ended a bound
// after its cut cannot step or close (its kernel waits for goroutines blocked
// on something outside the world: a mutex, a channel made outside the run):
// the test binary ends with one line naming them (wallclock.Stuck) and the
// plan, never at go test's -timeout. The preflight run is bounded the same
// way. With KeepGoing each distinct violation is printed when first judged
// ("found <signature> at plan <n>: <verdict>") and Run saves its minimal plan
// and writes its report as soon as it is shrunk, not at the end of the
// exploration. examples/twowrites is a working example (a crash between two
// dependent writes, caught by the converges oracle).
//
// # No silent pass
//
// Options are validated before anything runs, every bad field named at
// once on one line (Explore returns it as an error): what the world can tell
// from itself by world.Build, the one place a world is made and checked;
// what needs a run or a file (a scripted patch or delete of an object that
// never exists, a plan file naming a seed object the test lacks or another
// test) by validate.go. A manager's Setup that does not return within a
// minute of the bubble's (virtual) time fails the test naming the manager
// (world/validate_setup.go). A manager whose Setup returns an error or panics
// in a run with no fault (a reference run, or the preflight run each
// exploration starts with, whatever the oracles) fails the test with the
// manager's name and the error, or the panic and its stack; the panic is
// recovered, the test binary survives. Under faults the same failure is what
// a pod does (its main exits, it restarts after its back-off), and the run
// goes on.
//
// A run is a function of its plan, up to what the oracles' equivalence
// ignores: the operator's own nondeterminism (a list rendered by ranging
// over a Go map) is found from the preflight plan's runs and said once
// (determinism.go, Result.Nondeterminism; Run fails with that one line); the
// verdicts judge its fields until they are
// declared. A difference is laid where it starts: what the cluster's
// controllers carry on from the operator's own writes (an EndpointSlice's
// ports in the order the operator wrote the Service's) is the operator's,
// logged once (Result.Carried), never ctrlsim's, and so is what the
// operator's own later reconciles carry on (a race that an extra write of
// its map-ordered list moved in time: a write of the operator's differs as
// its own only in the reconcile where the runs first differ); only a
// difference no write of the operator's precedes is a determinism bug of
// ctrlsim. Every violation found while exploring is replayed from its
// minimal plan before it is reported: a replay that gives another trace hash
// but agrees with the exploring run modulo the equivalence and shows the
// violation again replays (a line says the hashes differ and in what); one
// that holds, or differs beyond that, fails the test with both hashes and the
// first step where the two runs differ, saying whose step it is: a write of
// the operator's whose content differs (the operator itself is
// nondeterministic: a list built by ranging over a Go map, an unseeded random
// value), with the fields and their declaration, a log line, or a step of the
// world's own (a determinism bug of ctrlsim). A finding that does not replay
// is replayed three times more and reported with the hashes seen and how
// many of those replays violate (the first violating one's report), or,
// if none does, with what exploring it violated; never dropped: so is one whose
// minimal plan violates nothing when judged to the end, and a violation a
// worker process saw that this process, judging its place again, does not
// show (Result.Unreproduced); one a worker saw past the plan whose finding
// ended the search, where this process judged nothing, is logged as seen
// there with its plan as drawn (Result.Unjudged; Result.Drawn has the plans
// of both). Run and Explore log the plans run, the
// effective seed (0 is 1), the wall time to the first violation and the time
// shrinking took, with the candidates the shrinker tried and the runs they
// cost (Result has them too); meanwhile, every 5 s of wall clock, how far the
// search or the shrink has got (plans judged; candidates tried, their runs
// and the smallest failing plan so far), so that a long exploration is never
// silent under go test -v. A plan judged again in one exploration (rapid's
// shrinker draws one plan from many byte strings) is recalled, not run again:
// a run is a function of its plan; the replays above always run. Shrinking
// keeps the last 256 reference runs (by seed and workload, the oldest
// forgotten first), and stops judging a candidate once a violation that no
// later judging revises (a property of the test's, a kernel verdict,
// terminates, no-orphans) decides it: the runs that would revise converges,
// update-summaries, no-error-at-rest and interleavings-agree (the late
// operator, other random draws, the same downtime) are not made for it. The
// minimal plan is then judged to the end once, so its report names every
// violation, with the same trace hash (reference/shrink.go). Rapid's shrinker
// tries candidates one at a time, in this process: worker processes judge the
// places of the exploration, not the candidates of a shrink. Within its bound
// (shrinkBound, or Options.ShrinkRuns) rapid may stop with a line that is not
// part of the cause; the shrink ends with a pass over the plan's lines
// (reference.DropLines): each fault, then each drawn step, left out while the
// signature still shows.
//
// # A known bug, and keeping going
//
// Options.Expect names a property the test expects to be violated
// (AnyProperty: any), or several separated by commas (an operator's known
// bugs): the regression test of a known bug. Run passes when a
// plan violates it, logging the same report, saved plan and replay line;
// it fails when the budget holds (the bug is no longer caught) and when a
// violation of another property is found. A plan is judged as a whole:
// its run's violations, and where its interleavings-agree violation blames
// the other schedule's fault-free run (the suspect), that run's own
// (failure.Suspect.Violated: a deletion that never completes there is the
// bug the disagreement points at, printed with the failure and replayed by
// the suspect's plan).
//
// # Findings with no fault at all
//
// Before the sweep, each of its workloads runs with no fault (plan 0,
// nofault.go, where the rule is): what one shows is a finding "with no
// fault at all", reported and saved first
// (testdata/ctrlsim/<test>.<property-kinds>.<hash>.no-fault.plan), and the
// exploration goes on for a finding that needs a fault, unless the finding
// is the bug Options.Expect pins: then the run ends there, the workloads
// after it not judged (without KeepGoing). A saved plan with no
// fault that still violates does not end the next run either
// (examples/noopstatus), unless it shows the bug Options.Expect pins: then
// it ends the run as plan 0 did, so a test run again in the same checkout
// finds what it found the first time.
//
// Options.KeepGoing (-ctrlsim.keepgoing) keeps exploring past violations, as
// a fuzzer keeps going past a crash: violations are told apart by their
// signature (the property, the kinds its report names and, for a panic, the
// function and file:line that panicked, never its goroutine or the object
// it reconciled), and each distinct one is shrunk to its own minimal plan,
// saved as testdata/ctrlsim/<test>.<property-kinds>.<hash>.plan, replayed and
// reported. One bug often shows several signatures (converges of a child
// and the author's property that watches it, a ConfigMap's converges under
// one crash and a Service's under another), and a finding is one root
// cause: the other new signatures its plan shows (a targeted plan is one
// fault; a minimal plan the smallest that shows its signature), those its
// fault-free run does not show, and the signatures of a later plan shown
// to be the same bug (package rootcause's rule: the same wrong write, not
// the same reconcile) are listed under it (Finding.Also), with a line for
// each later plan naming its saved plan and replay command
// (Result.Listed), and not looked for again; the test's own property
// heads the finding, then a panic's. Where
// a run first goes wrong, and which findings are one root cause, is
// package rootcause's rule (examples/noopstatus: a no-op status write at
// rest and a crash between writes, two findings). A plan is numbered alike
// wherever it is printed (the found line, the line that lists it under a finding, the
// report: the sweep's plans and the random ones taking turns), and the closing line counts findings
// and saved plans that still violate, not signatures. A pass over the budget looks for one new signature (plans
// already judged are recalled, not run again); the search ends when a pass
// finds none, or at 16 distinct violations. With worker processes, the
// workers judge every place first, and the distinct violations they saw are
// shrunk in parallel, each in a process of its own, to the minimal plans the
// passes would give (shrinkjobs.go); a run's work is bounded (reference/cut.go), so no
// candidate takes minutes. Saved plans of every signature
// are replayed first and their signatures count as known, and so do their
// root causes (a signature found again under one is listed under it).
//
// # Sieve's three patterns, aimed
//
// Systematic beside random (sweep.go): an exploration runs the
// targeted plans of a few workloads on the schedule of the explorer's seed:
// the test's script alone (with the domain steps every plan draws, Min 1 or
// more, at their earliest time and first values: workload.Required), then the script and a user's steps on one seed
// object from a third of the way into the fault phase (workload.Lifecycle:
// each seed object's deletion, then a valid change of its first place that
// can take one), taken from the workloads in turn; then, once those are
// all taken, the re-creations' (workload.Recreations: each seed object
// deleted and created again under its name 1 ms later and once the
// deletion has completed, a numeric place changed and changed back: a
// scale down and up) and the script alone on a second schedule (the one
// interleavings-agree runs, reference.OtherSeed: the targets of two
// schedules' fault-free runs, so that a state the explorer seed's schedule
// never reaches, a second member made before a scale-down, is still aimed
// at), in turn, so that the first workloads' plans keep their numbers. Plan 0 judges every one of these workloads with no fault. Each workload's plans are
// enumerated from its own fault-free run (plan.Sweep), one fault each, and
// the plans that run ranks first
// (plan.Sweep's rule, Sieve's pruning by causality: a crash that leaves an
// intermediate state; a hold or an unobserved window that keeps from the
// process a change it read and acted on; a stale view frozen at such a
// change, restarted after a change that conflicts with that action),
// first in their class: a crash right after each write of
// each operator process (the reference run's intermediate states first);
// first among the stale restarts, a restart right after each object's last
// change onto each earlier version of it, the latest, then the earliest,
// then the rest, its view catching up 1 ms later (the process acts on the
// past of an object it already answered: a Bucket deleted since, a Gateway
// whose host changed); then a stale restart for each pair of
// changes A then B of kinds the process caches (its watch cache of A's kind
// frozen just after A, then just before it, then every kind's; the crash
// 1 ms after B, so that the new incarnation, up the CrashLoopBackOff later
// and before the heal, lists A's past while B is done; A a deletion
// starting, a deletion, a status write, a spec change, a creation, in that
// order; B a creation or deletion, a creation first: the object re-created,
// the member scaled back up); a hold of a kind from just before each of its
// changes until the heal; and every unobserved window (one object's changes
// withheld from the process, its lists included, from its creation or one
// change until its next: plan.UnobservedWindows); and an error answer to
// each write of an operator process, a 500 and a lost response (the API
// errors a world draws by default).
//
// The budget's rule: the random plans keep half of Checks (rounded up),
// whatever the sweep has, and the sweep takes at most the other half
// (fewer when it has fewer plans: the random plans take what it leaves),
// and the two take turns from the first plan: the sweep's plans at places
// 1, 3, 5, ... (its most interesting first), the random plans at 2, 4,
// 6, ... until every targeted plan is placed, then every place after
// (sweep.go: targetedPlace, randomPlace), so that in any prefix of the
// budget about half the plans are random, a function of the Options
// alone. The price: a bug only the sweep finds comes at twice its targeted
// plan's number less one (examples/patterns' twins caught by the sweep at
// plans 12 to 57 before, at 23 to 113 since; examples/bigrecreate's at 8
// on seeds 1-5 before, at 6, 8, 8, 15, 15 since, three by random plans;
// examples/bigcluster's at 2, 2, 12, 12, 17 before, 3, 3, 23, 23, 33
// since), and in wall time more than twice: a random plan runs its own
// fault-free references where a targeted plan shares its workload's
// (bigcluster's five seeds took 10 s before, 48 s since, on one loaded
// machine).
// The sweep takes its classes
// in turn, one plan of each class that has plans and then the next of
// each, so that no class starves the others (an operator whose run ranks
// thousands of error answers still has its crashes, stale restarts, holds
// and unobserved windows tried from the first targeted plans); within a
// class, the ranked plans of every workload come first, then the rest,
// each taken from the workloads in turn (the first workloads', then the
// re-creations'). A sweep of thousands of ranked plans is cut at its half,
// never the random plans' (sweep.go: sweepBudget, targetedPlans;
// TestTheRandomPlansTakeTurnsWithTheTargetedOnesFromTheFirstPlan). Every
// targeted plan shares its workload's references, so a sweep costs about
// one run a plan. A targeted plan is not shrunk: it is the workload and one
// fault. Result.Targeted, and the pass and failure lines, say how many of
// the ranked plans ran of how many, then how many of each class ("targeted
// plans: ranked plans covered 5 of 5, then crashes after a write 4 of 4,
// stale pairs 32 of 1,032, holds across a change 3 of 3"). A stale restart
// is drawn, targeted or at random, only where its new incarnation starts
// before the heal (which ends every fault: a view that starts after it is
// fresh and the plan would test nothing).
//
// Where faults are aimed: the fault phase, left to its default, is a
// minute, lengthened until 30.5 s after the first write of a kind the
// script's fault-free run makes after the minute, so that an operator that
// first acts late (a Job a minute from its CR's creation) still meets
// faults; one the test sets is kept, and a class aimed at the operator's
// writes that finds no target inside it says so in one line
// (Result.Unaimed); a saved plan whose crash never happens under it fails
// its replay saying so (phase.go, examples/backup).
//
// The random plans. Each plan's seed and workload first run without faults (the reference run,
// kept for converges and update-summaries). Its writes, and its operators'
// live reads, in the fault phase are the targets: a drawn crash at a time or a
// stale restart lands either anywhere or 1 ms after a target, and a hold (a
// stalled watch) starts either anywhere or 1 ms before one; a crash right
// after a process's k-th write is drawn either after any of its first ten
// writes or after one of the reference run's intermediate states (a write
// that another write of the same reconcile follows: a crash after a
// reconcile's last write leaves none), so that a bug between two writes of
// a rarer path (a finalizer's removal and its cleanup, after the
// workload's deletion) is reached in tens of plans, not a hundred. The three
// patterns: a crash right after a process's k-th write (intermediate state),
// a watch held across a write the operator should see before it acts
// (unobserved state), and a restart onto an apiserver up to half the fault
// phase behind, whose lists show the past (stale state). A stale restart is
// aimed as sharply: at one of the changes the apiserver committed in the
// reference run to a kind the world collects (its watch log, deletions and
// status writes included), its lagging watch cache at the resourceVersion
// just before or just after that change (rev=), the restart after it; and
// scoped to that change's kind (kind=: one watch cache behind, the others
// fresh, as kube-apiserver's per-resource watch caches can be) or to every
// kind. A bug that needs the restarted operator to see one object just
// before one write is then one draw among the run's writes, not a window of
// milliseconds in a phase of a minute (examples/staleview).
//
// Each plan runs in a testing/synctest bubble (package wallclock): the
// operator's time.Now, metav1.Now and timers follow the virtual clock. Its
// goroutines carry pprof labels of the run (world/profile.go).
//
// # Known gaps
//
//   - Shrinking is rapid's, one candidate at a time in the test's process,
//     and can cost several times the search: on the CronJob example's
//     tutorial design (explorer seed 1, 2026-11-25, one P at GOGC=400:
//     world/cores.go) the first failure came after 40 plans in 5.5 s and the
//     shrink took 29 s, 7,024 candidates of which 403 were new plans (536
//     runs with their references), each held candidate run to the end of its
//     7 virtual minutes (about 40 ms: a CronJob world is never at rest, its
//     schedule always has a timer); its last shrink came at the 281st new
//     plan, and a final round that shrinks nothing ran the other 122.
//     Lowering the seed costs reference runs (125 of the 536): a new seed is
//     a new fault-free run. A stale fault names a resourceVersion (rev=), so
//     removing a workload step that comes before it renumbers the writes and
//     the step stays until the rev is lowered too. A shrink is bounded by the
//     plans that found it, not by time: Options.ShrinkRuns when set, else
//     twice the random plans drawn to find it, 20 at the least, counted as
//     distinct plans (rapid tries one plan many times; again, it is recalled
//     and costs no run). Past the bound the smallest failing plan so far is
//     the minimal plan, and its line says so. And a shrink is bounded like
//     a plan, by Options.PlanTimeout of wall time (one ran 17 minutes on a
//     certificate operator): past it rapid's shrink is cut, the lines are
//     not left out after it, and the finding's line says it was cut
//     (Finding.ShrinkCut; TestAShrinkPastItsWallTimeIsCutAndSaysSo): that
//     minimal plan depends on the machine's speed, as a cut plan's count
//     does. That aims at a shrink within
//     twice the time to find, and is measured, not guaranteed: a new
//     candidate costs its reference runs, and time is not what is counted.
//     With worker processes the other cores idle while the parent shrinks. No
//     part of a run is large enough that removing it alone reaches the speed
//     targets (500 plans a second for a small operator, a CronJob bug shrunk
//     in under 10 s): reports/bench.md, "Where the CPU time goes". The bound:
//     TestTheShrinkBound, TestAShrinkStopsAtItsBoundAndSaysSo.
//   - Worker processes (Options.Workers) re-run the test from its start and
//     explore at its first exploration (Run or Explore) only: a test's later
//     explorations run in its own process (with a log line; an explicit
//     Options.Workers above 1 there is an error), so give each exploration
//     its own subtest to use every core, and let nothing before it depend on
//     what an earlier subtest or test did (the worker's -test.run skips them:
//     it never reaches its exploration, which then fails loudly when workers
//     were asked for and runs in the test's process by default, after the
//     worker's start was spent). A worker costs a process start, the test's
//     body up to the exploration and the preflight run: an exploration of a
//     few fast plans is slower with workers than without. With a shard, a
//     draw rapid rejects at a place of another shard is not seen by the
//     workers (they do not draw those places); one rejected in their share
//     makes the exploration run in the test's process. A worker left behind
//     by a parent that died exits at its next verdict (its pipe is gone), not
//     at once (TestWorkersOnASecondExplorationOfATestAreRefused,
//     TestAWorkerThatCannotReachTheExplorationFailsLoudly,
//     TestADefaultExplorationWorkersCannotReachRunsInTheTestsProcess).
//   - A stale restart models a lagging apiserver as a fixed age that ends at
//     once when it has caught up (at the heal at the latest: the heal ends
//     every fault, and the view's held-back events arrive then); a real watch
//     cache catches up gradually
//     (sim/informer.TestCatchUpDeliversWhatAStaleCacheKeptBackAtOnce,
//     sim/cluster.TestAStaleViewRunningAtTheHealIsCaughtUpByIt).
//   - KeepGoing's signatures name kinds as words of a violation's report: two
//     plans of one bug whose reports name different kinds are two
//     signatures, one finding only when one plan shows both or their runs
//     first go wrong at the same write, and one report naming no kind
//     (no-error-at-rest of a custom resource's reconcile) merges what
//     differs only in the objects. A root cause is a first wrong write, not
//     a line of code (package rootcause's Known gaps). With worker
//     processes every signature the workers saw is shrunk, those later
//     listed under another finding too (their shrink is spent;
//     TestASignatureNamesTheKindsItsReportNamesAsWords).
//   - The re-creations' unranked targeted plans of a class come after every
//     unranked plan of that class of the first workloads
//     (TestTheRecreationsUnrankedPlansComeLast): where those fill the
//     class's turns in the sweep's half of the budget, the re-creations' are
//     not reached but for their ranked plans. The ranking is plan.Sweep's,
//     with its Known gaps (an error answer that only delays a reconcile is
//     unranked). It is not sharded. Without worker processes its distinct
//     violations are shrunk one after another; with them, those the random
//     plans show are shrunk in processes of their own, as many at once as
//     there are workers (shrinkjobs.go), but the sweep's are judged in the
//     test's process, at their places as the random pass reaches them
//     (with KeepGoing, all of them before the workers' shrinks, so their
//     findings come first). The workers judge the random places before the
//     sweep's plans run at theirs; without KeepGoing the test's process
//     first judges the sweep's plans ahead, until one shows a new
//     signature, and the workers judge only the random places before it (a
//     sweep's finding ends the search at its place), so a targeted plan
//     and the random ones around it are not judged at once. Expect judges a violating plan as a whole: a plan
//     that violates the expected property and another passes.
//   - The default fault phase is aimed from one run, the script's on the
//     explorer seed's schedule: a kind first written after the minute only
//     under a user's change or on another schedule does not lengthen it, and
//     a fuzz target (FuzzTarget, which has no test to run it in) draws
//     under the minute. Only a crash or a stale restart that never happened
//     is told of a saved plan; a hold or an API window that met nothing is
//     not (TestAFaultThatNeverHappenedIsNamed).
//   - The operator's nondeterminism is found by chance: four runs of the
//     preflight plan alike (a range over a small Go map takes few orders, one
//     most often) miss it, and so does a range on a path the preflight plan
//     never takes
//     (TestNondeterminismOnAPathThePreflightNeverTakesIsNotFound); the replay
//     of a finding then says it, finding by finding. Each worker process
//     checks for itself, so one whose runs happened alike judges the field
//     undeclared. The verdicts still judge a field found so but not declared
//     (a buggy twin's bug can be such a field, examples/patterns/mapports):
//     its differences can show as a verdict of a plan or two (one per
//     signature) besides the one line; only Options.Nondeterministic silences
//     them. What two runs differ in is told as the fields whose values
//     differ: a list reordered reads as its items' fields (.spec.ports.name,
//     .spec.ports.port), not as its order. A replay judged modulo the
//     equivalence still shifts every resourceVersion after the write that
//     differs, so a plan keyed on a resourceVersion (a stale restart's rev=)
//     can aim elsewhere in it.
//   - Findings as found: the sweep's findings (sweep.go), which are not
//     shrunk, are saved and reported as each is found, with no "found" line
//     before it; the sweep runs in the test's process (a long targeted plan
//     is named as the random pass's are); with worker processes a finding's
//     line names its signature and place only (the verdict's text stays in
//     the worker), and the distinct violations are shrunk once the workers
//     have judged every place. A long plan in a worker process is named by
//     its place, not its text (the parent does not draw it), and what a plan
//     is doing is its phase (judged, or a shrink candidate), not which of its
//     runs (its own, a reference) is under way
//     (TestAKeepGoingSweepSavesEachFindingAsItFindsIt,
//     TestAPlanThatRunsLongIsNamedWhileItRuns).
package search
