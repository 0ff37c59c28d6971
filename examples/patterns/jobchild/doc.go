// Package jobchild is the smallest operator that runs a Job: a Task runs its
// image once as a Job of the same name, owned by the Task, and mirrors the
// Job's progress into status.phase (Pending, Running, Succeeded, Failed).
//
// The pattern's trap for a test harness: the apiserver writes the Job's own
// uid into its spec.selector and its template's labels
// (batch.kubernetes.io/controller-uid), values that differ between any two
// runs.
//
// The buggy twin (Buggy) records the start before it creates the Job and
// trusts the record: a process that dies between the status write and the
// create leaves a Task marked Pending whose Job is never created.
//
// # Known gaps
//
//   - spec is immutable (a CEL rule in the CRD, as a Job's template and a
//     Tekton TaskRun's spec are): a Task runs once; to run again, re-create it
//     (examples/patterns.TestJobChildsTaskSpecIsImmutable).
package jobchild
