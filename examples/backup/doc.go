// Package backup is the smallest kubebuilder-style backup scheduler: a
// Backup gets a Job each minute, counted from the Backup's creation (slot
// 1 at one minute, slot 2 at two, ...), and records the last slot it
// scheduled in its status. A slot missed while the operator was down is
// scheduled when it comes back, one reconcile a slot.
//
//   - The buggy operator (Buggy) creates each slot's Job with a generated
//     name and writes the slot in status after: a process that dies between
//     the create and the status write (an OOM kill, a node lost) comes back
//     to a status that does not have the slot, and creates a second Job for
//     it. Its first write comes at 1m0.002s, after the first minute the
//     fault phase used to be: the default fault phase now lasts past the
//     first write of each kind the operator makes (package search's
//     phase.go), and a default exploration catches it (converges: one Job
//     too many).
//   - The correct operator names each slot's Job by the slot
//     (<backup>-<slot>): the same slot's create, made again, meets
//     AlreadyExists, and one slot is one Job however often it is tried.
//
// # Known gaps
//
//   - A teaching example: no history limit (every slot's Job is kept), no
//     Events, no finalizer, no spec (what a Job backs up is the Backup's
//     name) (TestTheOperatorKeepsEveryJobAndHasNoFinalizer).
package backup
