// Package cronjob is the showcase of a kubebuilder-style operator in the
// simulator: a CronJob operator of our own (api/v1, internal/controller,
// internal/webhook/v1, the CRD and webhook manifests controller-gen generates
// from its markers in testdata/), run unchanged through its SetupWithManager,
// and checked for what a CronJob user expects of it, by plain Go tests and by
// one operatortest call.
//
// The operator comes in two variants (Variant): Correct, as written, and
// TutorialDesign, a deliberately buggy variant with the design of the
// kubebuilder book's CronJob tutorial (controller.CronJobReconciler's
// ReconstituteFromCache), which the findings of README.md are pinned on; every
// pinned plan holds on Correct.
//
// The world (World) has three processes: "cronjob", the operator's manager
// (Setup: the controller, then the defaulting and validating webhooks, which
// the apiserver model calls), "kube-controller-manager", models/kube's job
// controller and garbage collector, and "kubelet", models/kube's kubelet,
// which runs each Job's pod for the "sleep N" of its command. The CRD is
// served with its schema (apiserver.CRDsFromYAML). Runs happen inside a
// testing/synctest bubble (package wallclock): the controller's real clock
// then reads virtual time.
//
// A run (Run, Drive) is a fault phase (FaultPhase) in which the plan's faults
// act, a heal, then the user suspends the CronJob and the world runs
// HealBudget more, so that running Jobs finish and the controller comes to
// rest. The properties (Judge) are plain functions of the apiserver's history
// (the watch log), the final objects and the run's health:
//
//   - forbid-never-overlaps: a Forbid CronJob never has two unfinished Jobs;
//   - no-scheduled-time-run-twice: no scheduled time is run by two Jobs;
//   - history-limits-hold-at-rest: at most successfulJobsHistoryLimit
//     succeeded and failedJobsHistoryLimit failed Jobs are kept;
//   - active-matches-at-rest: status.active lists exactly the unfinished Jobs;
//   - no-hot-loop, no-livelock, no-reconcile-panic.
//
// README.md lists the findings, their minimal plans and replay commands.
//
// # Known gaps
//
//   - Objects that operatortest creates before time starts are not admitted
//     by the webhooks: operatorOptions defaults its sample with the
//     defaulter (DefaultAsTheWebhook). A create-cronjob step the webhook's
//     absence refused (the manager has not started at 0 s) is applied again
//     a second later, as an applier retries (package cluster)
//     (TestASeedObjectIsNotAdmittedByTheWebhooks,
//     TestTheWebhooksDefaultAndValidate).
//   - No plan fails a Job (the workload faults podfail and crashloop are not
//     drawn here), so failed-history limits are not exercised; the workload
//     never deletes the CronJob (TestNoPlanFailsAJobOrDeletesTheCronJob).
//   - One CronJob per run, on a one-minute schedule. The package's own
//     explorations (Drive) make no schedule or spec changes during a run
//     other than the suspension that ends it; the operatortest call runs
//     operatortest's generated workload (spec changes, deletion,
//     re-creation), which forbid-never-overlaps judges by the policy in force
//     from a running Job's creation to the next one's
//     (TestARunHasOneCronJobOnAOneMinuteSchedule).
//   - At-rest properties are judged after the user suspends the CronJob: a
//     weakness that shows only while a CronJob keeps running at rest (no
//     suspension) is judged by the history properties, not by these
//     (TestTheAtRestPropertiesAreJudgedOnASuspendedCronJob).
//   - forbid-never-overlaps does not judge a Job made while an earlier one,
//     made before the policy became Forbid, still runs (the real CronJob
//     controller would wait for it); a policy changed by the user between the
//     operator's read and its create would otherwise be blamed on it
//     (TestForbidIsNotJudgedOverAJobMadeBeforeThePolicyBecameForbid).
package cronjob
