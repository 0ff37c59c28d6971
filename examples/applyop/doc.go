// Package applyop is the smallest operator that writes with server-side
// apply as real operators do, tested end to end with package operatortest:
// for each ConfigMap labelled applyop.ctrlsim.dev/app it applies a child
// ConfigMap <name>-rendered holding the app's data (owned by the app, field
// manager "applyop-controller"), then applies the app's phase annotation
// (applyop.ctrlsim.dev/phase: Ready). When the child's apply fails, it records
// phase Failed with an Update (the write code had before it moved to apply)
// and retries. The phase's apply carries the app's uid: without it, an apply
// made after the app was deleted would create it again (operatortest's
// interleavings-agree oracle found that race in the first version of this
// example: one fault-free schedule ended with the app, the other without).
//
// The buggy reconciler applies without ForceOwnership. After a failure its
// own Update owns the phase annotation (its manager is the process's
// User-Agent, Operation Update), so every later apply of phase Ready is a 409
// conflict with that manager: the app stays Failed and the reconciler errors
// for ever. The fixed one forces, as the server-side apply documentation asks
// of controllers, and takes the field back. Only a failed apply (an API error,
// a timeout) leads there: the fault-free runs never write phase Failed, so the
// generic converges oracle finds the bug (TestTheConflictIsFoundAndTheFixHolds).
//
// # Known gaps
//
//   - It is a teaching example: the phase lives in an annotation (a ConfigMap
//     has no status), no Events, no finalizer.
package applyop
