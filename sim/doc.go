// Package sim is the deterministic kernel of ctrlsim: everything a simulated
// cluster is made of, with time and randomness as inputs.
//
//   - clock: the virtual clock (k8s.io/utils/clock.WithTicker on a timer heap).
//   - rng: one seed, keyed sub-streams.
//   - apiserver: the API-server model (storage, strategies, admission, RBAC, watch log, faults).
//   - rbac: the RBAC authorizer the apiserver model consults on every request.
//   - patch: how a PATCH request computes the patched object.
//   - informer: the lagging informer caches of a process.
//   - kubeclient: the controller-runtime client.Client of a process.
//
// Rules for every package here (checked by internal/lint): no wall clock, no
// global math/rand, no goroutines outside the scheduler, no output or decision that
// depends on map iteration order, no imports of project packages outside sim/.
//
// # Known gaps
//
// The scheduler, workqueue, controller runtime, plans and traces are not written yet
// (issue 3); until then reconcilers cannot run inside the kernel.
package sim
