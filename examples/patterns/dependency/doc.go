// Package dependency is the smallest operator that depends on an object it
// does not own: a Database names a Secret (spec.credentialsSecret) holding
// the user to connect as, and gets a ConfigMap <name>-connection with the
// host and that user. While the Secret is missing the operator says so in
// status and returns an error, so that controller-runtime retries with
// back-off; it also watches Secrets, so that the Secret's return is acted on
// at once rather than at the next retry.
//
// The pattern's trap for a test harness: when the workload deletes the
// Secret, the operator is rightly failing, in the fault-free run of the same
// workload too, until the Secret comes back.
//
// The buggy twin (Buggy) gives up on a missing Secret (it returns no error)
// and does not watch Secrets: the Secret's return goes unnoticed until
// something else makes the Database reconcile (a restart, a spec change).
//
// # Known gaps
//
//   - The connection ConfigMap keeps the last user it saw while the Secret
//     is missing (the database's clients keep working with it)
//     (examples/patterns.TestDependencyKeepsTheLastUserWhileTheSecretIsMissing).
package dependency
