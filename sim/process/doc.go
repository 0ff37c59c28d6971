// Package process runs controllers inside the simulator: a Process is an operator
// pod (an identity, an informer cache, a client, a manager.Manager and a
// lifetime). Its Setup hands the incarnation's Manager to the operator's own
// SetupWithManager functions, and the controllers they build are
// controller-runtime's own (builder, internal controller, worker loop,
// reconcileHandler), hosted on the simulator's queue, cache and scheduler
// (host.go says how, and which fields of controller-runtime v0.25.2 it relies
// on; TestTheSeamMatchesControllerRuntime pins them).
//
// # Contract
//
//   - Events reach controllers through controller-runtime's own source.Kind,
//     internal event handler, handlers and predicates, from the process's
//     informers (a handler joining a synced informer gets the cached objects as
//     initial-list adds, as client-go's shared informer gives them).
//     source.Channel and source.Func are controller-runtime's own, started on
//     the controller's queue: the Channel's goroutines are tasks of the
//     process (its handler's loop from its first queue.Add), so events the
//     operator's goroutines send into the channel reach the queue in a
//     deterministic order.
//   - Workers are controller-runtime's own goroutines running its
//     processNextWorkItem loop and reconcileHandler: exactly
//     MaxConcurrentReconciles of them (a plan's workers fault overrides it),
//     adopted by the scheduler (scheduler.Host), so they run one at a time when
//     the plan picks them. The queue is the model (package queue) of the one the
//     controller's NewQueue builds: controller-runtime's priority queue, or
//     client-go's classic queue with UsePriorityQueue false; client-go's token
//     bucket runs on virtual time. A reconcile panic is recorded as a
//     Finding, with the code location that panicked (the function, its
//     file's base name and line: Finding.Location).
//   - A controller whose source's kind is not served yet (its CRD created by
//     the operator and not yet established) starts as controller-runtime's
//     Kind source does: it asks at once, then every 10 s (logging "if kind is
//     a CRD, it should be installed before calling Start"), and gives up
//     after the default 2-minute CacheSyncTimeout, when the process exits and
//     restarts (crdwait.go).
//   - A Watch added while the controller runs (a reconciler adding a watch)
//     starts before the process's next client call or queue Get.
//   - Every client call is a yield point. A cached read only yields; an API call
//     sleeps for its request latency, runs, is traced, then sleeps for its
//     response latency (Injector.CallLatency): a crash in the response window
//     leaves a committed write its caller never saw succeed. The call number
//     counts over the whole run, and a crash planned at call N happens instead of
//     call N. A dry run (dryRun=All) is a call and not a write: traced as
//     "dry-run <verb>", it is not counted among the writes a crash after
//     write N counts, and no crash follows it (TestADryRunIsTracedAndIsNoWrite
//     in sim/cluster). With Spec.ClientRate an API call first waits for a token of its
//     client's bucket (ratelimit.go: x/time/rate's, as client-go's
//     flowcontrol limiter holds, on virtual time; a bucket for each client,
//     full at each start): kube-controller-manager's 20 QPS and burst 30
//     (TestAClientRateLimitSpacesCallsPastTheBurst).
//   - With Spec.LeaderElection, each incarnation campaigns for a Lease as
//     controller-runtime's manager does (elect.go): controllers and Runnables
//     that need leader election start once it leads; a leader that cannot
//     renew for RenewDeadline exits 1 and restarts as a new identity.
//     sim/cluster's TestLeaderElectionMatchesClientGo* run client-go's own
//     LeaderElector beside it in the same scenarios.
//   - Spec.Options are the operator's manager.Options (cacheopts.go):
//     Cache.DefaultNamespaces, Cache.ByObject (namespaces, label and field
//     selectors, transforms) and the Default* selectors choose what each
//     informer lists and watches (an object that stops matching leaves the
//     cache as a delete, as from a watch with selectors), and a cached read in
//     a namespace not cached is controller-runtime's "unknown namespace for
//     the cache" error; Client.Cache.DisableFor kinds are read live;
//     Controller gives the controllers' defaults; WebhookServer receives the
//     webhooks; Client.DryRun makes the manager's client a dry-run client, as
//     client.New wraps it (client.NewDryRunClient). CheckOptions refuses by
//     name what is not honoured.
//   - With Client.Cache.EnableReadYourWritesConsistency (ryw.go) the
//     manager's client is controller-runtime's own client.New, as its
//     manager builds it: its consistent client (write barriers, the
//     resourceVersion of each write's answer, a consistency handler on the
//     process's informer of the kind and form) over the cache-backed client,
//     on the incarnation's REST transport (package restapi: every request
//     one call of the process), the process's cache as Cache.Reader (its
//     reads through the same hooks) and informers, and its mapper. A read
//     after the process's own write waits, blocked on controller-runtime's
//     channel outside the scheduler, until the informer has delivered the
//     write's event (its lag, in virtual time: TestReadYourWritesWaitsForTheCacheInVirtualTime);
//     internal/differential TestReadYourWritesMatchesControllerRuntimeOnKubeAPIServer
//     runs the same probe on envtest.
//   - Webhooks registered on the manager's webhook server (builder's
//     ctrl.NewWebhookManagedBy, or Register) are called by the apiserver
//     model's webhook admission through the registered handler's ServeHTTP
//     (controller-runtime's admission.Webhook: decode, defaulter or
//     validator, patch) with an AdmissionReview, in-process (webhooks.go);
//     each call is a trace step of the serving process ("webhook <name>").
//     Their warnings reach the calling client as Warning headers reach
//     client-go's (a process's client logs them, as controller-runtime's
//     KubeAPIWarningLogger does). The patched objects, denials (code, reason,
//     message, details) and warnings are checked against kube-apiserver
//     calling the same webhooks over TLS (internal/differential
//     TestAdmissionWebhooksMatchKubeAPIServer).
//   - GetEventRecorderFor gives client-go's EventRecorder: an Event is written by
//     the process after the call returns (from the kernel, at the same virtual
//     instant), as a traced API call, and is lost if the process dies first.
//   - Crash and Exit stop the process at once: in-flight reconciles are killed (no
//     later or deferred call reaches the apiserver), the cache and queues are
//     dropped, and the process restarts after the kubelet's CrashLoopBackOff delay
//     (10s doubling to 5m, reset after 10m of running) with an empty cache that
//     relists, running Setup again. Operator code that exits on an
//     unrecoverable error calls the manager's Exit (Manager.Exit; os.Exit
//     would end the test binary).
//   - StopCleanly stops a process as a graceful shutdown does (stop.go): between
//     reconciles, at once when no worker is reconciling, else when one ends its
//     reconcile (or is about to begin one) while no other is in one; it does not
//     restart until StartAgain. Its trace step is a "crash" with the stop's
//     reason. Code outside the reconcilers (a Runnable, leader election) is cut
//     where it is, as by Crash.
//   - A process bound to a Deployment runs while the Deployment exists and is not
//     being deleted, and stops (without restart) when it goes.
//   - A read's step says what it returned against what was current: a get the
//     version it got (none: 0) against the object's current one, a list its
//     number of items and, from the cache, the resourceVersion the cache had
//     applied its kind's changes through (informer.Cache.SyncedThrough)
//     against that of the newest change to the kind in the list's namespace
//     (apiserver.Server.LatestResourceVersion); label and field selectors are
//     not taken into account. An update or patch that removed a deleting
//     object's last finalizer, which the server answers by deleting the
//     object, has the digest trace.DigestDeleted.
//   - Every call, reconcile, result, crash and restart is a trace step attributed
//     to process, controller, worker and reconcile number; so is every line a
//     reconciler logs through the context's logger (logf.FromContext) at level 0
//     or as an error (step "log"; V(1) and beyond are dropped, as
//     controller-runtime's default production logger drops them), and every
//     line logged through controller-runtime's global logger (ctrl.Log,
//     log.Log, loggers derived from them and kept in structs or packages) and
//     through klog by a task of the process or by its Setup (globallog.go).
//
// # Known gaps
//
//   - Runnables other than controllers (mgr.Add of a RunnableFunc, a cache
//     warmer, a leader-election runnable) run as tasks of their process
//     (runnable.go) only inside a testing/synctest bubble (package wallclock;
//     operatortest runs every plan in one); outside one mgr.Add refuses them.
//     A reconcile or a Runnable that waits (time.Sleep, a timer, client-go's
//     retry and wait helpers, a channel another task sends to) waits in
//     virtual time and runs on when woken, at that instant (sim/scheduler's
//     wait.go); a crash during the wait kills it. One that waits on its
//     context stays there, as a killed process's would (SIGKILL runs no
//     cleanup: its context is cancelled only when the world closes).
//     Goroutines that the operator's code starts itself (with go in a
//     Runnable, a reconcile or Setup; controller-runtime's source.Channel)
//     become tasks of the process at their first call into the simulator
//     through the incarnation's client, queue or REST config (Manager.join,
//     sim/scheduler's adopt.go), in a bubble only: from then on they run
//     when the plan picks them, their calls are the process's (traced,
//     yield points, latency, crash points), and a crash or stop freezes
//     them for good. A goroutine that first calls in after its incarnation
//     ended never runs. Until its first call a goroutine runs its own code
//     as Go schedules it, and one that never calls in (source.Channel's
//     reader of the operator's channel; a poller that only reads an outside
//     system and sends into a channel) is never stopped: after a crash it
//     runs on, and its sends reach no controller (the incarnation's
//     sources have stopped with its context). A goroutine's first line
//     through the global logger (ctrl.Log) before its first call is not
//     attributed to the process.
//     A process's Setup runs in the kernel, at the instant the pod starts,
//     not as a task: a Setup that sleeps moves the bubble's clock ahead of
//     virtual time (wallclock reports it), and its goroutines are adopted
//     through the hooks they call, not as Setup's children. Running Setup
//     as a task would make every process's start take virtual time and
//     interleave with other tasks: it changes the trace of every world
//     whose Setup calls the API (the catalogue's reports among them) and is
//     a change of its own. A Runnable that waits runs in virtual time.
//     Sources other than source.Kind on mgr.GetCache(), source.Channel and
//     source.Func (a Kind on another cache, source.Informer, an operator's
//     own Source type) are refused, and so are custom NewQueue functions and
//     controllers whose request type is not reconcile.Request. A
//     source.Func runs synchronously when its controller starts, on the
//     controller's queue; the goroutines it starts are adopted like any
//     (wallclock.TestARunnableOutsideABubbleIsRefusedClearly,
//     wallclock.TestAWaitOnTheWallClockIsReported,
//     wallclock.TestASourceOfTheOperatorsOwnTypeIsRefusedClearly).
//   - Informers of unstructured.Unstructured and PartialObjectMetadata
//     (builder.OnlyMetadata, Watches of an Unstructured, kinds that only a CRD
//     defines) are informers of their own per form, as controller-runtime keeps
//     them (own store, lag draw, field indexes; see package informer), but a
//     plan's hold and lag fault name a kind, not a form: a hold holds every
//     form's informer of the kind, and the forms of one kind draw their lags
//     from the kind's one stream. Without Spec.Options,
//     CacheOptions.Unstructured is as if true (the client reads Unstructured
//     objects from the cache); with Options, as they say (controller-runtime's
//     default, false: read live)
//     (sim/informer.TestAnotherFormsInformerShiftsTheLagsTheOthersDraw).
//   - GetConfig and GetHTTPClient are served in-process by the apiserver model
//     (package restapi, restconfig.go): clientsets, the dynamic client,
//     discovery and a discovery-based RESTMapper work, each API request one
//     call of the incarnation's client (trace, yield, latency, crash points,
//     identity, faults); discovery documents are read without a call.
//     Subresources other than status, namespaces/finalize, pods/exec and
//     pods/attach are refused with an error naming them (pods/portforward
//     among them). Exec and attach reach the world's
//     handlers (Env.Exec: operatortest.Options.Exec) through client-go's
//     SPDY and WebSocket (v5) executors; port-forward is refused with one
//     line saying why (restapi's Known gaps).
//     ctrl.GetConfig and GetConfigOrDie, called inside a process in a
//     world's bubble, are served as mgr.GetConfig() is, as that process's
//     own calls (kubeconfig.go; restapi's Known gaps say what is not).
//     Health probes and metrics are accepted and never served or called.
//     Manager.Start is refused
//     (TestManagerStartIsRefusedAndItsProbesAreNeverCalled).
//   - Operators built on client-go (watchfeed.go, clientgoqueue.go;
//     operatortest/clientgo's Setup): watches and resourceVersion=0 lists over
//     the REST config, in a testing/synctest bubble, are served from the
//     incarnation's own informer of the kind (native form), so client-go's
//     reflectors, SharedInformerFactory, dynamic and metadata informer
//     factories, listers and indexers run unmodified on the plan's lag,
//     holds, relists and stale restarts (sim/process
//     TestAClientGoInformerFactorySeesTheProcesssLaggingWatch,
//     TestAHoldHoldsAClientGoInformer,
//     TestADynamicInformerFactorySeesTheProcesssWatch,
//     TestAMetadataInformerFactorySeesTheProcesssWatch;
//     operatortest/clientgo.TestSetupGivesTheThreeFactories; examples/clientgo).
//     After each event written to a watch stream the kernel settles the
//     bubble (synctest.Wait): the goroutines it wakes (the stream's reader,
//     the reflector, the FIFO, the processor's listeners, the operator's
//     handlers) run until they block or call in, before anything else runs.
//     Their goroutines become tasks of the process at their first call in
//     (a request; a NewClientGoQueue call, which names its queue and item:
//     an informer's listeners start in map order, and two that call two
//     queues at one instant run in the queues' order,
//     TestGoroutinesCallingTwoQueuesRunInTheirQueuesOrder), are frozen with a crash, and
//     clientgo.Setup ends the start function's context with the incarnation
//     (IncarnationContext) so that the rest return. But: a goroutine that
//     never calls in (the FIFO's loop, the listeners until their handler
//     calls the queue, the stream's reader) is not a task: it runs as Go
//     schedules it, which is deterministic only because every event is
//     settled alone. client-go's own factories start their informers in
//     map order: clientgo.Setup's factories start one informer type at a
//     time, each one's goroutines adopted before the next (AdoptStarted);
//     a factory the operator builds itself with
//     informers.NewSharedInformerFactory starts them at once, and its
//     reflectors, arriving at one settle, become tasks in the order of
//     what their first requests ask (scheduler.JoinAsking), not of their
//     creation. While a world is alive, client-go's WatchListClient
//     feature reads off (watchlist.go), so that every reflector, the
//     operator's own too, lists and then watches, and its handlers get
//     the objects present at its start in an order drawn from the plan
//     (watchfeed.go's Snapshot; with watch-list they came in a Go map's
//     order, another in some runs:
//     TestAReflectorOfTheOperatorsOwnFactoryListsThenWatches,
//     TestThePlanDrawsTheOrderAReflectorHandsItsStartsObjectsIn). A real client-go
//     workqueue (workqueue.NewTypedRateLimitingQueue) runs on the bubble's
//     clock outside the scheduler: tried in examples/clientgo, two plans
//     gave the same trace hash four runs out of four, but a plan took
//     about 5 s (its goroutines' tickers wake the bubble) where it takes
//     milliseconds on NewClientGoQueue (operatortest/clientgo's Queue), the
//     model on virtual time, which an operator must be handed in place of
//     its own NewTypedRateLimitingQueue (client-go has no seam to replace
//     the one it builds). The watch ignores
//     timeoutSeconds (a watch never ends; a relist of the process's
//     informer reaches it as that relist's events, not as a 410), field selectors other than metadata.name and metadata.namespace
//     (400), and RBAC (a watch or a resourceVersion=0 list is not checked
//     against the process's roles); an object that stops matching a
//     watch's label selector sends no DELETED
//     (TestAClientGoWatchIgnoresTimeoutSecondsAndRefusesOtherFieldSelectors). Events of an event
//     broadcaster on the clientset are the process's create calls, written
//     by the broadcaster's goroutines
//     (examples/clientgo.TestTheEventBroadcasterWritesTheEvent); its correlator's spam filter
//     and aggregation run on the bubble's clock. clientgo.Setup drops
//     utilruntime.HandleError's 1 ms backoff for the whole test binary (one
//     variable shared by every world, which made a plan's trace depend on
//     the worlds run before it).
//   - kube-controller-manager's own controllers (package kcm) run on the
//     same seam: a clientset, one ordered informer factory
//     (NewInformerFactory), each controller's Run in a goroutine that joins
//     the process first (Join, AdoptStarted), its workqueues replaced by
//     NewClientGoQueue's through reflect at their unexported fields
//     (pkg/controller has no seam for them). Hosted: the ReplicaSet,
//     Deployment, Job, StatefulSet, PVC- and PV-protection controllers, in a
//     bubble only; package kcm's Known gaps say why the others are not (the
//     EndpointSlice controller ranges over Go maps: hosted, one plan gave
//     two traces). The informers of the ordered factories have indexers
//     that list in the plan's order (clientgo_indexer.go, through client-go
//     v0.37's typedSharedIndexInformer wrapper: Injector.ListOrder's shuffle
//     per process and informer type, applied to the key order;
//     TestTheOrderedFactoriesInformersListInThePlansShuffle,
//     TestTheOrderedFactoriesInformersListInKeyOrder): client-go's own list
//     in Go map order, a new order at every call; the plan's shuffle gives
//     a new order at every call too, the same in every run of a plan. The
//     process's controller-runtime cache lists likewise (informer's
//     WithListOrder, per kind). The
//     handlers registered on one of their informers before it starts share
//     one client-go listener, called in registration order
//     (clientgo_handlers.go): client-go starts a listener per handler, by
//     ranging over a map, so two controllers' handlers on one informer
//     became tasks in a new order each run; a handler added once the
//     informer runs, or with a resync period of its own, gets its own
//     listener as in client-go. A goroutine adopted
//     as a task that blocks on its own channel (Run waiting on its context)
//     and calls in after the scheduler closed would wait for ever: kcm's
//     queues skip their ShutDown once the incarnation has ended so that
//     Run's deferred calls do not call in. kcm.SetupGarbageCollector hosts
//     the garbage collector on the same seam (its metadata client, a
//     RESTMapper over this package's discovery, typed and metadata
//     informers of the ordered factories). Client-go's reflector, when it
//     uses watch-list (sendInitialEvents, the default of client-go v0.37),
//     hands a kind's initial objects to the informer in the Go map order of
//     a temporary store (Reflector.watchList): with several objects of one
//     kind at an informer's start (a restart's relist), the handlers get
//     them in a new order in some runs. The collector's clients say they do
//     not support watch-list (kcm's listClientset), and so do this
//     package's factories' (listThenWatch): their reflectors list and then
//     watch, where client-go v0.37 would watch-list
//     (TestTheOrderedFactoriesClientsSayTheyCannotWatchList;
//     kcm.TestTwoObjectsListedTogetherDeterminism); every other reflector
//     made while a world is alive (an informer factory the operator builds
//     itself) lists and then watches too, client-go's WatchListClient
//     reading off (watchlist.go). A reflector's resourceVersion=0 list comes in a
//     shuffle drawn from the plan (watchfeed.go's Snapshot), so that the
//     objects present at an informer's start reach its handlers in an
//     order that is the plan's, as a real watch-list hands them in any
//     order (TestThePlanDrawsTheOrderAReflectorHandsItsStartsObjectsIn);
//     an operator's own resourceVersion=0 list (one no reflector makes:
//     restapi tells them apart by the reflector's frame on the caller's
//     stack) comes in key order, as kube-apiserver v1.37's watch cache lists
//     (TestAnOperatorsOwnResourceVersionZeroListComesInKeyOrder). A
//     lister of a factory the operator builds itself lists in Go map order
//     (client-go's threadSafeMap, which the simulator cannot reach), not
//     in the plan's shuffle as the ordered factories' listers do: an
//     operator that acts on the order of such a List may give two traces
//     for one plan (TestAListerOfTheOperatorsOwnFactoryListsInMapOrder).
//   - Admission webhooks (webhooks.go): called from a task (a reconcile's
//     write), a handler runs as a task of the serving process
//     (<process>/webhook#N), as kube-apiserver's call is a request to another
//     pod: the caller waits in virtual time until the handler answers or
//     timeoutSeconds pass, whichever comes first, and other tasks run
//     meanwhile. At the deadline the write fails as kube-apiserver's client
//     gives up (`Post "<url>": context deadline exceeded`, then
//     failurePolicy), the handler's request context is cancelled
//     (context.Canceled: net/http cancels it when the client goes away; it
//     has no Deadline, as controller-runtime's server does not read the
//     URL's ?timeout=), and the handler runs on to its end, its answer
//     discarded and traced as such. A crash of the serving process during
//     the call kills the handler and ends the call at once (`Post "<url>":
//     EOF`), as does a handler's panic
//     (wallclock.TestAWebhookThatOutlastsItsTimeoutFailsTheWriteDeterminism,
//     wallclock.TestTheCallerWaitsForAWebhookOnlyUntilItsDeadlineDeterminism,
//     wallclock.TestAWebhookHandlersContextEndsAtTheDeadlineDeterminism,
//     wallclock.TestAWebhookWhoseProcessCrashesMidCallFailsTheWriteAtTheCrashDeterminism,
//     wallclock.TestATimedOutWebhookWithFailurePolicyIgnoreIsSkippedDeterminism); a
//     write whose admission waited is run again if the stored object changed
//     meanwhile (apiserver's admission_wait.go;
//     wallclock.TestAWriteWhoseWebhookWaitedDoesNotOverwriteWritesMadeMeanwhileDeterminism).
//     But a handler called while the caller is the kernel (a workload step,
//     a seed write, outside a task) runs inline, on the kernel: its context
//     never ends, the kernel waits for the whole handler (a deadline it
//     outlasted still fails the write afterwards), and a handler that waits
//     there moves the bubble's clock ahead (wallclock reports it)
//     (TestAWebhookCalledByTheKernelRunsInlineWithAContextThatNeverEnds). Calling a
//     webhook takes no virtual time of its own (no network latency), and
//     the handler task is a new task the plan's picker chooses among, so a
//     world with webhooks interleaves differently from before (same plan,
//     same trace still). A handler running as a task makes its own API
//     calls as its process's (traced, yield points, latency, faults, crash
//     points: a validator that lists to check uniqueness works,
//     wallclock.TestAWebhookHandlersAPICallsAreItsProcesssCallsDeterminism); one run
//     inline (for a kernel caller, and every conversion webhook) has its
//     calls refused (errWebhookCall). A webhook served by a process that is
//     down fails or is skipped per failurePolicy, as kube-apiserver's "no
//     endpoints available"; a process that is up always answers (no network
//     faults between the apiserver and the webhook). Webhooks given by URL,
//     and custom paths without a configuration, are not called
//     (TestAWebhookGivenByURLIsRefused). Conversion
//     webhooks: Webhooks.Convert (conversion.go) calls a CRD's conversion
//     webhook as kube-apiserver's webhookConverter does (a ConversionReview
//     to the /convert handler controller-runtime's builder registers for a
//     Hub and its Convertibles, the answer checked, original metadata
//     restored but labels and annotations, "no endpoints available" while
//     the serving process is down, the 30 s timeout in virtual time;
//     TestAConversionWebhookConvertsBothWays; checked against kube-apiserver
//     converting through the same handler by
//     internal/differential.TestConversionWebhookMatchesKubeAPIServer); the apiserver model calls
//     it (SetConverter, wired by sim/cluster) on every read, write and watch
//     event in a version of a multi-version CRD other than its storage one
//     (TestAControllerOnANonStorageVersionWorksThroughTheConversionWebhook;
//     internal/differential.TestMultiVersionCRDMatchesKubeAPIServer). The
//     handler's context has no deadline: a handler that outlasts the 30 s
//     fails the caller but is not cancelled (kube-apiserver sends ?timeout=
//     and the handler's context would end then). Objects a world's Setup
//     creates are not admitted (the webhooks apply from the start of time),
//     but they are converted: a seed written in a version the webhook
//     converts fails while no process serves it (operatortest retries it).
//   - manager.Options (cacheopts.go): a cache with several DefaultNamespaces is
//     one informer per kind filtered to them, not one per namespace (one lag
//     draw for all), and a List across them comes in namespace/name order.
//     SyncPeriod, UnsafeDisableDeepCopy, ReaderFailOnMissingInformer,
//     custom NewCache/NewClient/NewInformer and the other options CheckOptions
//     names are refused. A field selector naming a field the kind does not
//     support fails the process's start (kube-apiserver answers the
//     informer's list with a 400 and the cache never syncs)
//     (TestUnsupportedManagerOptionsAreRefused).
//   - Read-your-writes consistency (ryw.go) hosts client.New whole: its
//     consistent client, write barrier and consistency handler are
//     unexported or in internal packages, and the client it wraps must have
//     an unexported delete method, so only client.New reaches them. Its
//     writes and live reads therefore go over the REST transport
//     (JSON-encoded, through restapi) where the process's client without
//     the option calls the apiserver model directly; restapi's gaps apply
//     to them. One matters to the wait: restapi answers a delete with a
//     Success Status even when finalizers keep the object (kube-apiserver
//     answers the object, with its resourceVersion), so after a Delete of
//     an object that stays, a read of it waits until the object leaves the
//     cache (the finalizers removed) where controller-runtime on
//     kube-apiserver waits only for the cache to see the deletionTimestamp.
//     The wait needs a testing/synctest bubble (package wallclock;
//     operatortest runs every plan in one): outside one the process fails
//     its start with an error naming the option
//     (TestReadYourWritesOutsideABubbleIsRefused). A read waits for ever
//     when the write's event never reaches the informer (a kind's
//     informer filtered by a selector the written object does not match,
//     and no later event of the kind), as it would with
//     controller-runtime until the reconcile's context ends. The
//     consistency handlers' goroutines (controller-runtime's: one per
//     event) run outside the scheduler; they only publish a
//     resourceVersion and close a channel, and a task they wake rejoins at
//     its next call after the kernel's settle, so the outcome does not
//     depend on when they run (TestReadYourWritesDeterminism).
//   - GetEventRecorder (events.k8s.io) stores Events as the core/v1 recorder
//     does: the action and the related object are dropped
//     (TestTheEventsRecorderDropsTheActionAndTheRelatedObject).
//   - Outside a testing/synctest bubble (package wallclock), controller-runtime's
//     ReconciliationTimeout and the reconcile metrics read the wall clock; so
//     does a reconciler that calls time.Now
//     (TestOutsideABubbleAReconcilerReadsTheMachinesClock).
//   - Events are not aggregated or rate-limited (client-go's EventCorrelator
//     patches Count on repeats); each Event call writes a new Event, named
//     by its virtual instant, so a second Event of one object at one instant
//     is rejected as already existing (logged, as client-go logs a rejected
//     event) (TestARepeatedEventIsWrittenAgainNotCounted).
//   - Leader election (Spec.LeaderElection) is client-go's algorithm on the
//     scheduler, not client-go's LeaderElector itself (elect.go says why):
//     tryAcquireOrRenew and the LeaseLock's calls are upstream's, the loops
//     keep wait's timing with the retry jitter drawn from the plan's seed. A
//     renewal attempt in flight at RenewDeadline is not cancelled (upstream's
//     request context is), and the deadline wins a tie with a retry.
//     ReleaseOnCancel, resource locks other than Leases and coordinated
//     leader election are not modelled (the options that ask for them are
//     refused: TestLeaderElectionOptionsNotModelledAreRefused). The Lease
//     calls are the process's own calls: they count for a crash at a call or
//     after a write.
//   - No graceful
//     shutdown (a stopped pod's in-flight reconciles are killed at once rather
//     than given the termination grace period; GracefulShutdownTimeout is
//     refused: TestUnsupportedManagerOptionsAreRefused), no warm-up.
//   - The global loggers are installed at the first process made in the test
//     binary (controller-runtime's log.SetLogger, klog.SetLogger): a binary
//     that called ctrl.SetLogger before keeps its own logger (controller-runtime
//     fulfils it once) and those lines do not reach the timeline. klog lines
//     from no process go to klog's text logger on stderr; ctrl.Log lines from
//     no process are dropped
//     (TestGlobalLoggerLinesAreAttributedToTheirProcessAndReconcile).
//   - client-go's feature gates are wrapped at the first process made too
//     (watchlist.go): while any world is alive, a reflector made anywhere in
//     the binary, in no world (a parallel test's against a real cluster),
//     lists and then watches; a binary that replaces client-go's gates
//     itself afterwards (clientfeatures.ReplaceFeatureGates) turns
//     watch-list back on in its worlds
//     (TestWhileAWorldIsAliveEveryReflectorOfTheBinaryListsThenWatches).
//   - A process has one cache and one client; clients with different identities
//     inside one process are not modelled: a client the process builds on its
//     REST config, impersonating another user, still calls as the process
//     (TestAClientThatImpersonatesStillCallsAsTheProcess).
package process
