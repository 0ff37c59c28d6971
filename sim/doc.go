// Package sim is the deterministic kernel of ctrlsim: everything a simulated
// cluster is made of, with time and randomness as inputs. Its packages, from
// the bottom up: the order of their imports, floor by floor as docs/design.md
// states it ("Floors inside sim/ and operatortest/"; internal/lint holds
// every import to it and this list to its order). A package imports only
// packages listed on a floor below its own.
//
// Floor 1, importing no package of sim/:
//   - clock: the virtual clock (k8s.io/utils/clock.WithTicker on a timer heap).
//   - rng: one seed, keyed sub-streams.
//   - rbac: the RBAC authorizer the apiserver model consults on every request.
//   - forms: typed, unstructured and metadata-only forms of an object.
//   - trace: one canonical line per step, the trace hash, text timelines.
//   - queue: client-go's workqueue and controller-runtime's priority queue on
//     virtual time.
//   - patch/internal/handlers: the one type whose Go name a real
//     kube-apiserver patch error shows, so that the error reads the same.
//
// Floor 2:
//   - patch: how a PATCH request computes the patched object (merge, strategic
//     merge, JSON patch) on patch/internal/handlers.
//   - scheduler: the cooperative scheduler: one goroutine runs at a time, the
//     plan picks which.
//
// Floor 3:
//   - apiserver: the API-server model (storage, strategies, admission, RBAC, CRD
//     schemas, server-side apply and managedFields, watch log, injected faults).
//
// Floor 4:
//   - apiserver/apiservertest: a test custom resource and a ready scheme.
//   - plan: plans (seed, workload, faults), their text form and generators.
//   - informer: the lagging informer caches of a process.
//   - kubeclient: the controller-runtime client.Client of a process.
//
// Floor 5:
//   - restapi: the Kubernetes REST API of the apiserver model, in-process
//     (a process's rest.Config: client-go's clientsets, dynamic and discovery
//     clients work on it).
//   - check: the properties judged over a run.
//
// Floor 6:
//   - process: operator pods, each with a controller-runtime manager.Manager
//     hosting controller-runtime's own controllers, and leader election;
//     crashes and restarts.
//
// Floor 7:
//   - cluster: one world running one plan; phases, timing, hot loops,
//     determinism check.
//
// Floor 8:
//   - explore: search plans with rapid and shrink, without failing the caller.
//
// Rules for every package here (checked by internal/lint): no wall clock, no
// global math/rand, no goroutines outside the scheduler, no output or decision that
// depends on map iteration order, no imports of project packages outside sim/.
//
// # Known gaps
//
// Each package lists its own; this package has no code. What the kernel as a
// whole does not model (clock skew between processes, message loss between the
// apiserver and a cache: sim/clock's and sim/plan's) is in the doc.go of the
// package that would model it.
package sim
