// Package sim is the deterministic kernel of ctrlsim: everything a simulated
// cluster is made of, with time and randomness as inputs. Its packages, from
// the bottom up:
//
//   - clock: the virtual clock (k8s.io/utils/clock.WithTicker on a timer heap).
//   - rng: one seed, keyed sub-streams.
//   - rbac: the RBAC authorizer the apiserver model consults on every request.
//   - patch: how a PATCH request computes the patched object (merge, strategic
//     merge, JSON patch); patch/internal/handlers holds upstream's handlers.
//   - forms: typed, unstructured and metadata-only forms of an object.
//   - apiserver: the API-server model (storage, strategies, admission, RBAC, CRD
//     schemas, watch log, injected faults); apiserver/apiservertest a test
//     custom resource and a ready scheme.
//   - informer: the lagging informer caches of a process.
//   - kubeclient: the controller-runtime client.Client of a process.
//   - queue: client-go's workqueue and controller-runtime's priority queue on
//     virtual time.
//   - scheduler: the cooperative scheduler: one goroutine runs at a time, the
//     plan picks which.
//   - process: operator pods, each with a controller-runtime manager.Manager
//     hosting controller-runtime's own controllers; crashes and restarts.
//   - plan: plans (seed, workload, faults), their text form and generators.
//   - trace: one canonical line per step, the trace hash, text timelines.
//   - cluster: one world running one plan; phases, timing, hot loops,
//     determinism check.
//   - check: the properties judged over a run.
//   - explore: search plans with rapid and shrink, without failing the caller.
//   - story: a run laid out for a reader (the catalogue's SVG pictures and the
//     HTML run inspector).
//
// Rules for every package here (checked by internal/lint): no wall clock, no
// global math/rand, no goroutines outside the scheduler, no output or decision that
// depends on map iteration order, no imports of project packages outside sim/.
//
// # Known gaps
//
// Each package lists its own; this package has no code. What the kernel as a
// whole does not model (server-side apply, clock skew between processes, leader
// election, message loss between the apiserver and a cache) is in the doc.go of
// the package that would model it.
package sim
