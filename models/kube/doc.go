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
//   - ReplicaSetController: pkg/controller/replicaset/replica_set.go
//     (syncReplicaSet, manageReplicas, getPodsToDelete) and
//     replica_set_utils.go (calculateStatus, updateReplicaSetStatus), with
//     controller_utils.go (GetPodFromTemplate, RealPodControl, ActivePods,
//     ControllerExpectations, slowStartBatch).
//   - DeploymentController: pkg/controller/deployment (syncDeployment in
//     deployment_controller.go; sync.go getNewReplicaSet, scale,
//     cleanupDeployment, calculateStatus, isScalingEvent; rolling.go;
//     recreate.go; progress.go syncRolloutStatus, requeueStuckDeployment;
//     util/deployment_util.go) and controller.ComputeHash for the
//     pod-template-hash.
//   - JobController: pkg/controller/job/job_controller.go (syncJob, manageJob,
//     trackJobStatusAndRemoveFinalizers, flushUncountedAndRemoveFinalizers,
//     enactJobFinished, recordJobFinished, handleSingleOrphanPod) and
//     backoff_utils.go, for NonIndexed and Indexed Jobs (indexed_job_utils.go:
//     a pod per pending index, lowest first, named <job>-<index>- with the
//     completion index annotation and label, hostname and
//     JOB_COMPLETION_INDEX; status.completedIndexes; duplicate and
//     out-of-range indexes removed; backoffLimitPerIndex: the
//     job-index-failure-count annotation, the last failed pod of an index
//     kept until its replacement, the per-index back-off, failedIndexes,
//     FailedIndexes and MaxFailedIndexesExceeded).
//   - StatefulSetController: pkg/controller/statefulset (stateful_set.go sync;
//     stateful_set_control.go UpdateStatefulSet, getStatefulSetRevisions,
//     updateStatefulSet, processReplica, processCondemned,
//     updateStatefulSetAfterInvariantEstablished, truncateHistory;
//     stateful_set_utils.go newVersionedStatefulSetPod, getPatch,
//     ApplyRevision, completeUpdate; stateful_pod_control.go's events;
//     stateful_set_status_updater.go) and its ControllerRevision history
//     (pkg/controller/history: NewControllerRevision, HashControllerRevision,
//     CreateControllerRevision's collision count, rollback by a new revision
//     number, AdoptControllerRevision): OrderedReady and Parallel pod
//     management, RollingUpdate with partition and maxUnavailable
//     (MaxUnavailableStatefulSet is on in v1.37) and OnDelete, minReadySeconds,
//     the PersistentVolumeClaims of volumeClaimTemplates and their retention
//     policy (the claims' ownerReferences; statefulset_claims.go).
//   - EndpointSliceController: pkg/controller/endpointslice with the
//     reconciler of k8s.io/endpointslice (reconciler.go reconcileByAddressType,
//     utils.go podToEndpoint, getEndpointPorts, newEndpointSlice,
//     setEndpointSliceLabels, finalize; ShouldPodBeInEndpoints, FindPort;
//     util/trigger_time_tracker.go for the last-change-trigger-time
//     annotation). Pods whose Node is missing are left out and the sync
//     fails (event FailedToUpdateEndpointSlices); compared with the real
//     controller by internal/differential's endpointslice script.
//   - Kubelet: the pod side of kube-scheduler (binding), of the kubelet
//     (pkg/kubelet/status/generate.go, kubelet_pods.go getPhase, the
//     container back-off) and of the node lifecycle controller
//     (controller/util/node MarkPodsNotReady, taint eviction). Pod
//     annotations (AnnotationRun, AnnotationExitCode, AnnotationNeverReady),
//     a "sleep N" in the first container's command, and faults (PodFault,
//     NodeLoss) say what containers do. The faults end when the fault phase
//     does (Kubelet.Healed): the next readiness probe passes, the next
//     restart runs fault-free, the lost node comes back (its kubelet writes
//     its pods' status again; pods evicted stay deleted).
//
// Hosted instead: in a testing/synctest bubble (every operatortest
// world), kube-controller-manager's own ReplicaSet, Deployment, Job and
// StatefulSet controllers run in place of ReplicaSetController,
// DeploymentController, JobController and StatefulSetController, beside its
// PVC- and PV-protection controllers, which have no model here (package kcm;
// operatortest/kubeworld chooses). What is left of this package:
//
//   - The models of those four run outside a bubble, and in each
//     operatortest world's one probe run (every model at once, to find the
//     kinds a world holds, before those kinds are known: a hosted
//     controller of a kind no object has would poll for its cache sync on
//     the bubble's clock): sim/cluster's and kubeworld's kernel worlds, the differential suite's simulated side
//     (internal/differential compares these models with
//     kube-controller-manager on envtest, TestModelsMatchKubeControllerManager,
//     and the hosted controllers too, TestHostedControllersMatchKubeControllerManager).
//     kubeworld's Deployment and Job behaviour tests run on both, with the
//     same expectations.
//   - GarbageCollector: every operatortest world in a bubble hosts
//     kube-controller-manager's own (kcm.SetupGarbageCollector); this model
//     runs in the probe of the kinds a world holds (every model at once,
//     before those kinds are known) and outside a bubble, and stays as the
//     differential suite's second implementation.
//   - NamespaceController everywhere: the namespace controller
//     deletes kind by kind in the order of a Go map, deleteAllContent's
//     `for gvr := range groupVersionResources`, each kind's list and
//     deletecollection traced calls, so its trace would change from run to
//     run.
//   - EndpointSliceController everywhere: hosted, the EndpointSlice
//     controller's own map order (a changed pod's Services enqueued by
//     ranging over a set) made one plan give two traces (kcm's Known gaps).
//   - Kubelet: there is no node, container runtime or scheduler to host.
//
// The gaps listed below for ReplicaSet, Deployment, Job and StatefulSet are
// the models' (outside a bubble); the hosted controllers have none of them.
//
// operatortest/kubeworld wires the workload models into simulated worlds:
// the five controllers in kube-controller-manager, the kubelet as a process
// of its own drawing its delays from the plan's seed and meeting the plan's
// workload faults.
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
//   - Discovery is the host's: the namespace controller deletes the kinds in
//     Content (typed lists, or metadata lists for kinds with no Go type:
//     ListOf) that are served when it syncs, and the collector watches the
//     kinds in Kinds (typed or metadata: ObjectOf) and, with Sync set, each
//     kind an Established CustomResourceDefinition serves, from the first
//     sync instant after it is (gcdiscovery.go); a kind whose CRD is deleted
//     keeps its monitor, and aggregated APIs are not discovered. Owners may
//     be of any served kind (those the scheme lacks are read as metadata, as
//     upstream reads every owner). Given every kind the apiserver model
//     serves and stores, both cover them all
//     (operatortest/kubeworld.TestEveryNamespacedKindIsDeletedWithItsNamespace
//     and operatortest/kubeworld.TestEveryKindIsCollectedWhenItsOwnerIsGone:
//     44 namespaced kinds, 75 in all); operatortest's worlds give them the
//     kinds a run may need
//     (operatortest/builtins: its own kinds, every CRD's, the
//     kinds with an owner relation, the kinds in a deleting namespace), in
//     one version each, the preferred (PreferredVersion): the apiserver
//     model stores each version of a built-in kind apart, so an object
//     written in another version of a kind served in several (autoscaling/v1
//     and v2 HorizontalPodAutoscalers) is neither collected nor deleted
//     with its namespace
//     (operatortest/builtins.TestAHeldKindIsCollectedAndDeletedInItsPreferredVersionOnly).
//   - Content is deleted by listing and deleting each object (upstream's
//     deleteEachItem path), not with one DeleteCollection call per kind; the
//     deletions of all kinds of one pass form one sequence so that Order and
//     Delay can interleave kinds. Upstream deletes kind by kind, each kind's
//     objects from the apiserver's parallel DeleteCollection workers
//     (TestNamespaceContentIsDeletedObjectByObject).
//   - Pods' graceful termination estimate is upstream's
//     (estimateGracefulTerminationForPods: the longest grace period of the
//     pods not terminal, 0 once the namespace has deleted that long), taken
//     from the pods listed before their deletion; MinTerminating still
//     stands in for other slow content
//     (TestAPodsGracePeriodIsTheEstimateAndMinTerminatingTheRest).
//   - The namespace controller's requeue on remaining content is
//     controller-runtime's RequeueAfter (which also Forgets the item's failure
//     count); upstream's worker calls AddAfter without Forget. Its queue has
//     the per-item limiter but not the 10 qps bucket (which reads the wall
//     clock). No periodic resync of Namespaces (upstream: every 5 minutes)
//     (TestTheNamespaceRequeueIsRequeueAfterOnAPerItemLimiterAlone).
//   - The collector's graph is the informer cache (Graph): no virtual nodes, no
//     absent-owner cache, no cycle detection (the unblocking of ownerReferences
//     when a dependent is itself deleting dependents), and its lookups of
//     dependents scan the cache of every collected kind. Upstream runs 20
//     workers over two queues; here each kind has its own controller with one
//     worker, fed by a predicate on the item's owners, finalizers and
//     deletionTimestamp and by its owners' and dependents' events. Patches are JSON merge patches carrying the
//     resourceVersion (upstream tries a strategic merge patch first). A
//     cluster-scoped item with a namespaced owner is forgotten, not deleted,
//     as upstream's namespacedOwnerOfClusterScopedObjectErr, and reported
//     (OwnerRefInvalidNamespace, with Recorder set) when the graph holds the
//     owner in some namespace, at each of the item's syncs (upstream: when
//     the graph builder adds the item or observes the owner).
//     Every event of an owner requeues its dependents (its dependents'
//     predicate and watches); upstream's graph builder queues them only when
//     the owner is deleted, starts deleting dependents or orphaning, or its
//     identity changes: the model reconciles dependents more often, with
//     no other effect than the trace
//     (operatortest/kubeworld.TestAClusterScopedObjectWithANamespacedOwnerIsReportedNotCollected).
//   - The namespace controller emits no Events, the collector only
//     OwnerRefInvalidNamespace; no model exports metrics
//     (TestTheNamespaceControllerHasNoEventRecorder).
//   - Workload controllers: no adoption or release of orphans (claimPods,
//     ClaimReplicaSets): they see only what they control. No periodic resync.
//     Their creations and deletions of one sync run one after the other
//     (upstream: parallel goroutines per slow-start batch). Status retries
//     re-read from the cache, not the apiserver. The consistency store
//     (EnsureReady of v1.37) is not modelled; expectations are
//     (TestAWorkloadControllerAdoptsNoOrphan).
//   - Deployment: no rollback (the deprecated rollbackTo annotation); the
//     deployment's ReplicaSet watch and Recreate's pod-deletion wake-up are
//     mapped through the cache. The ReplicaSet's pod ranking for scale-down
//     omits the co-location rank (getPodsRankedByRelatedPodsOnSameNode)
//     (TestADeploymentsRollbackToAnnotationIsIgnored).
//   - Job: no pod failure policy (so no FailIndex action and no ignored
//     failure count), success policy, suspend (the Suspended condition) or
//     managed-by other than the default; no PodGroup (workload-aware
//     scheduling); the tracking
//     finalizer is removed with an update, not a strategic merge patch; the
//     back-off record is in memory and lost at a restart, as upstream's
//     (TestASuspendedJobGetsNoSuspendedCondition).
//   - StatefulSet (the model, outside a bubble; kcm's hosted controller has
//     none of these gaps): claims are created and given their owners, but nothing
//     binds them (no PersistentVolumes, no PV controller) and the kubelet
//     model runs pods whatever their claims; no pvc-protection controller
//     (the apiserver model adds no pvc-protection finalizer either). Claims
//     are created, and a pod's volumes listed, in the templates' order
//     (upstream ranges over a map). The Recreate strategy is refused as
//     with its feature gate off (StatefulSetRecreateStrategy, alpha in
//     v1.37), so no Progressing condition. No
//     StatefulSetSemanticRevisionComparison: revisions are equal when their
//     bytes are (upstream also re-defaults the last revision to compare).
//     Pods are not adopted or released (ClaimPods); orphan ControllerRevisions
//     are adopted. A Parallel batch's creations and deletions run one after
//     the other, in ordinal order
//     (TestAParallelStatefulSetCreatesItsPodsOneAfterTheOtherInOrdinalOrder).
//   - EndpointSlice: IPv4 only, one slice per set of ports however many
//     endpoints (upstream splits at 100, and fills a slice's new endpoints in
//     map order; here they are ordered by pod name), no hints or
//     trafficDistribution (zones are set from the Node's label), no
//     endpoint slice tracker (stale cache checks), no Endpoints (core/v1)
//     controller or mirroring, no metrics. Node events do not requeue
//     Services (upstream's do only with a topology cache): a pod left out
//     for a missing Node comes back with the failed sync's rate-limited
//     retry, as upstream. The apiserver model allocates no ClusterIP: a
//     Service without one is taken as having one (not headless) unless it
//     says None (TestOneEndpointSliceHoldsEveryEndpoint).
//   - Kubelet: one reconciler plays the scheduler (round robin over live
//     nodes, binding by an update of spec.nodeName, which the apiserver model
//     counts as a generation), every node's kubelet and the node lifecycle
//     controller's pod side; its Node objects carry a name only (registered
//     at its first pod; no labels, status or lease, and a lost node
//     keeps its object unchanged), no init or sidecar containers
//     (Initialized is True at once), no probes (a running container is ready
//     unless told otherwise; under a PodNeverReady fault a readiness probe
//     fails every 10s from the container's start, without the prober's
//     random initial delay, until the fault phase ends), no node lifecycle
//     on a lost node's return (no Node objects, no NodeReady event; a pod
//     waits for its kubelet's next 10s status sync). Graceful termination
//     stops a pod's containers together, not container by container: the
//     longest preStop hook (a Sleep action or an exec "sleep N" its time,
//     any other hook one drawn time for the pod, seconds; what a hook waits
//     for is not modelled), then one drawn SIGTERM exit (seconds), or the
//     whole grace period where a container ignores SIGTERM (IgnoresSIGTERM);
//     the grace period cuts it (kuberuntime's 2s minimum after a hook that
//     used it all is not kept), a shortened grace period cuts the stop short
//     but is not otherwise re-read, and
//     containers that would have exited by themselves during the stop are
//     not reported so; a container stopped before the grace period ran out
//     exits 0 (a process that handles SIGTERM), one killed at its end 137.
//     A lost node's deleted pods stay Terminating until the node is back (no
//     pod garbage collector, which would force-delete them only for an
//     out-of-service taint or a deleted Node). Every restart of a crashed container, the
//     first included, waits the back-off (10s doubling to 5m); pod IPs and
//     container IDs are synthetic
//     (TestTheKubeletBindsByAnUpdateAndRegistersNodesByNameOnly).
package kube
