// Package trace records what happens in a run, one Step per API call, reconcile,
// result, event, crash, restart and workload action, and hashes the canonical form
// of every step: the run's determinism fingerprint. The same plan must give the same
// hash every time (across runs, GOMAXPROCS values and -race).
//
// The canonical line of a step is its fields in a fixed order, space-separated,
// with "-" for an empty field and Go quoting where a field has spaces:
//
//	<nanoseconds> <process> <controller> <worker> <reconcile> <op> <object> <rvSeen>/<rvCurrent>/<rvWritten> <items> <digest> <result>
//
// A read says what it returned against what was current: a get the version it
// got (0: nothing) and the object's current one, a list its number of items
// and, from a cache, the resourceVersion the cache was at and that of the
// newest change to what it lists (Step.Stale: the read returned less than the
// server had). Step.String writes "rv=5 (current 7, stale)" for a get and
// "0 items cache at rv=5 (current 7, stale)" for a list.
//
// The digest is that of what a successful write stored (process.Digest: FNV-1a
// over the object's JSON), so the hash covers object contents, not only who
// wrote what when: a wall-clock time or map-order output written into an object
// makes two runs of a plan differ at that write. Step.String, the human form used
// by timelines, leaves it out.
//
// What a run logs can carry what differs between two runs of one plan though
// nothing the operator did differs: the stack trace apimachinery's panic
// handler logs with a reconcile panic (goroutine and synctest bubble ids,
// addresses, the machine's source directories), a pointer printed in a log
// value. The hash covers log lines ("log" steps) and panic values ("panic")
// in their RunIndependent form, with those replaced; the steps keep them as
// they were, for timelines. So a plan that panics replays to one hash.
//
// WriteTimeline writes a run as text, one Step.String a line; package
// operatortest/story draws it (the catalogue's SVG pictures and the HTML run
// inspector).
//
// # Known gaps
//
//   - Steps are kept in memory for timelines (Trace.Keep); very long runs should
//     turn Keep off and rely on the hash (TestATraceKeepsEveryStepUnlessKeepIsOff).
//   - A log value that differs between runs in another way than
//     RunIndependent knows (a wall-clock duration measured outside a
//     synctest bubble, a random id) still changes the hash; inside the
//     bubble operatortest and wallclock give, durations are virtual and the
//     same in every run (TestALogValueRunIndependentDoesNotKnowChangesTheHash).
//   - Deletes carry no digest (the model computes what a delete stores); reads carry
//     none (what they return is the stored content some write's digest covers)
//     (sim/process.TestADeleteAndAReadCarryNoDigest).
package trace
