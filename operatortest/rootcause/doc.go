// Package rootcause says where a finding's run first goes wrong, and which
// findings of one exploration are one root cause: what KeepGoing lists
// under one finding (operatortest/search) rather than reporting as many.
//
// # The rule
//
// A run goes wrong first at a write:
//
//   - where it first departs from the run it is judged against
//     (rundiff.Diverge's first divergent write over the changes of the kinds
//     the differential oracles judge, compared as they compare them, that no
//     built-in controller made: the manager's Leases and Events are not
//     judged, and a fault shifts the timing of a built-in controller's
//     writes, a Job's status.uncountedTerminatedPods). The run judged
//     against is a faulted plan's fault-free run; for two schedules that
//     disagree with no fault (interleavings-agree) the other seed's
//     fault-free run; for converges with no fault the plan's own (it is
//     itself: the operator draws differently from run to run, as one that
//     ranges over a Go map does); a plan is run again until it departs
//     (sameRuns);
//   - for writes-at-rest with no fault, at its first write at rest (the
//     first write an operator process makes in a reconcile after the fault
//     phase);
//   - for a hot loop, faulted or not, in the reconcile it loops in, at the
//     step that completed the loop: one of the loop's reconciles, or a write
//     made in one (which of the two reaches the bound first is a matter of
//     the schedule: examples/patterns' password twin loops on its Secret's
//     writes with no fault, and on its User's reconciles after a hold).
//
// Two findings are one root cause when their first wrong writes were made
// in the same reconcile (one controller of one process reconciling one
// object) and, where one of them is a write at rest, to the same object: a
// departure is where the reconcile took another way, and each later write
// of it follows; a write at rest is one write that should not be, and
// accounts for no other object's. A finding whose run goes wrong at no such
// write (a panic with no fault, a run that ends as its reference does, a
// first divergent write or a loop outside a reconcile) is a root cause of
// its own. Saved plans that still violate are root causes found
// before: a signature found again under one is listed under it.
//
// # Known gaps
//
//   - A root cause is a reconcile, not a line of code: two bugs that first
//     show in one controller's reconcile of one object are one finding, the
//     second listed under the first with no minimal plan of its own
//     (operatortest/search.TestTwoBugsOfOneReconcileAreOneFinding).
//   - A finding with no fault whose plan departs from its reference only
//     when the operator draws differently is compared on at most sameRuns
//     runs: an operator that draws alike in all of them leaves the finding
//     a root cause of its own (map-ports in
//     examples/patterns.TestKeepGoingReportsEachTwinsBugOnce, which make
//     falsealarms runs).
package rootcause
