// Package restartchecksum is the smallest operator whose checksum covers a
// time: a Relay runs as a Deployment that mounts its configuration from a
// ConfigMap, which the operator writes with the instant of the
// configuration's last change (changedAt, kept while the configuration is
// the same), and the Deployment's pod template carries the SHA-256 of the
// ConfigMap's data (its JSON) as an annotation, so that the pods roll when
// the configuration changes, as Helm charts' checksum/config and many
// operators do.
//
// The pattern's trap for a test harness: the checksum is an opaque hex
// string, and its input holds the operator's clock, which differs between
// two schedules of one workload; the deployment controller then names the
// ReplicaSet (and labels its pods) by a hash of the template with the
// checksum in it. A value derived from a nondeterministic one is
// nondeterministic too: the checksum must be compared by what it digests
// (operatortest's equivalence finds the ConfigMap data it is the digest of,
// and compares that, the time masked), and the ReplicaSet's name by the
// template with the checksum so compared.
//
// The buggy twin (Buggy) writes the checksum only in the reconcile that
// changed the ConfigMap (a common shortcut: "the config changed, roll the
// pods"): a crash or a failed write between the ConfigMap's write and the
// Deployment's, and the pods keep the old configuration's checksum (or
// none) for good. A rule that took every hex string for nondeterministic
// would hide the stale checksum; one that compares the checksum by its
// content does not (the old content is another content).
//
// # Known gaps
//
//   - The ConfigMap's change is not a restart by itself (the kubelet
//     refreshes a mounted file); no readiness
//     (examples/patterns.TestRestartChecksumRollsThroughTheChecksumAndReportsNoReadiness).
package restartchecksum
