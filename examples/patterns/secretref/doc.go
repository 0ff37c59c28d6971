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
// user-value).
//
// registry-status reads the Registry live: no Registry event wakes it, and
// the first version, which read its cache, restarted onto a Registry cache
// from before the Registry was made, found none, returned, and never
// looked again (status.ready never set: the false-alarm suite's plan 152
// of 1,000, converges; a real stale-state bug, not a false alarm;
// TestARegistrysStatusReadsTheRegistryLive).
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
