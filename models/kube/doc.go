// Package kube models the built-in controllers of kube-controller-manager that
// the seeds need, as controller-runtime reconcilers written against
// client.Client and an injected k8s.io/utils/clock, so that they run in the
// simulator (as process kube-controller-manager, cluster admin) and against a
// real API server alike:
//
//   - NamespaceController: the namespace lifecycle controller
//     (k8s.io/kubernetes@v1.37.1 pkg/controller/namespace and
//     deletion/namespaced_resources_deleter.go). A deleting Namespace is synced
//     GracePeriod (5s) after each of its events; it is moved to Terminating if
//     needed; pods go first; every object of the Content kinds is deleted with
//     background propagation; what remains is listed again; content with
//     finalizers gives the 15s estimate and a requeue after 8s; the deletion
//     conditions (NamespaceDeletionDiscoveryFailure ... NamespaceFinalizersRemaining)
//     are written with upstream's reasons and messages; an empty namespace is
//     finalized through the finalize subresource (the apiserver then deletes
//     it). Errors are retried with the controller's 5ms..60s limiter; 10
//     workers (--concurrent-namespace-syncs).
//   - GarbageCollector: the ownerReferences collector
//     (pkg/controller/garbagecollector, attemptToDeleteItem,
//     processDeletingDependentsItem, attemptToOrphanWorker): background,
//     foreground and orphan propagation, one controller per collected kind.
//
// What the plan varies: the namespace controller's deletion order (Shuffle, or
// Order), the time before each deletion (Delay) and a minimum time Terminating
// (MinTerminating).
//
// Controllers describes each model's controllers (name, watches with their
// handlers and predicates, workers, rate limiter, reconciler) so that a host registering controllers
// its own way wires them exactly as SetupWithManager does; both run on
// client-go's classic queue, as kube-controller-manager's controllers do.
//
// # Known gaps
//
//   - No discovery: the namespace controller deletes the kinds in Content and
//     the collector watches the kinds in Kinds, nothing else. Owners may be of
//     any kind in the scheme.
//   - Content is deleted by listing and deleting each object (upstream's
//     deleteEachItem path), not with one DeleteCollection call per kind; the
//     deletions of all kinds of one pass form one sequence so that Order and
//     Delay can interleave kinds. Upstream deletes kind by kind, each kind's
//     objects from the apiserver's parallel DeleteCollection workers.
//   - Pods' graceful termination estimate (estimateGracefulTerminationForPods)
//     is not modelled: pods count as content like any other; MinTerminating
//     stands in for slow content.
//   - The namespace controller's requeue on remaining content is
//     controller-runtime's RequeueAfter (which also Forgets the item's failure
//     count); upstream's worker calls AddAfter without Forget. Its queue has
//     the per-item limiter but not the 10 qps bucket (which reads the wall
//     clock). No periodic resync of Namespaces (upstream: every 5 minutes).
//   - The collector's graph is the informer cache (Graph): no virtual nodes, no
//     absent-owner cache, no cycle detection (the unblocking of ownerReferences
//     when a dependent is itself deleting dependents), and its lookups of
//     dependents scan the cache of every collected kind. Upstream runs 20
//     workers over two queues; here each kind has its own controller with one
//     worker, fed by a predicate on the item's owners, finalizers and
//     deletionTimestamp and by its owners' and dependents' events. Patches are JSON merge patches carrying the
//     resourceVersion (upstream tries a strategic merge patch first); a
//     cluster-scoped item with a namespaced owner is skipped, not reported.
//   - Neither model emits Events or metrics.
package kube
