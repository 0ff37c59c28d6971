// Package ownedchildren is the smallest operator with owned children: a
// Website gets a ConfigMap (its title) and a Service (its port), both named
// after it and controlled by it, so that the garbage collector deletes them
// with it.
//
// The pattern's trap for a test harness: when the workload deletes the
// Website, the operator's cache may still show it for a moment, and its
// reconcile re-creates a child the garbage collector has just deleted; the
// collector deletes it again. Every operator that owns children does this on
// a real cluster.
//
// The buggy twin (Buggy) creates each child without its owner reference and
// adds the reference in a second write, as code that adopts children does: a
// process that dies between the two leaves an unowned child, which the
// restarted operator finds and keeps, and which outlives its Website.
//
// # Known gaps
//
//   - No status: the children's existence is the whole of the operator's work
//     (examples/patterns.TestOwnedChildrensWebsiteHasNoStatus).
package ownedchildren
