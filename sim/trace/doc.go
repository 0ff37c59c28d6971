// Package trace records what happens in a run, one Step per API call, reconcile,
// result, event, crash, restart and workload action, and hashes the canonical form
// of every step: the run's determinism fingerprint. The same plan must give the same
// hash every time (across runs, GOMAXPROCS values and -race).
//
// The canonical line of a step is its fields in a fixed order, space-separated,
// with "-" for an empty field and Go quoting where a field has spaces:
//
//	<nanoseconds> <process> <controller> <worker> <reconcile> <op> <object> <rvSeen>/<rvCurrent>/<rvWritten> <result>
//
// Step.String is the human form used by timelines.
//
// # Known gaps
//
//   - Steps are kept in memory for timelines (Trace.Keep); very long runs should
//     turn Keep off and rely on the hash.
//   - WriteTimeline is text; sim/story draws a run (its picture and its inspector).
package trace
