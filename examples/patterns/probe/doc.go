// Package probe is the smallest polling operator: a Probe checks every 5 s
// (RequeueAfter) that the ConfigMap spec.configMap holds the key spec.key,
// as an operator polls what it does not watch (an endpoint, a cloud
// resource), and reports the result with a Ready condition and
// status.observedGeneration, written only when one of them changes. Status
// writes do not wake it (GenerationChangedPredicate): its own clock does.
//
// The pattern's trap for a test harness: the operator reconciles for ever,
// at rest too, and its condition moves with the workload's deletions and
// re-creations of the ConfigMap; but at rest it writes nothing.
//
// Two buggy twins, each a write at rest that stores nothing new (Kamera's
// no-op writes; operatortest's writes-at-rest):
//
//   - Buggy refreshes status.lastProbeTime at every poll and writes the
//     status every time: a heartbeat in status, every 5 s for ever.
//   - Flips reports Ready=False (reason Probing) before each check and its
//     result after it: a condition that flips at every poll.
//
// # Known gaps
//
//   - One condition (Ready); the probe reads the ConfigMap from the cache
//     (examples/patterns.TestProbeReportsOnlyReadyAndReadsTheConfigMapFromTheCache).
package probe
