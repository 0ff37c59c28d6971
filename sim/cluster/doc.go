// Package cluster binds the kernel into one simulated cluster running one plan:
// the apiserver model with the default namespaces, the processes (operators)
// with their caches, clients and controllers, the scheduler and virtual clock, the
// plan's workload actions and faults, and the trace.
//
// A run is a pure function of its plan and world: New(plan, options), then
// RunPhases: the fault phase, Heal, the heal budget (and, where Phases names
// them, the wait for retries in back-off since the faults and for work the
// world has scheduled past it, with a heal budget more), and the verdicts of
// the properties on the final state (Get, List) and the trace, plus the kernel's own
// (a hot loop, a livelock, a reconcile panic: KernelVerdicts; a panic's
// verdict carries its code location in Verdict.Where). The catalogue and
// examples run through it. CheckDeterminism runs a plan twice and names the
// first divergent step if the traces differ.
//
// Each workload step is one line of the trace (op action): "ok", "error: ..."
// or, when the world's action returns a *Pending (a user's retry that goes on
// by itself), "pending: ..."; a world records how such a step ends with
// RecordAction.
//
// # Time
//
// Nothing happens in zero time. Every API call of a process (a cached read stays
// in the process and takes none) spends a request latency before it commits and a
// response latency after, and every committed change reaches each informer a
// delivery time after its commit: Timing, drawn from the plan's seed on streams of
// their own ("call/<process>", "delivery/<process>/<kind>"). DefaultTiming was
// measured against envtest (figures on DefaultTiming): the write's event and its
// response race, so the writer's cache holds its own write at the response about
// half of the time, and a process's next reconcile sometimes sees its last write
// and sometimes does not. Latency faults add to the request leg and lag faults to
// the delivery time; Heal takes away what they add, never the defaults.
//
// A world's own draws (a model's delays, the order in which a controller of the
// world deletes) come from Stream, a stream of the plan's seed under a key of
// the world's, never from a generator of its own. The apiserver's suffixes of
// generated names come from the plan's seed too, unless Options.NamesSeed
// gives them another: they are the environment's randomness, which a test may
// hold fixed across schedules (operatortest does), while the schedule's draws
// (the scheduler, call latencies, deliveries, CRD establishment) stay the
// plan's.
//
// A stop fault (plan.Stop) stops its process cleanly at from, between
// reconciles (process.StopCleanly), and starts it again at until, whatever the
// heal: a downtime replayed from another run, with no crash in it.
//
// A stale fault (plan.Stale) crashes its process, whose next incarnation
// lists and watches through a lagging watch cache (informer.Stale: Age
// behind, or at rev=; of every kind, or of kind= alone). The heal ends it as
// it ends every fault: a stale view still in force catches up then
// (informer.Cache.CatchUp: its held-back events arrive at once; the trace
// says "catch-up"). A blind fault's stale start (a reference replaying
// another run's stale restart) ends at the heal too, and one that would
// start after the heal is fresh: a reference's fault phase is as long as the
// faulted run's, so the replay ends where the view it replays ended.
//
// # Hot loops
//
// A loop of API calls spends virtual time, so a hot loop is judged by its rate:
// a controller that reconciles one object, or a writer that writes one object,
// at least HotLoopRate (20) times in each virtual second for HotLoopSeconds (10)
// seconds in a row, in seconds in which the workload did not write that object
// and no watch of the cluster was stalled (a hold, or a stale restart's lagging
// watch cache not yet caught up), stops the run with a HotLoop naming the writer, the object and its last trace
// lines (RunPhases reports it as the property "hot-loop"). A storm in seconds
// with a stalled watch (a controller re-creating what the collector deletes,
// its cache behind an owner's deletion, as a real informer's stalled watch
// makes correct code do) is a note instead (StallStorms; the hot-loop verdict
// holds and says it), and a hot loop only if it goes on for HotLoopSeconds
// after the stall. The scheduler's
// step bound at one instant (a Livelock) remains as the harness's guard against
// tasks that spin without ever waiting.
//
// # The work bound
//
// No run may cost minutes: past Options.MaxSteps task steps
// (DefaultMaxSteps, 200,000), Options.MaxWrites writes committed
// (DefaultMaxWrites, 20,000) or with more than Options.MaxObjects objects in
// the apiserver (DefaultMaxObjects, 2,000) the run is cut where it is (Cut),
// is not judged, and its verdicts are the kernel's with a note, the property
// "work-bound", naming the storm (the busiest writer or reconciler of one
// object over its last trace steps, and whether a watch was stalled). A cut
// is never a violation: a storm a stalled watch drives is what correct code
// does on a real cluster too (a child re-created and collected again for 18 s
// took 34,000 steps here), and one that makes an object at every turn (a
// child of generated name its cache never shows) grows every later list and
// event; its harm shows in the runs that end. The bounds are measured
// against the largest legitimate runs (a catalogue entry: 3,665 steps).
//
// # Known gaps
//
//   - Workload actions and the Admin client act in the kernel: they are atomic
//     with respect to controllers (a user's kubectl call does not interleave with
//     a reconcile's calls inside one instant)
//     (TestAnAdminActionDoesNotInterleaveWithAReconcile).
//   - Heal removes every fault at once; there is no gradual recovery
//     (TestHealRemovesEveryFaultAtOnce).
//   - Timing is one distribution for every kind and verb class (read or write):
//     no list cost that grows with the result, no slower writes of large objects,
//     no apiserver load or priority and fairness; draws are independent (no
//     congestion). Watch delivery to different informers is drawn per informer,
//     from one stream per process and kind: the informers of one kind in
//     different forms (typed, unstructured, metadata) share it
//     (TestTimingIsOneDistributionPerLegForEveryKind).
//   - The hot-loop bound is a fixed rate: a controller that legitimately polls one
//     object faster than 20 times a second for 10 s is reported, and a loop slower
//     than that (a status write every 100 ms for ever) is not. A loop that
//     starts while a watch is stalled is reported only HotLoopSeconds after
//     the stall ends (at the heal at the latest): a heal budget shorter than
//     that misses it. Informer lag does not count as a stall (a stale
//     restart's view does, until it catches up: at its end or the heal)
//     (TestAPollerIsAHotLoopOnlyAboveTheBound).
//   - No built-in models (namespace controller, garbage collector): worlds that
//     need them run models/kube's controllers in a process of their own
//     (SetupWithManager on its manager)
//     (TestNoGarbageCollectorOrNamespaceControllerRunsByItself).
package cluster
