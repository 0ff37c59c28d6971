// Package controller is the example CronJob operator's reconciler
// (CronJobReconciler), written in kubebuilder's layout: SetupWithManager
// indexes Jobs by their controlling CronJob in the manager's cache and builds
// the controller with For(&CronJob{}).Owns(&Job{}).
//
// A reconcile reads the CronJob from the apiserver (the APIReader), brings
// status.active and status.lastScheduleTime up to date from the cached Jobs
// (a Job status.active lists and the cache lacks is looked up on the
// apiserver), deletes succeeded and failed Jobs beyond the history limits
// once the status remembers their scheduled times, and, unless suspended,
// finds the latest scheduled time that is due, has not run and is within
// startingDeadlineSeconds (earlier missed times are skipped). Before it
// creates that time's Job it lists the CronJob's Jobs on the apiserver and
// applies the concurrency policy to the unfinished ones (Forbid: wait; Replace:
// delete them first); after, it records the Job in the status, then asks to
// be called again at the next scheduled time.
//
// ReconstituteFromCache is a deliberately buggy variant with the design of
// the kubebuilder book's CronJob tutorial (../../README.md): every decision
// from the cache, lastScheduleTime rebuilt from the Jobs that still exist.
//
// # Known gaps
//
//   - Schedules are parsed by github.com/robfig/cron (ParseStandard: five
//     fields or a descriptor) in the clock's time zone; no time-zone field,
//     no "too many missed start times" warning
//     (TestASchedulesTimesAreTheClocksZoneWithNoZoneOfItsOwn).
//   - No status conditions and no Events: the status is active and
//     lastScheduleTime only
//     (TestTheStatusIsActiveAndLastScheduleTimeAndNoEventIsRecorded).
//   - A Job created by someone else with the name of a scheduled run makes
//     that run's create fail with AlreadyExists until its deadline passes
//     (TestAJobOfAnotherWithARunsNameBlocksTheRunUntilItsDeadline).
//   - No envtest suite of its own: package cronjob runs it in the simulator
//     (examples/cronjob.TestTheOperatorUnderOperatorTest).
package controller
