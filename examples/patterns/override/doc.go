// Package override is the smallest operator that passes a user's override
// to a child whose validation may refuse it: a Stream runs as a StatefulSet,
// and its spec.podManagementPolicy is passed to the StatefulSet as it is.
// The CRD's schema accepts any short string; the StatefulSet's validation
// accepts OrderedReady and Parallel, at creation only (the field is
// immutable). A user who sets another value gets the apiserver's refusal
// back from every reconcile, which fails and retries with back-off until
// the user fixes the value: an error at rest by design, in every run.
// status.observedGeneration records the generation whose StatefulSet was
// written.
//
// The pattern's trap for a test harness: the same invalid value is met by
// the StatefulSet's creation in a run whose operator was slowed past the
// user's edit, and by an update of the StatefulSet in one that made it
// first. kube-apiserver validates a create by the object's own rules and an
// update by those and the transition's (an immutable field changed), so the
// two errors' texts differ ("spec.podManagementPolicy: Invalid value:
// "Sequential": must be 'OrderedReady' or 'Parallel'", and the same with
// "field is immutable" beside it) while their cause, the user's value, is
// one: no-error-at-rest compares errors by their cause (operatortest's
// verdicts).
//
// The buggy twin (Buggy) records the observed generation before it writes
// the StatefulSet, and skips the StatefulSet of a generation it has
// observed (a common shortcut): a crash between the two writes, or a
// refused write, leaves the StatefulSet behind the user's last valid edit
// for good.
//
// # Known gaps
//
//   - A Service's clusterIP refused by the IP allocator (an internal error
//     with no field cause, before validation) is pattern clusterip's
//     (examples/patterns.TestInvalidOverrideMakesNoService).
package override
