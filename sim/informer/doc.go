// Package informer models the informer caches of a simulated process: one lagging
// client-go cache.Indexer per kind, fed by the apiserver model's watch log, as
// controller-runtime's informer cache (pkg/cache) would be.
//
// # Contract
//
//   - A Cache holds the informers of one process. Cache.Informer creates a kind's informer
//     on first use: it lists the kind from the Source synchronously (HasSynced is true
//     when Informer returns) and then watches it.
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
//     commit, until Stale.Until, when the lagging apiserver has caught up.
//   - A handler added to a synced informer first receives OnAdd(obj, true) for each cached
//     object, as client-go does for a handler joining a started informer.
//   - Cache implements client.Reader and client.FieldIndexer with the semantics of
//     controller-runtime's CacheReader (pkg/cache/internal/cache_reader.go): deep copies
//     out with their GroupVersionKind set, NotFound naming the Kind as resource
//     (`ConfigMap "x" not found`), namespace and label selectors, exact-match field
//     selectors through indexes named "field:<field>" (an unindexed field fails with
//     client-go's `Index with name field:x does not exist`), Limit, the
//     "continue-not-supported" continue token and an empty list resourceVersion.
//   - Get, List and IndexField also take *unstructured.Unstructured(List) and
//     *metav1.PartialObjectMetadata(List) for kinds with a Go type in the scheme: they
//     read the kind's typed informer and convert (package forms). Results carry the
//     kind's apiVersion/kind; a list keeps the caller's apiVersion/kind (Foo or FooList,
//     both accepted); a form without apiVersion or kind fails with runtime's
//     MissingKind/MissingVersion error, as controller-runtime's cache does. An index
//     added with a form object calls its extractor with the object in that form.
//
// Nothing here starts a goroutine, reads the wall clock or depends on map order.
//
// # Known gaps
//
//   - Handlers run synchronously when an event is applied, right after the store update;
//     in client-go each handler has its own goroutine and buffer, so a slow handler lags
//     behind the store. Synthetic adds for a late handler are also delivered synchronously.
//   - No resync period: an update that keeps the resourceVersion (such as an unchanged
//     object in a relist) is never delivered, as in client-go when no resync is due;
//     periodic resyncs (controller-runtime's SyncPeriod, 10h by default) never happen.
//   - No watch bookmarks, no "too old resourceVersion" expiry, no watch-list streaming,
//     no list paging: the initial list and relists are one synchronous snapshot.
//     LastSyncResourceVersion is that of the newest event applied, not received.
//   - Events delayed by lag sit between the apiserver and the cache; a Relist drops them
//     as events of the broken watch (client-go would still process those already in its
//     FIFO before the Replace).
//   - No transform functions, label/field selectors or namespace restrictions on the
//     informers themselves (cache.Options ByObject, DefaultNamespaces), and no
//     UnsafeDisableDeepCopy cache option (the per-call Get/List option is honoured).
//   - Unstructured and metadata-only reads are views of the typed informer, not caches of
//     their own: controller-runtime keeps a separate informer per form (its own list,
//     watch, lag, handlers and indexes). Here every form of a kind shares one store, lag
//     and index set, so a field index added in one form serves all (and adding the same
//     field in two forms is client-go's indexer conflict). Informer, Hold and handlers
//     are typed only.
//   - Kinds with only a CRD manifest and no Go type cannot be read in any form.
//   - List results are sorted by namespace/name; the real cache returns them in map order.
//     Limit applies to that order. Field selector requirements are looked up in field
//     order (controller-runtime takes them in the selector's order, which for
//     client.MatchingFields is map order): only which error a missing index gives differs.
//   - Without WithRESTMapper every kind is treated as namespaced (a Get of a cluster-scoped
//     object must then use an empty namespace), and unknown kinds are not rejected.
//   - Reads never block: a cache that was stopped before a kind's informer was created
//     fails reads of that kind with the Timeout error the real cache returns when its
//     context ends while waiting for sync. ErrCacheNotStarted and
//     ReaderFailOnMissingInformer are not modelled.
package informer
