// Package mapports is a small operator that ranges over a Go map to render
// what it writes, tested end to end with package operatortest: for each
// ConfigMap labelled mapports.ctrlsim.dev/app (its data a map of port name
// to port number) it makes a Service of the same name whose ports it builds
// by ranging over the ConfigMap's data, then a ConfigMap <name>-ports that
// lists them as text, in the same order.
//
// Go map iteration order is random, so the order of the Service's ports and
// of the list differs between two runs of one plan: a no-op update in one
// run is a real write (a resourceVersion bump) in another, and every later
// resourceVersion shifts. That is the operator's own nondeterminism, not a
// bug a fault shows: the exploration says so once, naming the fields, and
// judges a replay modulo the fields Options.Nondeterministic declares
// (Sorted: the operator sorts, and is deterministic).
//
// With a pod the Service selects, kube-controller-manager's EndpointSlice
// controller copies the Service's ports into the slice's in the order the
// operator wrote them, and the kubelet's Events name the pod at a
// resourceVersion the Service's writes shift: what the cluster carries on
// from the operator's map order is the operator's, said once as carried,
// and a correct operator whose list is declared passes
// (TestWhatTheClusterCarriesOnFromTheMapOrderIsTheOperators).
//
// The buggy reconciler (Fixed false) takes the Service, made first, as
// proof that the list exists too: a crash between the two writes leaves
// the list missing for ever, which converges catches.
//
// # Known gaps
//
//   - It is a teaching example: no status, no Events, no finalizer; a port
//     that is not a number is left out without a word
//     (TestAPortThatIsNotANumberIsLeftOutWithoutAWord).
package mapports
