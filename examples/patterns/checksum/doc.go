// Package checksum is the smallest operator that rolls its pods on a
// configuration change with a checksum annotation (Helm's checksum/config
// idiom): a WebApp's spec.config becomes a ConfigMap <name>-config, and a
// Deployment <name> mounts it; the Deployment's pod template carries the
// annotation checksum/config, a hash of the ConfigMap's data, so that a new
// configuration is a new pod template and the deployment controller rolls
// the pods. The data are hashed in the order of their sorted keys.
//
// The pattern's trap for a test harness: every change of the template is a
// rollout by the built-in controllers, a new ReplicaSet named from a hash of
// the template (<name>-<pod-template-hash>) and new pods of generated names;
// how many ReplicaSets a run keeps and their names depend on how many
// templates it wrote, which races with the user's edits.
//
// The buggy twin (Buggy) hashes the data in the order it ranges over the Go
// map: the checksum differs from one reconcile to the next with the same
// configuration, every reconcile writes a new template, and the pods roll
// for ever with nothing changed.
//
// # Known gaps
//
//   - The ConfigMap is the operator's own; a checksum of a ConfigMap the
//     user owns (and the watch it needs) is not shown
//     (examples/patterns.TestConfigChecksumCoversOnlyTheOperatorsOwnConfigMap).
package checksum
