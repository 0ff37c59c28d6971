// Package binding is the smallest operator that records a binding in status
// only once a reconcile has made everything: a Store runs as a StatefulSet
// (the user's override of its podManagementPolicy passed as it is, as in
// the invalid-override pattern), and its credentials are a Secret that an
// application binds to; status.binding names the Secret (the Service
// Binding specification's provisioned service) once both the Secret and the
// StatefulSet are written, so that an application binds to a store that is
// there, and sets its Ready condition True. A reconcile that fails (the
// apiserver refuses the user's value) records no binding, sets Ready False
// with the error as its message, and retries until the user fixes the
// value.
//
// The pattern's trap for a test harness: a user's invalid edit races the
// operator's first complete reconcile. A fault-free run whose operator got
// through one reconcile before the edit landed recorded the binding, and
// fails on the edit from then on; a run whose operator a fault slowed past
// the edit never got through one, fails the same way, and has no binding;
// and a run whose operator made the StatefulSet before the edit but did not
// get to the binding (a crash) matches neither: its Ready message is the
// update's refusal, not the create's that a late operator meets.
// Both end failing on the user's value with what the last reconcile that
// got through left: the binding is a field only a complete reconcile
// writes, frozen as the failing reconcile's outputs are (operatortest's
// frozen outputs).
//
// The buggy twin (Buggy) records the binding only in the reconcile that
// created the Secret (an edge, not the level): a crash after the Secret is
// made, or a StatefulSet write that fails once, and no later reconcile
// records it, so that an application waits for a binding for ever.
//
// # Known gaps
//
//   - The Secret holds no password (the password pattern shows one), and no
//     Service is made for the host it names
//     (examples/patterns.TestCompleteBindingsSecretHoldsNoPasswordAndNoServiceIsMade).
package binding
