// Package orphanchild is the smallest operator whose finalizer finds the
// children to delete in its cache: a simple bug that
// a random search misses within its default budget from some seeds.
//
// A Site publishes its greeting as a page, the ConfigMap <name>-page,
// labelled with the Site's name. The operator adds its finalizer first; when
// the Site is deleted it lists the Site's pages by label, deletes them, and
// removes the finalizer.
//
// The buggy twin (Buggy) gives the page no owner reference: the finalizer's
// list, from the informer's cache, is all that ever deletes it. A page
// created a moment before the Site's deletion, or while the operator's
// ConfigMap watch is stalled or lagging, is not in that list yet: the
// finalizer goes, the Site goes, and the page stays for ever (converges:
// the fault-free run ends with no page). The correct operator makes the
// page with the Site as its controller owner, so the garbage collector
// deletes whatever the finalizer's list missed; listing live (the
// manager's APIReader) before removing the finalizer is the other fix.
//
// Real operators delete children by label from a finalizer where an owner
// reference cannot reach or is not wanted: a database operator deleting
// the PersistentVolumeClaims of a deleted cluster (a StatefulSet's claims
// have no owner; pravega/zookeeper-operator's finalizer lists them by the
// cluster's labels), an operator cleaning up objects it made in another
// namespace.
//
// The test (orphanchild_test.go) runs the workload as a script (the Site
// created at 0 s, deleted at 5 s): the hand plan `hold process=op
// kind=/v1/ConfigMap from=0s until=10s` (the ConfigMap watch stalled across
// the page's creation and the deletion) leaks the page on the buggy
// operator and holds on the correct one; TestTheSearchFindsTheLeak explores
// with default Options from explorer seeds 1-5 (not with -short), and the
// correct operator holds the search (1,000 plans in make long).
//
// # Known gaps
//
//   - It is a teaching example: no status, no Events
//     (TestTheOperatorWritesNoStatusAndNoEvent).
package orphanchild
