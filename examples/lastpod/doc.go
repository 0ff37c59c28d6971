// Package lastpod is the smallest operator that scales down "the last pod"
// of its cache's list: a published bug of a database
// operator, reachable in ctrlsim only with 11 replicas while its lists came
// sorted by name ("pool-10" sorts before "pool-9", so the last pod was not
// the highest ordinal only from 11 pods on).
//
// A Pool runs spec.replicas pods, <name>-0 to <name>-<replicas-1>, labelled
// with the Pool and the ordinal and owned by it. The operator makes the
// missing ones and, with a pod too many, deletes one: the correct operator
// the pod of the highest ordinal, the buggy twin (Buggy) the last pod of
// the list its cache returns. A real informer's list comes in Go map order;
// ctrlsim's comes in a shuffle drawn from the plan (package informer's
// WithListOrder), the same in every run of a plan. So with two replicas
// scaled down to one, the twin deletes pod 0 in about half of the plans.
// Both make a pod only for an ordinal the live Pool has (the manager's
// APIReader): a restart onto a view frozen before the scale-down would
// make pod 1 again, to delete it once the view catches up, which
// update-summaries reports (the sweep's ranked plans reach that view at
// plan 14; it was plan 70 of the unranked sweep).
//
// The author's property MembersKeepTheirPods catches it from the watch log
// (a pod is deleted only while its ordinal is at or beyond its Pool's
// spec.replicas as last committed, or its Pool is gone).
//
// # Known gaps
//
//   - A teaching example: no volumes, no readiness, no status
//     (TestPodsHaveNoVolumesAndThePoolNoStatus).
package lastpod
