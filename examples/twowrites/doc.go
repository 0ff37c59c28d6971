// Package twowrites is a small operator with a crash-between-writes bug, tested
// end to end with package operatortest: for each ConfigMap labelled
// twowrites.ctrlsim.dev/app it creates two Secrets, <name>-config and then
// <name>-credentials, both owned by the ConfigMap.
//
// The buggy reconciler decides it is done when the first Secret exists: a
// process that dies between the two creates (an OOM kill, a node lost) leaves
// the second Secret missing for ever, since the restarted process finds the
// first and stops. The fixed one checks each Secret. Nothing in the test names
// the bug: the generic converges oracle finds it (the fault-free run of the
// same workload ends with both Secrets).
//
// # Known gaps
//
//   - It is a teaching example: no status, no Events, no finalizer
//     (TestTheOperatorWritesNoStatusNoEventAndNoFinalizer).
package twowrites
