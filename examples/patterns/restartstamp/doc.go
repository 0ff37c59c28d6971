// Package restartstamp is the smallest operator whose pod template is
// stamped with a restart time: a Broker runs as a StatefulSet that mounts
// its configuration from a ConfigMap, and since a ConfigMap's change does
// not change the pod template (the kubelet refreshes the mounted file, the
// broker reads it at start only), the operator restarts the pods on a
// configuration change by writing the instant of the change into the
// template's kubectl.kubernetes.io/restartedAt annotation, as `kubectl
// rollout restart` does. The StatefulSet records, in the same write, the
// configuration the restart was for (an annotation of its own, absent on a
// new StatefulSet, whose template is stamped with its start), so that the
// decision is level-triggered; status.appliedConfig mirrors it.
//
// The pattern's trap for a test harness: the restart time is the operator's
// clock, which differs between two schedules of one workload, and the
// statefulset controller names each ControllerRevision, and labels each pod
// (controller-revision-hash), by a hash of the template with the time in
// it, and the StatefulSet's status names the current and updated revision:
// a name derived from a nondeterministic value is nondeterministic too, and
// must be compared by what it digests (operatortest's equivalence), not by
// its text.
//
// The buggy twin (Buggy) stamps a new restart time at every reconcile, not
// only on a change of the configuration (the time makes the desired
// template differ from the stored one every time): every reconcile after a
// second has passed rolls the pods again, and the rollout's own status
// changes wake the next reconcile, so that the pods roll for ever.
//
// # Known gaps
//
//   - No headless Service (the StatefulSet names one that does not exist:
//     the model needs none), no volumeClaimTemplates, no readiness
//     (examples/patterns.TestRestartStampsStatefulSetNamesAMissingServiceAndHasNoClaims).
package restartstamp
