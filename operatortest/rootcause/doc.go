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
// Two findings are one root cause only where that is shown, never by
// proximity (passing through one reconcile is proximity: a database
// operator's one controller reconciling its one cluster object meets every
// bug it has there; so is one fault-free run, which shows every bug its
// workload alone shows: a panic and a wrong copy are two):
//
//   - their first wrong writes must be the same write: made in the
//     same reconcile (one controller of one process reconciling one
//     object), to the same object (where a crash cuts the reconcile
//     decides which of that object's fields differ first: the conditions
//     twin's page ConfigMap missing, or written with other content), or,
//     for two departures, in the same fields of another object (a crash
//     between a child's create and the write of its owner reference
//     departs in .metadata.ownerReferences, whichever child it hit); a hot
//     loop in the same reconcile is one loop;
//   - the test's own properties are the author's words for a bug: a
//     finding of one is never listed under a generic oracle's finding (nor
//     a generic one under it), only under a finding of the same property.
//
// A finding whose run goes wrong at no such write (a panic with no fault, a
// run that ends as its reference does, a first divergent write or a loop
// outside a reconcile) is a root cause of its own. Saved plans that still
// violate are root causes found before: a signature found again under one
// is listed under it. A finding listed under another keeps its minimal
// plan: package search saves it and prints it with its plan number and
// replay command.
//
// # Known gaps
//
//   - The first wrong write is where the runs first differ, object by
//     object: a bug whose difference shows early in an object written
//     first (a field one schedule sets otherwise) makes every later
//     departure of the same reconcile start there too, and a second bug
//     is listed under it; so are two bugs that first go wrong at one
//     object, or in the same fields of two
//     (TestTwoDeparturesInTheSameFieldsOfOneReconcileAreOneRootCause).
//     One bug that goes wrong at two objects in two fields is two
//     findings: examples/patterns' leader-election twin (both replicas
//     create) shows a second Secret under one plan and the Certificate's
//     status naming the other replica's under another; the statefulset
//     twin (it does not watch its StatefulSets) goes wrong in the Cache's
//     status with no fault and in the StatefulSet under a fault.
//   - A finding with no fault whose plan departs from its reference only
//     when the operator draws differently is compared on at most sameRuns
//     runs: an operator that draws alike in all of them leaves the finding
//     a root cause of its own (map-ports in
//     examples/patterns.TestKeepGoingReportsEachTwinsBug, which make
//     falsealarms runs).
package rootcause
