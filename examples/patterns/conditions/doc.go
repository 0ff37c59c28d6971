// Package conditions is the smallest operator that reports with status
// conditions and observedGeneration, as the Kubernetes API conventions ask: a
// Page publishes spec.body in a ConfigMap <name>-page it owns, then sets the
// condition Ready (with its lastTransitionTime and observedGeneration) and
// status.observedGeneration, so that a client knows which generation of the
// spec the status describes.
//
// The pattern's trap for a test harness: the conditions' timestamps, their
// order, and the generations differ between runs.
//
// The buggy twin (Buggy) writes the status for the generation before it does
// the work, and skips the work when the status says the generation is
// observed: a process that dies between the status write and the work leaves
// the page unpublished while its status says Ready.
//
// # Known gaps
//
//   - One condition (Ready); no Progressing or Degraded
//     (examples/patterns.TestConditionsPageReportsOnlyReady).
package conditions
