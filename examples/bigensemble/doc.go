// Package bigensemble is examples/scaledown's bug at the size of a real
// operator (the second bug at that size the search must find at a median
// plan of at most 30): a scale-down recorded in status,
// then a scale-up, and a restarted operator whose view is frozen at the
// scale-down deletes the data of the member made again; in an operator
// that writes as much as a real one, so that the fault-free run gives the
// sweep over a thousand stale pairs.
//
// An Ensemble of spec.members members (at most 5) gets, for each member i,
// a volume claim <name>-data-<i> (labelled with the Ensemble and the
// ordinal, owned by nothing, as a StatefulSet's claims are not), a
// ConfigMap <name>-<i>-config and a Service <name>-<i> (both owned by the
// Ensemble), and a headless Service <name>. The operator records a
// scale-down in status.members before it acts on it, then deletes the
// members beyond it (their claim, ConfigMap and Service); a scale-up makes
// the new members, writing status.readyMembers as each one is made, then
// records status.members.
//
// The user creates five members, scales down to four at 5 s and up to five
// again at 20 s. A restarted operator whose cache of Ensembles is frozen at
// the status write that recorded the scale-down, its cache of claims
// fresh, sees member 4's new claim beyond four members: the buggy twin
// (Buggy) deletes it. The correct operator confirms live that the member
// is gone, in spec and in status, before it deletes a member's claim, and
// deletes with a uid precondition; both make a member only for the live
// Ensemble's members. The author's property LiveMembersKeepTheirData
// catches it (bigensemble_test.go).
//
// # Known gaps
//
//   - The members are objects only: no StatefulSet, no pods
//     (TestMembersAreObjectsOnly).
package bigensemble
