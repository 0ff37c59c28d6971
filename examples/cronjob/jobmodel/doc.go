// Package jobmodel is a small, replaceable stand-in for kube-controller-manager's
// Job controller: it runs batch/v1 Jobs to completion on the simulator's virtual
// clock, so that a CronJob controller has Jobs that start, run for a while and
// finish.
//
// A Job starts when the model first sees it (status.startTime = now,
// status.active = 1) and completes a fixed duration after its creation: N
// seconds when its pod template's first container runs "sleep N" (in its
// command or arguments, as "/bin/sh -c 'sleep 90; date'" does), else
// Reconciler.Default. The duration is read from the pod spec, not from an
// annotation, because a CronJob's jobTemplate.metadata is pruned by
// kubebuilder's generated CRD schema (metadata: {type: object}), as
// kube-apiserver prunes it. Completion writes what the real Job controller
// writes on success: the SuccessCriteriaMet and Complete conditions,
// succeeded = 1, active = 0, completionTime.
//
// The model is a controller-runtime reconciler with its own SetupWithManager,
// run as a process of its own (by convention "kube-controller-manager"), with the
// process's injected clock (process.Process.Clock): faults can lag, hold or crash
// it as they do any process.
//
// # Known gaps
//
// A real Job model is a later issue. This one has:
//
//   - no Pods: no parallelism, completions, backoffLimit, activeDeadlineSeconds,
//     podFailurePolicy or suspend; no Job ever fails (a Failed condition is
//     never written), so failed-history limits are never exercised;
//   - no ready/terminating counters, no uncountedTerminatedPods, no finalizers
//     on Pods, no job-tracking annotations;
//   - no TTL-after-finished controller and no garbage collector: Jobs of a
//     deleted CronJob stay;
//   - deletion is immediate (no graceful termination of the Job's Pods), so a
//     Job deleted by a Replace policy or a history limit stops being active at
//     once;
//   - a Job is due at creation + duration; the model completes it when it
//     reconciles at or after that instant and stamps its own clock's now, so a
//     lagging or crashed model completes Jobs late (as a slow real controller
//     would).
package jobmodel
