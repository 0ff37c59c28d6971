// Package secretref is the smallest operator whose controllers each read
// a Secret the user names, and only one of which is woken by the user's
// edit: a Registry names its credentials' Secret (spec.secretRef); the
// controller registry (woken by the Registry, its ConfigMap and the
// Secret) checks the Secret, then writes the Registry's
// ConfigMap (its replicas) and records the generation written, and the
// controller registry-status, woken only by the ConfigMap's events,
// checks the Secret again and sets status.ready. Both fail, and retry
// with back-off, while the Secret is missing.
//
// The pattern's trap for a test harness: a user who empties the reference
// (secretRef {}) makes the registry controller fail on `Secret "" not
// found` in every run; registry-status is reconciled again only where
// something else wakes it after the edit (its process restarted and
// relisted the ConfigMap, in a faulted run), and then fails the same way,
// while the fault-free run's registry-status never looked again. The
// error is the user's emptied reference, on which the fault-free run
// failed too, in another controller (operatortest's verdicts:
// user-value). And a user who empties it as the operator's first pass
// runs (2ms after the Registry is made) meets registry-status before or
// after it set status.ready, by the schedule alone: how far the operator
// got before the user's value landed (frozen-status, for registry-status
// as for registry; the false-alarm suite's plan 0 of 1,000 before it).
//
// The buggy twin (Buggy) records the observed generation before it writes
// the ConfigMap, and skips the ConfigMap of a generation it has observed
// (a common shortcut): a crash between the two writes leaves the
// ConfigMap behind the user's edit of replicas for good.
//
// # Known gaps
//
//   - registry-status does not watch Secrets: a Secret made after the
//     reference names it is seen at the next ConfigMap change only
//     (examples/patterns.TestARegistrysStatusWaitsForItsConfigMap).
package secretref
