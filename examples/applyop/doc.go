// Package applyop is the smallest operator that writes with server-side
// apply as real operators do, tested end to end with package operatortest:
// for each ConfigMap labelled applyop.ctrlsim.dev/app it applies a child
// ConfigMap <name>-rendered holding the app's data (owned by the app), then
// applies the app's phase annotation (applyop.ctrlsim.dev/phase: Ready), both
// with controller-runtime's Apply, apply configurations, its field manager
// "applyop-controller" and ForceOwnership.
//
// The buggy reconciler forgets that apply creates what is missing. Its
// phase apply names the app by namespace and name only: when the user
// deletes the app between the reconciler's read (its cache) and that apply,
// the apply creates the app again, an app with nothing but the phase
// annotation, which no one asked for. The fixed one puts the app's uid in the
// apply configuration, which makes it a precondition: the apply of a deleted
// app is then a 409 ("uid mismatch") and the reconcile ends when the next one
// finds the app gone. Whether the delete lands between the read and the apply
// is a race: operatortest finds it as two fault-free schedules of one
// workload that disagree (interleavings-agree) or a faulted run that ends
// otherwise than the fault-free ones (converges), within a few plans
// (TestTheRecreationIsFoundAndTheFixHolds); the fixed operator holds with
// default options.
//
// # Known gaps
//
//   - It is a teaching example: the phase lives in an annotation (a ConfigMap
//     has no status), no Events, no finalizer
//     (TestThePhaseIsAnAnnotationAndNoEventOrFinalizerIsWritten).
package applyop
