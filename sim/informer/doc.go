// Package informer models the informer caches of a simulated process: one lagging
// client-go cache.Indexer per kind and form, fed by the apiserver model's watch log, as
// controller-runtime's informer cache (pkg/cache) would be.
//
// # Contract
//
//   - A Cache holds the informers of one process. Cache.FormInformer (and Informer, for
//     the kind's native form) creates an informer on first use: it lists the kind from
//     the Source synchronously (HasSynced is true when it returns) and then watches it.
//   - Every committed change reaches each informer as an event. An event with
//     resourceVersion r received at virtual time t is applied at max(t + lag, the time the
//     informer's previous event is applied), through Timers.AfterFunc, so events are applied
//     in resourceVersion order, as a watch delivers them, whatever the lags drawn. An event
//     that must wait for an earlier one still waiting joins that one's batch: one timer
//     applies both, back to back, before any task can run (client-go's processLoop pops an
//     event already in its FIFO right after its predecessor). Applying
//     an event updates the store with a deep copy, then calls the handlers synchronously
//     (OnAdd(obj, false), OnUpdate(old, new), OnDelete(obj)), as client-go's processDeltas.
//   - Hold makes events queue up; Release applies the queue synchronously, now. Relist
//     replaces the store as a watch restart does (client-go's Reflector and RealFIFO
//     Replace): deletions as cache.DeletedFinalStateUnknown, then adds and updates; queued
//     events the list covers are dropped. Stop (a crashed process) ends every watch and no
//     queued event is applied afterwards.
//   - A Cache made WithStale (the plan's stale fault) starts its informers from a
//     lagging apiserver: each lists the state as it was Stale.Age earlier
//     (PastSource.ListAsOf) and receives the events since, each Age after its
//     commit, until Stale.Until, when the lagging apiserver has caught up. With
//     Stale.RV they list the state at that resourceVersion (PastSource.ListAtRV)
//     and get every later event at Stale.Until; with Stale.Kinds only the
//     informers of those kinds are behind (one watch cache lagging).
//   - A Cache made WithUnobserved (the plan's unobserved fault) keeps one object's
//     changes from its informers of the object's kind (unobserved.go): the events of
//     the object in the window (from the change that makes Unobserved.From, 0: its
//     creation, until the change that makes Until, its deletion, or End) are never
//     queued, and each list made meanwhile (the initial list, a Relist, a stale
//     view's list of the past) shows the object as it was before the window (From
//     0: not at all). The change that ends the window is delivered as any event (an
//     add of the newest state if the store lacks the object, a delete with its last
//     state); End (the heal) and CatchUpUnobserved apply the newest state withheld.
//     The Unobserved tracks the object through its own watch, subscribed before the
//     process starts, so every incarnation of the process sees the same window.
//   - A handler added to a synced informer first receives OnAdd(obj, true) for each cached
//     object, as client-go does for a handler joining a started informer.
//   - Cache implements client.Reader and client.FieldIndexer with the semantics of
//     controller-runtime's CacheReader (pkg/cache/internal/cache_reader.go): deep copies
//     out with their GroupVersionKind set, NotFound naming the Kind as resource
//     (`ConfigMap "x" not found`), namespace and label selectors, exact-match field
//     selectors through indexes named "field:<field>" (an unindexed field fails with
//     client-go's `Index with name field:x does not exist`), Limit, the
//     "continue-not-supported" continue token and an empty list resourceVersion.
//   - A Cache made WithListOrder returns each List (whole, by namespace, by field
//     selector or index, with or without a label selector; Limit takes the first
//     items of it) in the order its Order for the kind draws: package process
//     gives every process's cache a shuffle drawn from the plan per process and
//     kind, the same in every run of a plan and another at each call, as the
//     real cache returns its store's Go map order
//     (TestAListComesInTheOrderItsShuffleDraws).
//   - One informer per kind and form, as controller-runtime's informer cache keys
//     them (pkg/cache/internal/informers.go: structured, unstructured and metadata
//     maps): Get, List and IndexField take *unstructured.Unstructured(List) and
//     *metav1.PartialObjectMetadata(List) and use the kind's informer of that form
//     (FormInformer), created on first use with its own list and watch, store, lag
//     (the cache's lag function is asked once per informer), handlers and field
//     indexes. It holds its objects in its form with the kind's apiVersion/kind,
//     converted from the Source's native objects (package forms); an index added
//     with a form object indexes that form's informer and its extractor sees that
//     form. A list keeps the caller's apiVersion/kind (Foo or FooList, both
//     accepted); a form without apiVersion or kind fails with runtime's
//     MissingKind/MissingVersion error, as controller-runtime's cache does. A kind
//     with no Go type in the scheme (a CRD manifest only) is native in
//     Unstructured: its unstructured informer stores the Source's objects as they
//     are.
//   - A hold is per kind: Hold and Release on any informer of a kind hold and
//     release the cache's informers of every form of it (Release applies each
//     one's queue, in the order they were created), and an informer created while
//     its kind is held starts held. Informer(gvk) is for what acts on a kind
//     whatever its forms (a plan's holds): the native form's informer, else the
//     first of another form, else a new native one. Informers lists every
//     informer, ordered by kind and form.
//
// Nothing here starts a goroutine, reads the wall clock or depends on map order.
//
// # Known gaps
//
//   - Handlers run synchronously when an event is applied, right after the store update;
//     in client-go each handler has its own goroutine and buffer, so a slow handler lags
//     behind the store. Synthetic adds for a late handler are also delivered synchronously
//     (TestHandlersRunAsTheStoreIsUpdated, TestHandlerAddedAfterSyncSeesInitialList).
//   - No resync period: an update that keeps the resourceVersion (such as an unchanged
//     object in a relist) is never delivered, as in client-go when no resync is due;
//     periodic resyncs (controller-runtime's SyncPeriod, 10h by default) never happen
//     (TestAnInformerNeverResyncs).
//   - No watch bookmarks, no "too old resourceVersion" expiry, no watch-list streaming,
//     no list paging: the initial list and relists are one synchronous snapshot.
//     LastSyncResourceVersion (and Cache.SyncedThrough, which a cached read's trace
//     step shows) is that of the newest event applied, not received
//     (TestAListIsOneSnapshotAndLastSyncIsTheNewestApplied).
//   - An unobserved window is the process's, not one controller's: controller-runtime's
//     controllers of one manager share its informers (one store per kind and form) and
//     read the object from that shared store, so a controller-scoped form could only
//     withhold the handler calls one controller registered (source.Kind's handler on
//     the shared informer), while its Get and List still show the object the other
//     controllers' events keep current: a missed notification, not an unobserved
//     state, and not a state a real manager's controller can be in (Sieve pauses the
//     informers of the controller's process too). Per-controller caches
//     (source.Kind over a cache of the controller's own) are not modelled, and which
//     handler is which controller's is known to package process, not here
//     (TestAnUnobservedWindowHidesTheObjectFromEveryHandler).
//   - An unobserved window's deletion reaches the informer as a delete even if it
//     never had the object (From 0), as client-go's processDeltas calls OnDelete for
//     a Deleted event whatever the store holds
//     (TestADeletionOfAnObjectNeverSeenDeliversADelete). With a label or field selector
//     (WithFilter), a window ended by a change the filter drops leaves the withheld
//     state undelivered until the object's next change or the heal. A window's
//     end at the heal applies the newest withheld state at once, with the object's
//     queued events before it (a lag after the heal is not drawn for it)
//     (TestTheHealEndsAWindowWithTheNewestState).
//   - Events delayed by lag sit between the apiserver and the cache; a Relist drops them
//     as events of the broken watch (client-go would still process those already in its
//     FIFO before the Replace) (TestRelistDropsLaggingEventsItCovers).
//   - WithFilter (filter.go) gives each informer the namespaces, label and field
//     selectors and transform controller-runtime's cache options choose (package
//     process resolves them): the informer lists and watches through a filtered
//     source, as a ListWatch with selectors does (an object that stops matching
//     arrives as Deleted with its last matching state, one that starts matching as
//     Added), and a read in a namespace the filter does not cache is the
//     multi-namespace cache's error. Several namespaces are one informer, not one
//     per namespace (one lag stream: TestAFilterOfSeveralNamespacesIsOneInformer).
//     A transform that fails drops the object silently
//     (TestAnObjectWhoseTransformFailsIsDroppedSilently). No UnsafeDisableDeepCopy
//     cache option (the per-call Get/List option is honoured).
//   - The informers of one kind in one process draw their lags from one stream per
//     kind (sim/cluster names streams by process and kind), in delivery order: each
//     informer draws its own lag for each event, but adding an informer of another
//     form changes which draws the others get. (So a controller that reads and
//     watches each kind in one form, whatever the form, has exactly its typed
//     twin's timing.) TestAnotherFormsInformerShiftsTheLagsTheOthersDraw shows it.
//   - Unstructured informers of kinds with a Go type hold the unstructured
//     converter's rendering of the Go type (see package forms), not the server's
//     JSON (TestAnUnstructuredInformerHoldsTheConvertersRendering).
//   - Without WithListOrder, List results come in key order (namespace/name). With
//     it the shuffle is uniform, where Go's map order is not (it starts at a random
//     bucket and offset and walks on). Field selector requirements are looked
//     up in field order (controller-runtime takes them in the selector's order, which
//     for client.MatchingFields is map order): only which error a missing index
//     gives differs (key order without it: TestAListComesInTheOrderItsShuffleDraws).
//   - Without WithRESTMapper every kind is treated as namespaced (a Get of a cluster-scoped
//     object must then use an empty namespace), and unknown kinds are not rejected
//     (TestWithoutARESTMapperEveryKindIsNamespaced).
//   - Reads never block: a cache that was stopped before a kind's informer was created
//     fails reads of that kind with the Timeout error the real cache returns when its
//     context ends while waiting for sync. ErrCacheNotStarted and
//     ReaderFailOnMissingInformer are not modelled (TestStopPreventsPendingDeliveries).
package informer
