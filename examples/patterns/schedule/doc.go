// Package schedule is the smallest time-driven operator: a Schedule runs a
// Job every spec.intervalSeconds from its creation, named after the
// scheduled time (<name>-<unix seconds>) so that a run is created once
// whatever happens, and keeps the last spec.historyLimit finished Jobs. A
// run that could not start within spec.startingDeadlineSeconds of its time
// (the operator was down, or behind) is skipped, and of several missed runs
// only the latest is considered, as the CronJob controller does. The
// operator wakes itself with RequeueAfter at the next scheduled time.
//
// The pattern's trap for a test harness: a faulty run rightly skips runs the
// fault-free run made, so its Jobs and their counts differ without any bug.
//
// The buggy twin (Buggy) creates each run's Job with generateName: a
// reconcile that reads a status.lastScheduleTime older than its last write
// (a lagging cache, a crash between the create and the status write)
// creates the run a second time.
//
// # Known gaps
//
//   - Concurrency policy is Allow: runs may overlap; Forbid and Replace are
//     not shown (examples/patterns.TestScheduleHasNoConcurrencyPolicy).
package schedule
