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
//     RESTMapper reports it.
//   - Responses are decoded into the caller's object: after a write, obj holds the
//     stored object without apiVersion/kind, as the typed client leaves it.
//
// # Known gaps
//
//   - Server-side apply (Apply) fails with 415; dry-run requests fail with 400.
//   - Subresources: only update and patch of "status" (every kind with a status
//     subresource) and "finalize" (namespaces). Get/Create of subresources (scale,
//     eviction, token) are not served.
//   - Unstructured and PartialObjectMetadata objects are not supported.
//   - Field owners, field validation directives and warnings are accepted and
//     ignored.
//   - The REST mapper is built from the kinds the server serves when it is asked
//     for; it is not a discovery client and has no caching or invalidation of its own.
package kubeclient
