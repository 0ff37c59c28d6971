// Package leader is the smallest operator that runs as leader-elected
// replicas: a Certificate gets a Secret of generated name
// (<name>-tls-xxxxx) holding its certificate for spec.dnsName, owned by it
// and recorded in status.secretName. Its manager runs as two pods with
// leader election on, as kubebuilder's main.go does: one replica's
// controller runs at a time, and before it creates a Secret it lists the
// Certificate's Secrets live (the APIReader), which is safe only because no
// other replica creates at the same time.
//
// The pattern's trap for a test harness: failovers (a leader that crashes, a
// Lease that expires, a new leader whose cache starts empty) land at
// different times in every run.
//
// The buggy twin (Buggy) opts its controller out of leader election
// (controller.Options.NeedLeaderElection false, as done to keep a standby's
// caches warm): both replicas reconcile the same Certificate at once, both
// find no Secret, and both create one.
//
// # Known gaps
//
//   - The certificate is a string made from the DNS name, not issued
//     (examples/patterns.TestLeaderElectionsCertificateIsTheDNSNameNotIssued).
package leader
