// Package kubeclient is the controller-runtime client.Client of a simulated process:
// it acts as one identity (a ServiceAccount), reads from the process's informer cache
// and writes straight to the apiserver model, as a manager's default client does.
// APIReader reads from the server instead, as mgr.GetAPIReader() does.
//
// # Contract
//
//   - Every call runs between Hooks.Before and Hooks.After. The scheduler yields in
//     Before; a crash injected in Before means the call never reaches the server,
//     and a reconcile killed there makes no later call, deferred or not.
//   - The checks client-go's rest.Request makes before sending are reproduced with
//     its messages: "resource name may not be empty", "an empty namespace may not be
//     set during creation", "an empty namespace may not be set when a resource name
//     is provided". A cluster-scoped object's namespace is not sent
//     (NamespaceIfScoped).
//   - A type missing from the scheme fails as controller-runtime's client fails
//     (runtime's "no kind is registered" error); a kind the server does not serve
//     (a CRD not installed) fails with a *meta.NoKindMatchError, as the dynamic
//     RESTMapper reports it. The client's mapper keeps what it loaded, as
//     controller-runtime's does (the kinds of each group it was asked for): a
//     kind it mapped and no longer served (its CRD deleted) is kube-apiserver's
//     404 "the server could not find the requested resource (get <resource>)"
//     with the "404 page not found" cause, as client-go makes it (Client.mapped;
//     internal/differential TestCRDLifecycleMatchesKubeAPIServer). Cached reads
//     are left as they are.
//   - Responses are decoded into the caller's object: after a write, obj holds the
//     stored object without apiVersion/kind, as the typed client leaves it (Update
//     and Patch put the caller's apiVersion/kind back after Hooks.After, so After
//     sees the object as the server returned it).
//   - Unstructured and metadata-only objects: every verb takes
//     *unstructured.Unstructured(List) and Get, List, Patch, Delete, DeleteAllOf and
//     Status().Patch take *metav1.PartialObjectMetadata(List), cached and APIReader
//     reads included, for built-in kinds and custom resources. A kind's native form
//     (package forms) is its Go type, or Unstructured for a custom resource that only
//     a CRD manifest defines (no Go type in the scheme): calls in the native form go
//     to the server as they are (an Unstructured of a CRD-only kind is stored and
//     answered as the server's JSON, with apiVersion/kind). A write in another form
//     is converted to the native form (package forms), made as the native call (so
//     the hooks, and the process trace, see exactly what a typed caller's call
//     gives, digests included), and its result written back into the caller's form
//     with the kind's apiVersion/kind. A cached read in another form reads the
//     cache's informer of that form (its own store and lag, as controller-runtime's
//     cache keeps one informer per form); its hooks see the native object with the
//     identity and resourceVersion read. A direct read is the native read,
//     converted (a list: items with the item kind; an UnstructuredList read from the
//     server takes <Kind>List, the others keep the caller's). A patch's bytes are
//     p.Data of the caller's object (for client.Merge from an Unstructured, its
//     JSON). Delete and DeleteAllOf leave the object as it was. As
//     controller-runtime's client: a form without apiVersion or kind fails with
//     runtime's MissingKind/MissingVersion error; a kind no CRD serves with a
//     *meta.NoKindMatchError; a PartialObjectMetadata Create, Update or
//     Status().Update fails with "cannot create using only metadata", "cannot
//     update using only metadata -- did you mean to patch?", "cannot update status
//     using only metadata -- did you mean to patch?"; a PartialObjectMetadata
//     Delete of a kind with no Go type is done, but its answer, when the object
//     stays (finalizers), is the scheme's not-registered error (controller-runtime
//     deletes metadata with its typed client, which cannot decode the object).
//     Such failures are still one call between the hooks, whose Call.Object is the
//     native copy (or the form object when its kind cannot be resolved). Content
//     the Go type cannot hold is the server's 400 (`ConfigMap in version "v1"
//     cannot be handled as a ConfigMap: json: cannot unmarshal ...`), checked
//     against kube-apiserver by internal/differential (unstructured_test.go).
//
// # Known gaps
//
//   - Apply and SubResource(...).Apply send the
//     apply configuration's JSON as an apply patch to the object it names and
//     decode the answer into it, as controller-runtime's typed client does;
//     an apply configuration without apiVersion, kind or name fails before the
//     call with the client's own message, not controller-runtime's
//     (TestAnApplyConfigurationWithoutANameFailsBeforeTheCall).
//   - Subresources: only update and patch of "status" (every kind with a status
//     subresource) and "finalize" (namespaces). Get/Create of subresources (scale,
//     eviction, token) are not served (TestGetAndCreateOfASubresourceAreNotServed).
//   - Unstructured and PartialObjectMetadata of kinds with a Go type: fields the Go
//     type does not have are dropped, where a real server prunes them by the CRD's
//     structural schema (or keeps them); the Unstructured content returned is the
//     unstructured converter's rendering of the Go type, not the server's JSON.
//     Unstructured reads are served by the cache by default, as with
//     client.CacheOptions{Unstructured: true}, where controller-runtime's default
//     client reads them from the server (Options.UncachedUnstructured does that; a
//     process's client sets it when its manager.Options say so). Options.Uncached
//     names kinds read from the server, as client.CacheOptions.DisableFor does
//     (TestUnstructuredDropsFieldsTheGoTypeDoesNotHaveAndReadsFromTheCache).
//   - Field validation directives are accepted and ignored
//     (TestFieldValidationStrictIsAcceptedAndIgnored). Field owners
//     (client.FieldOwner, Options.FieldOwner as client.WithFieldOwner sets it)
//     and ForceOwnership reach the server.
//   - The REST mapper is built from the kinds the server serves when it is asked
//     for; it is not a discovery client and has no caching or invalidation of its own: a
//     mapper taken before a CRD is installed never maps its kind
//     (TestTheRESTMapperIsASnapshotOfTheServedKinds).
package kubeclient
