// Package forms converts between the three forms a client.Object of one kind can
// take in controller-runtime: its Go type from a runtime.Scheme ("typed"),
// *unstructured.Unstructured, and *metav1.PartialObjectMetadata (metadata only),
// lists included. The simulator stores and serves each kind in its native form
// (typed, or Unstructured for a kind no Go type defines); kubeclient and informer
// use this package to accept the other forms and answer in them.
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
//     empty TypeMeta (as a typed caller usually leaves it): an Unstructured as the
//     apiserver decodes a body, its JSON read by sigs.k8s.io/json's case-sensitive
//     decoder (fields the Go type does not have are dropped; a value of the wrong
//     JSON type is the decoder's error, `json: cannot unmarshal string into Go struct
//     field ConfigMap.data of type map[string]string`), a PartialObjectMetadata as
//     its ObjectMeta alone.
//   - Into writes a typed object into a form object, a deep copy with apiVersion/kind
//     set to the given GVK; an Unstructured gets the converter's map (the typed
//     object's JSON as a map), a PartialObjectMetadata its ObjectMeta. ListInto does
//     the same for each item of a list and copies the list metadata (resourceVersion,
//     continue, remainingItemCount); the list's own apiVersion/kind are the caller's.
//   - A kind's native form (Native) is the form the apiserver model stores it in: its
//     Go type when the scheme has one, else Unstructured (a custom resource only a
//     CRD manifest defines). IsNative, NewNative, NewNativeList and ToNative are the
//     typed helpers generalised to it: for a kind with no Go type the native object is
//     an Unstructured naming the kind, a PartialObjectMetadata converts to an
//     Unstructured holding its metadata, and Into/ListInto take an Unstructured as
//     the source (a deep copy of its content).
//
// # Known gaps
//
//   - Unstructured content is what DefaultUnstructuredConverter makes of the Go type,
//     not the server's JSON: the same fields, but integers are int64 and floats float64
//     as the converter has them, and fields unknown to the Go type are dropped on the
//     way in instead of being pruned (or kept, with x-kubernetes-preserve-unknown-fields)
//     by a CRD's structural schema
//     (TestUnstructuredContentIsTheConvertersRenderingOfTheGoType).
//   - No conversion between versions: the GVK asked for must be the Go type's own (or,
//     for a kind with no Go type, the CRD's storage version)
//     (TestAnObjectIsNeverConvertedBetweenVersions).
package forms
