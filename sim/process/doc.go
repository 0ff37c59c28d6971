// Package process runs controllers inside the simulator: a Process is an operator
// pod (an identity, an informer cache, a client, controllers and a lifetime) and a
// Controller is a controller registered on it with a Builder that mirrors
// controller-runtime's (For, Owns, Watches, predicates, options).
//
// # Contract
//
//   - Events reach controllers through controller-runtime's own handler and
//     predicate packages, adapted from informer notifications exactly as
//     controller-runtime's internal source EventHandler does.
//   - Workers run controller-runtime's processNextWorkItem loop and
//     reconcileHandler (v0.25.2): error -> AddRateLimited; TerminalError -> drop;
//     RequeueAfter -> Forget + AddAfter; Requeue -> AddRateLimited; success ->
//     Forget; a panic is recovered into an error (RecoverPanic) and recorded as a
//     Finding. The queue is controller-runtime's priority queue unless
//     Options.UsePriorityQueue is false (client-go's classic queue), both on
//     virtual time (package queue).
//   - Every client call is a yield point. A cached read only yields; an API call
//     sleeps for its request latency, runs, is traced, then sleeps for its
//     response latency (Injector.CallLatency): a crash in the response window
//     leaves a committed write its caller never saw succeed. The call number
//     counts over the whole run, and a crash planned at call N happens instead of
//     call N.
//   - GetEventRecorderFor gives client-go's EventRecorder: an Event is written by
//     the process after the call returns (from the kernel, at the same virtual
//     instant), as a traced API call, and is lost if the process dies first.
//   - Crash and Exit stop the process at once: in-flight reconciles are killed (no
//     later or deferred call reaches the apiserver), the cache and queues are
//     dropped, and the process restarts after the kubelet's CrashLoopBackOff delay
//     (10s doubling to 5m, reset after 10m of running) with an empty cache that
//     relists, running Setup again.
//   - A process bound to a Deployment runs while the Deployment exists and is not
//     being deleted, and stops (without restart) when it goes.
//   - Every call, reconcile, result, crash and restart is a trace step attributed
//     to process, controller, worker and reconcile number; so is every line a
//     reconciler logs through the context's logger (logf.FromContext) at level 0
//     or as an error (step "log"; V(1) and beyond are dropped, as
//     controller-runtime's default production logger drops them).
//
// # Known gaps
//
//   - Controllers are registered with this package's Builder, not by running an
//     unmodified SetupWithManager: controller-runtime's manager starts goroutines
//     the scheduler cannot schedule. Scenarios register the same reconciler, watches
//     and predicates as the controller's SetupWithManager does.
//   - Events are not aggregated or rate-limited (client-go's EventCorrelator
//     patches Count on repeats); each Event call writes a new Event.
//   - No leader election, no graceful shutdown (a stopped pod's in-flight reconciles
//     are killed at once rather than given the termination grace period), no
//     reconciliation timeout, no metrics, no warm-up, no Cache options (ByObject,
//     DefaultNamespaces); Owns always uses OnlyControllerOwner.
//   - A process has one cache and one client; clients with different identities
//     inside one process are not modelled.
package process
