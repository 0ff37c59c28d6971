// Package kcm hosts kube-controller-manager's own controllers
// (k8s.io/kubernetes@v1.37.2 pkg/controller) in a simulated world, unmodified,
// on the client-go seam of package process: Setup builds them in the
// kube-controller-manager process as kube-controller-manager's
// StartControllers does, with a clientset on the process's REST config (every
// request a traced call of the process: latency, faults, crash points) and
// one shared informer factory (process.NewInformerFactory: its reflectors
// list and watch the process's own informers, with the plan's lag, holds,
// relists and stale restarts). Each controller's Run runs in a goroutine that
// joins the process before it runs, and its workers, informer handlers and
// event broadcaster become tasks of the process at their first call in: they
// run when the plan picks them and are frozen with a crash; the restarted
// process builds the controllers again on an empty cache.
//
// Hosted (Controllers):
//
//   - replicaset-controller: NewReplicaSetController, burst
//     replicaset.BurstReplicas, 5 workers (--concurrent-replicaset-syncs):
//     adoption and release of pods, slow-start creates and the ranked
//     choice of pods to delete (each create and delete a goroutine of its
//     own, a task at its first request), expectations, the consistency
//     store (StaleControllerConsistencyReplicaSet), status.
//     TestAReplicaSetAdoptsAndReleasesPods, TestAReplicaSetScaleDeterminism.
//   - deployment-controller: NewDeploymentController, 5 workers
//     (--concurrent-deployment-syncs): ReplicaSets named by the template
//     hash, rolling update and recreate, revisions and their annotations,
//     conditions and progress deadlines, scaling, rollback history.
//     TestADeploymentRollsOutThroughItsReplicaSets,
//     TestADeploymentRolloutDeterminism; operatortest/kubeworld's
//     TestDeploymentRolloutHosted, TestRollingUpdateKeepsItsBoundsHosted and
//     TestRecreateWaitsForTheOldPodsHosted run the models' behaviour tests on
//     both (their expectations unchanged).
//   - job-controller: NewController without the WorkloadWithJob gate
//     (alpha; no Workload or PodGroup informer), 5 workers
//     (--concurrent-job-syncs) and 5 orphan-pod workers: pods with the
//     batch.kubernetes.io/job-tracking finalizer, uncountedTerminatedPods,
//     backoff, success and failure policies, indexed completion, the
//     finalizer removed from a deleted Job's pods.
//     TestAJobCompletesAndItsOrphansAreReleased, TestAJobDeterminism;
//     kubeworld's five Job*Hosted behaviour tests (expectations unchanged).
//   - statefulset-controller: NewStatefulSetController, 5 workers
//     (--concurrent-statefulset-syncs): adoption and release of pods
//     (ControllerRefManager.ClaimPods), ControllerRevision history, claims
//     and their retention policy, the consistency store of v1.37
//     (StaleControllerConsistencyStatefulSet), events; OrderedReady and
//     Parallel pod management (Parallel's slowStartBatch creates and deletes
//     from goroutines of its own, which join the process as tasks at their
//     first request). TestARecreatedStatefulSetAdoptsItsOrphanedPod,
//     TestAStatefulSetRollingUpdateDeterminism.
//   - persistentvolumeclaim-protection-controller:
//     NewPVCProtectionController, one worker, as kube-controller-manager runs
//     it: removes kubernetes.io/pvc-protection (which the apiserver model's
//     StorageObjectInUseProtection admission gives every claim) from a
//     deleting claim once no pod uses it (it also adds the finalizer to a
//     claim created before it started).
//     TestADeletedClaimInUseStaysUntilItsPodIsGone,
//     TestADeletedClaimInUseDeterminism.
//   - persistentvolume-protection-controller: NewPVProtectionController,
//     one worker: removes kubernetes.io/pv-protection (the same admission
//     plugin gives it every PersistentVolume) from a deleting volume that is
//     not Bound. Without it a world that held claims (the admission on) and
//     deleted a PersistentVolume kept it Terminating for ever.
//     TestADeletedBoundVolumeStaysUntilReleased,
//     TestADeletedVolumeDeterminism.
//   - serviceaccount-controller: NewServiceAccountsController with
//     DefaultServiceAccountsControllerOptions, one worker: every active
//     namespace's default ServiceAccount, made again when deleted.
//   - root-ca-certificate-publisher-controller: NewPublisher, one worker:
//     every namespace's kube-root-ca.crt ConfigMap (ca.crt, the description
//     annotation), made again when deleted and restored when edited. Its CA
//     is the REST config's CAData, else RootCA (the simulated apiserver
//     serves no TLS: a fixed self-signed certificate).
//     TestANewNamespaceGetsItsDefaultServiceAccountAndRootCAConfigMap,
//     TestNamespaceContentDeterminism. operatortest/builtins hosts these
//     two in every world with built-in controllers. SeedNamespaceContent
//     runs their first sync before a run's time starts, as a cluster's
//     bootstrap did long before a test: each built by its constructor,
//     its sync called once per namespace over listers filled by one list,
//     its workqueue shut down unused; the hosted ones then write nothing
//     for those namespaces
//     (TestSeededNamespaceContentIsWhatTheControllersMakeAndTheyWriteNoMore).
//
// The garbage collector (SetupGarbageCollector, its own entry: it is not
// one of Controllers) is kube-controller-manager's own
// (pkg/controller/garbagecollector), built as newGarbageCollectorController
// and the controller context build it: a clientset, a metadata client, a
// RESTMapper over a memory-cached discovery client, the dependency graph
// builder on an object-or-metadata informer factory (typed informers for the
// kinds the clientset knows, metadata informers for the others), Run with
// 20 workers and Sync every 30 s of virtual time, each a goroutine that
// joins the process. Its three workqueues are the simulator's:
// attemptToDelete and attemptToOrphan hold the package's unexported *node,
// built with that type through GetGraphResources; graphChanges holds
// *event, which nothing exported names, and gets a queue of this package's
// own pointer type written over the field through unsafe (same methods, one
// pointer each). What it does where upstream's order is a Go map's is fixed
// here: the monitors' informers start in the order of their resources'
// names (a factory of this package's, as syncMonitors asks for them in map
// order); the dependents the graph builder and the workers add to the node
// queues in one step (a node's dependents map) are held until the task next
// calls in (a queue call, a request) and added in the order of their
// identities (namespace, API version, kind, name, uid); and Sync waits, in
// virtual time, until the graph builder runs, so that Sync, a task, always
// starts the monitors' informers; and orphaning's patches take turns
// (Known gaps). Its argument narrows what Sync's
// discovery reports (a world's kinds), as the models collect only the
// kinds a world holds. Tested on ConfigMaps and Secrets: background
// (TestTheHostedCollectorDeletesTheDependentsOfAnOwnerDeletedInTheBackground),
// foreground, the owner deleted after its dependents
// (TestTheHostedCollectorDeletesAForegroundOwnerAfterItsDependents), orphan
// (TestTheHostedCollectorOrphansTheDependents), a dependent of an owner
// already gone (TestTheHostedCollectorDeletesADependentOfADeletedOwner), and
// TestTheHostedCollectorDeterminism (each propagation, two dependents,
// under a crash and a lagging watch; 30 runs of each gave one trace hash
// with GOMAXPROCS 1 and 4). No world
// hosts it yet: operatortest's worlds run models/kube's GarbageCollector,
// which operatortest/world's setupKubeControllerManager builds.
//
// operatortest's worlds (operatortest/kubeworld) host Controllers in place
// of their models, each only where the world may hold its Triggers:
// ReplicaSets, Deployments, Jobs, StatefulSets, claims, volumes.
// TestTwoObjectsListedTogetherDeterminism runs them all at once (two of each
// kind created together, under a crash). internal/differential's
// TestHostedControllersMatchKubeControllerManager runs every workload script
// (Deployments, Jobs, StatefulSets) on them as the worlds host them and
// compares each step with kube-controller-manager on envtest: the same code
// on both sides, so what it checks is the simulator's informers, queues and
// timing.
//
// Cost: a hosted controller lists and watches through client-go over the
// REST transport (JSON both ways) and runs upstream's full sync. Measured on
// the orphan-free rolling update of a 3-pod StatefulSet with a crash (30
// worlds each, same process, load about 7): the model 7.6 worlds/s, the
// hosted controller 4.7 (1.6 times the time); an operatortest exploration of
// examples/patterns' StatefulSet operator took the same time either way
// (3.5 s), the operator's own work and the oracles dominating. With the
// ReplicaSet, Deployment and Job controllers hosted (same machine, shared,
// runs interleaved, 3 rounds): examples/patterns' config-checksum and
// restart-checksum explorations (Deployments, 60 plans each) took 0.89,
// 1.02 and 1.00 times the time with the models; kubeworld's Deployment
// behaviour tests (5 runs each) 1.54, 0.98 and 0.89 times their model runs,
// its Job tests 1.27, 1.73 and 1.56 times (the orphan queue's ticker, below).
//
// # Known gaps
//
//   - A hosted controller's Run waits for its informers with client-go's
//     WaitForCacheSync, which polls on the bubble's clock from a goroutine
//     that never calls in: in a world whose kernel is stopped for good (a
//     manager's Setup that never returns) the bubble never deadlocks, and
//     operatortest's bound on such a Setup would never end the run. So
//     operatortest/kubeworld hosts the controllers only in a run given the
//     kinds a world holds, and its probe of those kinds (every model) runs
//     the models; a world that holds ReplicaSets, Deployments, Jobs,
//     StatefulSets or claims and has a Setup that never returns still hangs
//     until go test's -timeout (TestAWorldNotGivenItsKindsRunsTheModels).
//   - It needs a testing/synctest bubble (package wallclock; operatortest runs
//     every plan in one): Setup refuses a process outside one, and
//     operatortest/kubeworld runs the models of models/kube there instead
//     (the kernel worlds of sim/cluster's and kubeworld's own tests, the
//     differential suite's simulated side)
//     (TestSetupRefusesAProcessOutsideABubble).
//   - pkg/controller has no seam for the workqueue: each constructor builds
//     client-go's, which Setup shuts down and replaces, through reflect and
//     unsafe, by the simulator's (process.NewClientGoQueue, client-go's
//     default controller rate limiter, as the constructors use) at the
//     unexported field each controller keeps it in (queue; pvc-protection's
//     pvcProcessingStore.namespaceQueue too). Each controller's main queue
//     is named after it and the kind it acts for (process.NameQueue), so a
//     run's end lists the keys it holds in back-off (check.Run's Backoffs,
//     which converges reads: operatortest/verdict's cluster-backoff). A field renamed upstream fails
//     Setup with the path it looked for
//     (TestAQueueFieldRenamedUpstreamFailsWithThePathLookedFor).
//   - The goroutines of Run that never call in (Run itself waiting on its
//     context, the informers' FIFO loops, the event broadcaster's
//     distribution loop) run as Go schedules them, in the bubble: deterministic
//     because the kernel settles the bubble after every event
//     (TestARecreatedStatefulSetAdoptsItsOrphanedPodDeterminism, under a crash
//     and a lagging pod watch). Run gets its controller's context, whose
//     logger is named after it (logger=replicaset-controller in the
//     trace): its lines once the incarnation ended ("Shutting down job
//     controller", deferred) are dropped; sent to the process's logger they
//     would call in from an ended incarnation and freeze Run before its
//     other deferred calls.
//   - The hosted garbage collector's informers list and then watch
//     (listClientset: its clients say they do not support watch-list):
//     client-go's watch-list hands a kind's initial objects to the informer
//     in the Go map order of a store of its own (Reflector.watchList,
//     r.store.Replace(temporaryStore.List(), ...)), and after a crash one
//     plan gave two traces about once in ten runs (which of a relist's
//     ConfigMaps the graph saw first). The controllers of Setup list and
//     watch for the same reason (package process's factories do: two
//     StatefulSets, ReplicaSets or Jobs created together were synced in
//     either order, about one run pair in three,
//     TestTwoObjectsListedTogetherDeterminism).
//   - Orphaning: orphanDependents patches each dependent from a goroutine
//     of its own, made in the order of the owner's dependents map, which the
//     scheduler numbers by goroutine id (sim/scheduler's adopt.go): 2 runs
//     in 30 of one plan patched b before a. Here those patches take turns
//     in the order of the dependents' namespace and name (gc_orphan.go:
//     each waits, before its request, for the one before it), one after
//     the other where upstream's run at once
//     (TestOrphaningPatchesTheDependentsOneAfterTheOtherByName).
//   - Every operatortest world in a bubble hosts the collector
//     (operatortest/world's setupKubeControllerManager through
//     kubeworld.HostedGarbageCollector), collecting the kinds in an owner
//     relation, Collected's and every kind outside Kubernetes' own groups;
//     models/kube's collector runs only in the probe of the kinds a world
//     holds (a run with every model, before those kinds are known) and in
//     worlds outside a bubble. Its cost, measured by ctrlsim bench's
//     world-cost row (the whole judged test process, CPU time, interleaved
//     rounds, 2026-11-28): twowrites 1.26 times the baseline before the
//     world's fidelity (15 rounds, 1.15-1.37), against 1.13 without the
//     collector in the same hour; cronjob 1.15 against 1.10. The world's
//     budget is 1.3 times. What got it there: the scheduler reads a
//     goroutine's id and creation from the runtime's g (sim/scheduler's
//     goid.go; a stack read per call took 24% of such a run), discovery is
//     the apiserver's kind table (process.Discovery), read again only once
//     the served kinds change (unchangedDiscovery), and the RESTMapper
//     built from it is shared by every world that serves the same
//     discovery (sharedMapper: building it per world was a quarter of the
//     collector's cost). Left: its 40 workers joining the process at each
//     start, and its monitors' lists through REST and JSON. Its discovery also
//     offers kinds kube-apiserver serves as no resource (the *Options
//     kinds, reviews with every verb: package restapi's discovery): a
//     collector of every kind (collects nil) would wait for their
//     monitors.
//     The model is compared with this collector and the real namespace
//     controller by
//     internal/differential.TestNamespaceDeletionAndCollectionMatchKubeControllerManager.
//   - Not hosted: the namespace controller. It would build as the collector
//     does (a metadata client, discovery's preferred namespaced resources),
//     but its deleter deletes a terminating namespace's content kind by
//     kind in the order of a Go map (deletion/namespaced_resources_deleter.go,
//     deleteAllContent: `for gvr := range groupVersionResources`), a list
//     and a deletecollection call per served kind, each a traced call: the
//     same plan would give a new order of calls in every run, and no seam
//     reaches the map (discoverResourcesFn returns a list, the deleter makes
//     the map). models/kube's NamespaceController stays. Not hosted either:
//     the EndpointSlice controller. Hosted again once the informers were
//     sorted, shared one listener and listed (NewController, its three
//     queues replaced, 5 workers), it passed kubeworld's EndpointSlice
//     behaviour test, but one plan still gave two traces: two Services over
//     one Deployment's pods had their slices updated in either order, since
//     its pod-queue worker enqueues the Services of a changed pod by ranging
//     over a set (endpointslice_controller.go syncPod: `for service := range
//     servicesToUpdate { c.serviceQueue.AddAfter(...) }`), an order no seed
//     and no seam fixes (its reconciler also ranges over maps to build a
//     slice's endpoints).
//     models/kube's models run these (its doc.go says what they leave out),
//     and every workload model still runs outside a bubble. The kubelet,
//     the scheduler and the node lifecycle controller's pod side stay a
//     model: there is no node to run them on
//     (TestControllersHostNeitherTheNamespaceNorTheEndpointSliceController).
//   - The Job controller's orphanQueue stays client-go's: its item type
//     (orphanPodKey) is unexported, and no queue of the simulator's can be
//     built for it from outside the package. It runs on the bubble's clock:
//     its delaying queue's heartbeat ticker wakes the bubble every 10 s of
//     virtual time, and its 5 orphan workers wait outside the scheduler
//     until an orphan pod is added (by a task: they then rejoin at their
//     first request). Run's deferred ShutDown ends it at a crash and when
//     the world closes (TestTheJobControllersOrphanQueueTakesNoSimulatorQueue).
//   - Client-go's informers' indexers list in a shuffle drawn from the plan
//     (package process's clientgo_indexer.go; per process and informer
//     type, another at each call): upstream's list in Go map order, and the
//     hosted controllers get the plan's shuffle too, as faithful as a
//     process's own (code acting on the first of a list or sorting it with
//     ties, a StatefulSet's pods, a ReplicaSet's pods to delete ranked with
//     ties, meets another order at each call), and the same in every run of
//     a plan, so the determinism tests hold. The shuffle is uniform, where a
//     Go map's order is not. Before lists came in the plan's shuffle they
//     were sorted by key, and before the ReplicaSet controller was hosted
//     the typed informers (client-go v0.37 wraps each in a
//     typedSharedIndexInformer) were not sorted at all
//     (sim/process.TestTheOrderedFactoriesInformersListInThePlansShuffle).
//   - The handlers registered on one informer before it starts share one
//     client-go listener and run in registration order, one after the
//     other (process's clientgo_handlers.go): client-go starts each
//     handler's goroutines by ranging over a map, and the ReplicaSet and
//     Deployment controllers' handlers on the ReplicaSet and pod informers
//     were adopted as tasks in a new order each run. A plan cannot run one
//     controller's handler of an event before another's ends
//     (sim/process.TestTheHandlersOfOneInformerShareOneListenerInRegistrationOrder).
//   - utilruntime.HandleError's 1 ms backoff is dropped for the whole test
//     binary (process.DropErrorBackoff): it reads a variable set from the
//     machine's clock and made a worker that logged an error sleep for years
//     of bubble time (TestHandleErrorHasNoBackoffOnceDropped).
package kcm
