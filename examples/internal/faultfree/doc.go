// Package faultfree replays an example operator's fault-free run, for the
// tests that show an example's Known gaps as they are today: Replay runs
// the operator's Options on plan seed 1 with no fault, the workload's
// script its only steps (no drawn step), and NoWrite fails the test when
// the operator's process writes what a gap says it does not (an Event, a
// status).
//
// # Known gaps
//
//   - NoWrite reads the trace's writes by their operation and object
//     ("create Event shop/web.1"), not what they changed: a finalizer added
//     by an update, or a field of a status written with the whole object,
//     is not told apart from any other update (TestAFinalizerIsAnUpdateLikeAnyOther).
package faultfree
