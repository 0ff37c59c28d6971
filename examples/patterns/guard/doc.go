// Package guard is the smallest operator whose guard on a change of its
// child fires before the child's validation can: a Pipeline runs as a
// StatefulSet, with a free-form override of the StatefulSet's spec
// (spec.override: podManagementPolicy and serviceName, passed as they
// are), and it refuses to scale a running pipeline down (its workers must
// be drained by hand first): a Pipeline whose replicas are below the
// StatefulSet's and below its running (ready) workers is left as it is,
// and status.blocked says why. Whether a worker runs is the StatefulSet's
// state, read live; the first version refused any scale-down below the
// set's replicas, so a set made a moment before the user's scale-down,
// whose workers had not started, was held under one schedule and made
// smaller under another (interleavings-agree at seed 79;
// TestAGuardRefusesToRemoveRunningWorkersNotASetJustMade). status.observedGeneration records the generation whose
// StatefulSet was written. The Pipeline is read live, not from the cache:
// the guard makes the StatefulSet's history count, and the first version,
// which read its cache, restarted onto one from before the user's edits,
// made a StatefulSet of the replicas the user had already scaled to 0 and
// then refused the scale-down for good (the false-alarm suite's plan 604
// of 1,000, converges on status.blocked: a real stale-state bug, not a
// false alarm; TestAGuardedPipelineIsReadLiveNotFromARestartedCache).
//
// The pattern's trap for a test harness: a user who sets replicas to 0 and
// an override the StatefulSet's validation refuses (podManagementPolicy
// "a30101") in one edit meets the guard where the StatefulSet runs (the
// invalid value is never sent, and no reconcile fails), and the refusal
// where it does not: an operator down from before its first reconcile
// until after the edit creates the StatefulSet with both, and every
// reconcile ends in kube-apiserver's 422. The error at rest is the user's
// invalid value, which the API refused: a correct operator's, in either
// run (operatortest's verdicts: user-value).
//
// The buggy twin (Buggy) records the observed generation before it writes
// the StatefulSet, and skips the StatefulSet of a generation it has
// observed (a common shortcut): a crash between the two writes, or a
// refused write, leaves the StatefulSet behind the user's last valid edit
// for good.
//
// # Known gaps
//
//   - The guard compares replicas only: an override changed with a
//     scale-down waits for the scale-down to be undone
//     (examples/patterns.TestAGuardedPipelineKeepsItsStatefulSet).
//   - A guard decides on the state it sees when the user's edit lands: a
//     scale-down before the workers run is applied, one after is refused
//     (examples/patterns.TestAGuardRefusesToRemoveRunningWorkersNotASetJustMade,
//     examples/patterns.TestAGuardedPipelineKeepsItsStatefulSet), so one
//     that lands as a worker turns ready is refused or not by that race,
//     as on a real cluster, and two fault-free schedules may end apart
//     (interleavings-agree has no rule for a race of the user's step with
//     the world's state; none was met in the false-alarm suite's 1,000
//     plans).
package guard
