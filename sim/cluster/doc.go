// Package cluster binds the kernel into one simulated cluster running one plan:
// the apiserver model with the default namespaces, the processes (operators)
// with their caches, clients and controllers, the scheduler and virtual clock, the
// plan's workload actions and faults, and the trace.
//
// A run is a pure function of its plan and world: New(plan, options), RunFor the
// fault phase, Heal, RunFor the heal budget, then check properties on the final
// state (Get, List) and on the trace. CheckDeterminism runs a plan twice and names
// the first divergent step if the traces differ.
//
// # Known gaps
//
//   - Workload actions and the Admin client act in the kernel: they are atomic
//     with respect to controllers (a user's kubectl call does not interleave with
//     a reconcile's calls inside one instant).
//   - Heal removes every fault at once; there is no gradual recovery.
//   - No built-in models (namespace controller, garbage collector): worlds that
//     need them add them as processes (package models, a later issue).
package cluster
