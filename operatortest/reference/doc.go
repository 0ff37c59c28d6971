// Package reference runs the fault-free references a faulted run is judged
// against, and judges a plan against them (Run, RunRecalled). It also aims
// faults: the targets of a plan space are read from a reference run's own
// reads, writes and changes (TargetsOf).
//
// # The rule
//
// A finding counts only if a real cluster could produce it and a correct
// operator would not. So a comparing oracle (package verdict) blames the
// faults only for what no fault-free run of the same workload that a
// correct operator could also have made shows. Each reference below is a
// run of the plan's seed and workload with no fault, and stands for one
// thing a real cluster does to a correct operator:
//
//   - two schedules (the plan's seed and seed+2048 mod 4096): the order in
//     which a real cluster delivers concurrent events is not fixed. A
//     field or object the two differ in is learned as nondeterministic
//     (converges, update-summaries); interleavings-agree fires when the two
//     themselves disagree, and names the run that shows the bug by the rule
//     a child follows its owner (story.ShowsTheBug, read from the two runs'
//     watch logs, kept metadata only beside each cached reference): the run
//     that made an object twice for one incarnation of its owner, or left a
//     re-created owner without the child the other run made again. When the
//     rule does not tell them apart (the object has no owner), the faulted
//     run tells: the schedule whose end state it does not share is suspect.
//   - other draws (random.go): a value drawn at random differs between any
//     two runs on a real cluster; the fields that differ with the
//     operator's randomness alone are learned too.
//   - the late operator (late.go; lateReference): any fault delays an
//     operator, and a delayed level-triggered operator may start after the
//     workload's steps, or after some of them (each earlier step's instant,
//     tried one at a time): its end state is one more candidate, never a
//     source of learned fields.
//   - the same downtime (downtime.go), when an operator's process was
//     down in the faulted run: its process-down windows (each crash, exit
//     or stale restart to the next start) replayed as clean stops, with no
//     other fault. A node lost, a pod evicted or rolled takes a correct
//     operator down that long, and kube-apiserver commits a write whose
//     response the dead client never read, so a crash that cut a reconcile
//     is bounded by two clean stops: before that reconcile (none of its
//     writes) and after it (a graceful shutdown: all of them). For a
//     time-driven process (one that asked to be requeued after a time) the
//     same run keeps the same blind time (blind.go): its views behind the
//     world's writes (a held or lagging watch, a stale restart), never
//     behind its own writes, which is stale data a correct operator does not
//     trust. It excuses what the time down explains, not what the restart
//     does: a difference is forgiven only when the same restarts with no
//     time down do not show it too.
//
// Package verdict reads these same runs with two more rules: the outputs of
// a controller whose last reconcile of an object ends, by design, in the
// same error as a fault-free run's are not compared (frozen outputs), and a
// dependent the garbage collector collected for a gone owner is the
// collector's rule at work (churn). An error at rest a fault-free run shares
// is forgiven only when the fault-free run with no generated workload does
// not end in it too (judge.go: the user's doing, not the test's). Every reference
// but the two schedules' and other draws' is one more candidate end state,
// never a source of learned fields; a verdict one turns to holding says
// which in its detail.
//
// So an author predicts what is excused: a difference from the fault-free
// end states is excused when some run above, each a thing a real cluster
// does to any operator, shows it too; anything else is the faults', and a
// finding. A plan whose run or one of whose references was cut at the work
// bound is not judged (cut.go).
//
// # Known gaps
//
//   - Time-driven is read from the faulted run: a process that reads the
//     clock but never returned "requeue after" in it (or was blind through
//     all its timed reconciles) gets no blind time, and a process that
//     polls with "requeue after" gets it though its clock only paces a
//     retry.
//   - Time-driven operators: the fault-free run of the same downtime and
//     blind time (see Generic oracles) replays a lag's bounds, not the
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
//     turn it may come later than the faulted run's crash. A time-driven
//     operator is never at rest: a Job that finishes within milliseconds of
//     the run's end may be complete in one schedule and running in the
//     other (the interleaving moves it by the API's latencies).
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
//     downtime's by its windows too (a shrink's replays reuse it).
//   - interleavings-agree's blame reads only the first object the two
//     schedules disagree on; a reference given by hand (no run, no watch
//     log) is blamed by the faulted run's end state alone.
package reference
