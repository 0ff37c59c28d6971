// Package statefulset is the smallest operator of the most common operator
// shape: a Cache runs as a StatefulSet of spec.replicas pods of its
// spec.version, named <name>, whose pods have stable names and DNS entries
// through a headless Service of the same name (clusterIP None, the
// StatefulSet's serviceName), both owned by the Cache; status.readyReplicas
// mirrors the StatefulSet's ready pods. The operator watches the
// StatefulSets it owns, so that the status follows the pods as they start.
//
// The pattern's trap for a test harness: a headless Service has no cluster
// IP (the apiserver must accept clusterIP None and allocate nothing), the
// StatefulSet's pods and their ControllerRevisions are made by built-in
// controllers, and the pods' readiness comes at the kubelet's pace.
//
// With Parallel the StatefulSet starts its pods all at once
// (podManagementPolicy Parallel), so that the order in which they are made
// and become ready is the schedule's: kube-controller-manager gives each pod
// both a generateName and its ordinal name, and only a name the apiserver
// drew from a generateName may be compared by its place among its kind
// (operatortest/canon's generated names), never an ordinal one.
//
// Its pods get 2m to stop (terminationGracePeriodSeconds 120: a cache
// saves its data when it stops). A container stops in seconds on SIGTERM
// unless the test names it in Options.IgnoreSIGTERM; the back-off tests
// (examples/patterns' backoff_test.go) do, so that a deleted pod stays
// Terminating for its whole grace and the StatefulSet controller, whose
// creates of the re-created Cache's pods meet it, backs off past the run's
// end.
//
// The buggy twin (Buggy) does not watch the StatefulSets it owns (the
// builder's Owns is left out, a common kubebuilder slip): its status is
// written when the Cache changes and then stays as it was, so that it shows
// the ready pods of whenever the operator last had a reason to look (an
// error's retry, a restart's relist), not the StatefulSet's.
//
// # Known gaps
//
//   - No volumeClaimTemplates (the model has no PersistentVolumeClaims'
//     binding), no update strategy, no PodDisruptionBudget
//     (examples/patterns.TestStatefulSetCacheHasNoClaimsNoUpdateStrategyNoDisruptionBudget).
package statefulset
