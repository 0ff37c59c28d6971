// Package check holds the properties (oracles) of docs/design.md as reusable checks over
// a run: its trace, its phases (fault, then heal), its watch log and its final
// state. Safety properties are judged over the fault phase; liveness properties
// (Terminates, Eventually, Converges, Quiescent) at the end of the heal budget.
//
//   - SettledBackoff: while a reconcile keeps failing, at most one reconcile per
//     backoff firing after a first burst of at most 2.
//   - RootCauseVisible: the status shows the root cause at least 95% of the time.
//   - BoundedRetryRate: successive attempts respect a retry envelope.
//   - Terminates: nothing is left with a deletionTimestamp.
//   - AtMostOnce: no side-effect key happens twice.
//   - Eventually, Converges, Quiescent: desired state at the end, and no writes at
//     rest.
//
// Scenario-specific properties (release-settles, no-version-skip,
// retried-after-failure) are built from Eventually or from the watch log by the
// scenarios.
//
// # Known gaps
//
//   - Properties read the trace and the watch log, not the processes' memory: a
//     controller's in-memory state is invisible to them, but for the keys the
//     cluster's own controllers hold in back-off at the end (Run.Backoffs)
//     and the work they have scheduled for after it (Run.Scheduled: the
//     kubelet's kills) (TestARunHoldsNoProcessState).
//   - Liveness is judged once, at the end of the heal budget
//     (TestLivenessIsJudgedOnceAtTheEnd).
package check
