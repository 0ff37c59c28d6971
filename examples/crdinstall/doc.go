// Package crdinstall is the smallest platform operator that installs its own
// CustomResourceDefinition at run time: a Runnable builds the apiextensions
// clientset and the dynamic client from mgr.GetConfig(), creates the Gadget
// CRD, waits for it to be Established (wait.PollUntilContextTimeout, in
// virtual time), creates a default Gadget through the dynamic client and then
// starts a controller for the new kind. Its test (operatortest) catches the
// variant that does not wait: its first Gadget request is answered 404, as
// kube-apiserver answers it until the CRD's controllers have accepted its
// names, and the operator exits.
//
// # Known gaps
//
//   - The default Gadget is made once, by the installer at start: deleted
//     by a user, it stays deleted until the operator restarts
//     (TestTheDefaultGadgetIsMadeOnceAtStart).
package crdinstall
