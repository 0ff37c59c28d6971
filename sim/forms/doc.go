// Package forms converts between the three forms a client.Object of one kind can
// take in controller-runtime: its Go type from a runtime.Scheme ("typed"),
// *unstructured.Unstructured, and *metav1.PartialObjectMetadata (metadata only),
// lists included. The simulator stores and serves typed objects only; kubeclient
// and informer use this package to accept the other two forms and answer in them.
//
// # Contract
//
//   - Of tells an object's form. GVK resolves the GroupVersionKind of an object of
//     any form as controller-runtime's client does (apiutil.GVKForObject): from the
//     scheme for a typed object, from apiVersion/kind for the others, where a missing
//     kind or version is runtime's error (`Object 'Kind' is missing in 'unstructured
//     object has no kind'`, `Object 'apiVersion' is missing in ...`). ItemGVK is the
//     kind a list lists (FooList and Foo both list Foo, as controller-runtime guesses).
//   - New and NewList make an empty typed object or list of a kind. A kind with no Go
//     type in the scheme is an error: runtime's not-registered error.
//   - ToTyped converts a form object into a new typed object of its kind, with an
//     empty TypeMeta (as a typed caller usually leaves it): an Unstructured through
//     runtime.DefaultUnstructuredConverter (fields the Go type does not have are
//     dropped; a value of the wrong JSON type is an error), a PartialObjectMetadata as
//     its ObjectMeta alone.
//   - Into writes a typed object into a form object, a deep copy with apiVersion/kind
//     set to the given GVK; an Unstructured gets the converter's map (the typed
//     object's JSON as a map), a PartialObjectMetadata its ObjectMeta. ListInto does
//     the same for each item of a list and copies the list metadata (resourceVersion,
//     continue, remainingItemCount); the list's own apiVersion/kind are the caller's.
//
// # Known gaps
//
//   - Kinds with no Go type in the scheme (a CRD manifest only) cannot be converted:
//     every conversion goes through the Go type.
//   - Unstructured content is what DefaultUnstructuredConverter makes of the Go type,
//     not the server's JSON: the same fields, but integers are int64 and floats float64
//     as the converter has them, and fields unknown to the Go type are dropped on the
//     way in instead of being pruned (or kept, with x-kubernetes-preserve-unknown-fields)
//     by a CRD's structural schema.
//   - No conversion between versions: the GVK asked for must be the Go type's own.
package forms
