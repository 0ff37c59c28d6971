// Package twomanagers is the smallest pair of operators that write
// different keys of one object: for each Gateway, the dns manager writes
// status.address and the tls manager status.certificate, both derived from
// spec.host. They are two Deployments (two processes), each with its own
// cache; each writes its key alone, with a JSON merge patch that holds that
// key only, so that neither can overwrite the other's. Both reconcile on
// spec changes only (GenerationChangedPredicate), as operators that write
// status usually do. The patch carries the resourceVersion it was computed
// from (an optimistic lock): a key derived from a spec.host the cache shows
// from the past (a restart onto a lagging apiserver) is refused with a
// conflict and computed again, where an unguarded patch would write the old
// host's key after the new one, and the status change it makes, filtered as
// no spec change, would never bring the manager back (the suite's 1,000
// plans found this in the operators as first written: reports/falsealarms.md).
//
// The pattern's trap for a test harness: the two writers interleave
// differently in every run.
//
// The buggy twin (Buggy, for the tls manager) patches the whole status it
// read from its cache, unguarded: when that copy does not show the dns manager's last
// address yet, the patch puts the old address back, and the dns manager,
// which reacts to spec changes only, never notices.
//
// # Known gaps
//
//   - Status only; two managers sharing labels, annotations or spec fields
//     (server-side apply's field managers) are not shown
//     (examples/patterns.TestTwoManagersWriteOnlyStatus).
package twomanagers
