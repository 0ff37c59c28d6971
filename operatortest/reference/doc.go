// Package reference runs the fault-free references a faulted run is judged
// against, and judges a plan against them (Run, RunRecalled). It also aims
// faults: the targets of a plan space are read from a reference run's own
// reads, writes and changes (TargetsOf), and so are its acts, what a sweep
// ranks its plans by (acts.go: each write of a reconcile that
// changed something, with the reads the reconcile made before it; a write
// answered with the version the run had already made is a no-op and no
// act). What the cluster held before the test's set-up (the default
// namespaces, every namespace's content from the cluster's bootstrap:
// world.RunResult.SetUp's events no step of the trace wrote) is no target:
// a real cluster had it long before the test
// (TestTheClustersBootstrapIsNoStaleTarget).
//
// # The rule
//
// A finding counts only if a real cluster could produce it and a correct
// operator would not. So a comparing oracle (package verdict) blames the
// faults only for what no fault-free run of the same workload that a
// correct operator could also have made shows. Every reference is such a
// run (the plan's seed and workload, no fault), and each is a case of one of
// three principles:
//
//  1. What a real cluster leaves open is nondeterministic. The order in
//     which it delivers concurrent events is not fixed: two schedules (the
//     plan's seed and seed+2048 mod 4096). A value drawn at random differs
//     between any two runs: the plan's seed with other draws (random.go).
//     A field or object these runs differ in is learned as nondeterministic
//     (converges, update-summaries), never compared; interleavings-agree
//     fires when the two schedules themselves disagree, and names the run
//     that shows the bug by the verdicts' rules (verdict.ShowsTheBug, over the
//     two runs' watch logs, kept metadata only beside each cached
//     reference): the run that left the object still being deleted (a
//     deletion completes), made it twice for one incarnation of its owner,
//     or left a re-created owner without the child the other run made again
//     (a child follows its owner); when the rules do not tell, the schedule
//     whose end state the faulted run does not share. These are the only
//     references that teach fields.
//  2. A correct operator may be slowed by anything, and ends where a slowed
//     operator ends. Its process may be down for a time: from the start
//     until after one of the workload's steps (the late starts, late.go: a
//     pod scheduled late, a crash and its back-off at the start), or where
//     the faulted run had it down, replayed as clean stops (the same
//     downtime, downtime.go: a node lost, a pod evicted or rolled), the stop
//     before a reconcile the crash cut (none of its writes) or after it (a
//     graceful shutdown: all of them; kube-apiserver commits a write whose
//     response the dead client never read). Or it may be up and behind the
//     world's writes, as the faulted run's was (the same blind time,
//     blind.go: a held or lagging watch, a restart onto a lagging
//     apiserver), never behind its own writes, which is stale data a
//     correct operator does not trust; for a time-driven process only (one
//     that asked to be requeued after a time), since an operator that acts
//     on events catches up. Each of these runs is one more candidate end
//     state for converges (and update-summaries, for the same downtime and
//     blind time), never a source of learned fields.
//  3. What the operator does to itself is never excused. A difference the
//     same downtime excuses is blamed again when the same restarts with no
//     time down or blind show it too (the restart, not the downtime, made
//     it: an operator that "starts clean" and re-creates what it made). An
//     error at rest a fault-free run shares is forgiven as the workload's
//     doing only when the fault-free run with no generated workload does not
//     end in it too (judge.go: the user's doing, not the test's).
//
// Every case of these principles, and every rule that follows none of
// them, is one named entry of package verdict's table of excuses
// (verdict.Excuses: the single statement of what a verdict excuses, with the
// references each case adds). Four rules follow no principle (principle 0
// there): the outputs of a controller whose last reconcile of an object
// ends, by design, in the same error as a fault-free run's are not compared
// (frozen-outputs), a dependent the garbage collector collected for a gone
// owner is the collector's rule at work (collector-churn), one deletion more
// and no create more is an end state for converges (lifetime-end), and a
// storm while a watch is stalled is a note (stall-storm). A verdict one
// reference turns to holding says which in its detail, and names the case
// in its Excused.
//
// So an author predicts what is excused: a field that differs between two
// fault-free runs of the workload (1), or an end state that some run of the
// same workload with the operator slowed ends in too (2), unless the
// operator's own restart or the test's own world shows it (3); anything
// else is the faults', and a finding. A plan whose run or one of whose
// references was cut at the work bound is not judged (cut.go); a run a hot
// loop or a livelock stopped is judged by the kernel's verdicts alone, and
// no further reference runs for it (judge.go, world.Stops). References
// are run only when a verdict would otherwise fire, in the order above,
// and cached.
//
// # Known gaps
//
//   - Time-driven is read from the faulted run: a process that reads the
//     clock but never returned "requeue after" in it (or was blind through
//     all its timed reconciles) gets no blind time, and a process that
//     polls with "requeue after" gets it though its clock only paces a
//     retry (TestOnlyATimeDrivenOperatorHasBlindTime).
//   - Time-driven operators: the fault-free run of the same downtime and
//     blind time (see Generic oracles;
//     TestTheBlindReferenceKeepsTheViewsAndDropsTheRestOfTheFaults) replays a lag's bounds, not the
//     faulted run's draws of it (the reference draws its own per event), and
//     a view behind the world's writes is excused only where those writes
//     were the world's: a write of the operator that carried a user's change
//     along (a status update of an object the user had edited) shows the
//     process that change at once too. Stale data about objects of the
//     world is blindness by this rule: an operator that acts on a user's
//     deleted object still in its stale cache is judged against a reference
//     that does so too, and only its own properties (or what it makes twice
//     by its own writes) catch it (examples/cronjob's finding 3 is caught by
//     its property). The late reference
//     covers the workload's timing only, not the clock's. The downtime is
//     replayed at the faulted run's instants on the fault-free run's pace: a
//     reconcile that latency or lag made late in the faulted run, and that
//     the crash did not cut (it had not begun), may be done before the stop
//     in the reference. A clean stop that finds a reconcile in flight waits
//     for a moment no worker is reconciling: with several workers busy in
//     turn it may come later than the faulted run's crash
//     (TestACleanStopLetsTheReconcileInHandFinish). A time-driven
//     operator is never at rest: a Job that finishes within milliseconds of
//     the run's end may be complete in one schedule and running in the
//     other (the interleaving moves it by the API's latencies).
//   - Acts are writes of a reconcile only (a runnable's or an event
//     handler's write is none); a read or write of a kind whose name two
//     collected groups share names no kind, and ranks nothing; a no-op
//     write at the instant another client made the version it answers with
//     counts as an act
//     (TestTheReferenceRunsActsAreTheWritesThatChangedSomethingAfterTheirReads).
//   - Each plan costs two fault-free runs besides its own (its schedule's,
//     whose reads and writes are also the targets, and another's), and a
//     third (the late operator's) when converges would otherwise fire, also for
//     the plans a shard does not run (the generator needs the targets to
//     draw); and one to four more (the same downtime and blind time's, then
//     the same restarts' with no time down or blind, each with the stop
//     before and, when that does not excuse, after a cut reconcile) when converges or
//     update-summaries would still fire and an operator's process was down
//     or its view behind (a stale restart, a hold or lag of its watches);
//     references are cached by seed and workload (256 at most), the
//     downtime's by its windows too (a shrink's replays reuse it;
//     TestAPlanCostsTwoFaultFreeRunsBesidesItsOwnCachedBySeedAndWorkload).
//   - interleavings-agree's blame reads only the first object the two
//     schedules disagree on; a reference given by hand (no run, no watch
//     log) is blamed by the faulted run's end state alone
//     (TestAHandMadeReferenceIsBlamedByTheFaultedRunsEndStateOnTheFirstObject).
package reference
