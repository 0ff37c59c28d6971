// Package patch computes the object a PATCH request makes of a stored object, as the kube-apiserver
// does, as a pure function: no storage, no clock, no randomness.
//
// The apiserver model calls Apply with the current object and the request's patch type and body, then
// treats the result like the body of an Update: resourceVersion precondition, generation, status
// subresource rules, defaulting, admission and validation are the caller's. This package only computes
// the patched object and the errors of the patch itself, following PatchResource, jsonPatcher,
// smpPatcher and patcher.applyPatch in k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go with the
// libraries they use: gopkg.in/evanphx/json-patch.v4 for JSON patch and JSON merge patch,
// k8s.io/apimachinery/pkg/util/strategicpatch (with the Go struct's tags as the schema) for strategic
// merge patch, sigs.k8s.io/json and the unstructured converter to decode the result.
//
// A JSON merge patch usually takes a faster road to the same result (merge.go): the merge is done on
// the raw bytes instead of through the library, which decodes and re-encodes every object it touches.
// It is taken only for an object patch whose patched object decodes with no error and nothing to warn
// about; anything else goes through the library, so errors and warnings quote its document byte for
// byte. TestMergePatchIsTheLibrarys and TestFastMergeIsTheHandlersPath check the two roads agree;
// BenchmarkMergePatch measures them side by side (about 2x).
//
// # Contract
//
// current is a typed object (a pointer to a Go struct with ObjectMeta) and is never modified. The result
// is a new object of the same Go type, with current's TypeMeta. current may also be an
// *unstructured.Unstructured with its apiVersion/kind (a custom resource whose kind has no Go type, as
// the custom resource handler stores every custom resource): its JSON is patched (JSON and merge patch;
// it is never Strategic) and decoded into a new Unstructured, where no field is unknown (the CRD's
// schema prunes later); only the patch's own duplicate fields are reported. Misuse (nil, other
// runtime.Unstructured types or non-struct objects) panics: it is a bug in the harness, not a result.
//
// The patched object is decoded from scratch into the Go type. Unknown fields are dropped. With
// fieldValidation Warn (the real default; "" means Warn here too) each unknown or duplicate field is
// reported as a warning by ApplyWithWarnings, e.g. `unknown field "spec.foo"`; with Ignore they are
// dropped silently; with Strict the patch fails with 422 Invalid.
//
// # Errors
//
// Errors are *apierrors.StatusError with the code and reason of the real apiserver, and its message
// where the real text is known (the tests pin them):
//
//   - 415 UnsupportedMediaType: a Content-Type that is no patch type; strategic merge patch on a custom
//     resource (Options.Strategic false), listing the accepted media types; application/apply-patch+cbor
//     (its feature gate is off by default); server-side apply (see Known gaps).
//   - 413 RequestEntityTooLarge: a body over 3 MiB, or a JSON patch of more than 10000 operations.
//   - 422 Invalid of kind PatchOptions: invalid options, e.g. force on a non-apply patch.
//   - 400 BadRequest: a body that is not JSON ("invalid JSON patch"); a JSON patch that is not a list of
//     operations; a merge patch that is not an object, or is null ("Invalid JSON Patch"); a strategic
//     merge patch that is not an object, or a malformed $retainKeys; a patched object whose
//     metadata.name is not the URL's, or that names another namespace.
//   - 422 Invalid: a JSON patch operation that fails (test mismatch, remove or replace of a missing path,
//     index out of range, unknown op). The real message is only "the server rejected our request due to
//     an error in our request", with no causes, whichever operation failed.
//   - 422 Invalid with one cause on field "patch": a patched object that does not decode into the Go type
//     (a string where an integer goes); unknown or duplicate fields with fieldValidation Strict.
//   - 500 with reason Unknown (not InternalError): strategic merge errors the real handler does not
//     classify, e.g. a list item without its merge key ("map: map[image:x] does not contain declared merge
//     key: name") or an unknown $patch directive.
//   - 500 InternalError: a patch on which the patch libraries panic (e.g. {"$retainKeys":[[]]}); the real
//     apiserver recovers and answers "This request caused apiserver to panic. Look in the logs for
//     details.", and the error is the one client-go makes of that answer.
//
// # What the caller must know
//
//   - metadata.resourceVersion in a patch is an optimistic-lock precondition: the patched object carries
//     the patch's resourceVersion (client.MergeFromWithOptimisticLock puts it there), and the update that
//     follows must fail with 409 Conflict if it is stale. A patch without one carries current's, and the
//     real apiserver retries such a patch on the newest object (GuaranteedUpdate): it never conflicts. A
//     patch that sets it to null or "" makes an unconditional update.
//   - A patch that changes or removes metadata.name fails here, 400 BadRequest ("the name of the object
//     (x) does not match the name on the URL (y)"). One that sets another metadata.namespace fails with
//     400; one that removes it gets the request namespace back. uid, creationTimestamp and other immutable
//     metadata are the update path's to protect (ValidateObjectMetaUpdate, rest.BeforeUpdate).
//   - Strategic merge directives are strategicpatch's: {"$patch":"delete"} on a list item removes it; at the
//     top level it empties the object, so the name check fails with 400. $retainKeys clears the fields it
//     does not list (Deployment spec.strategy). $setElementOrder orders a merged list; without it the
//     patch's items come first. metadata.finalizers has patchStrategy merge: a strategic patch adds to the
//     list and $deleteFromPrimitiveList/finalizers removes from it, where a merge patch replaces the whole
//     list (so a merge patch without resourceVersion drops a finalizer another writer added in between).
//   - The real apiserver defaults the patched object when it decodes it, as it does an update body. Apply
//     does not default: the caller defaults it as it defaults an Update.
//   - A PATCH of a missing object is NotFound before any of this (only apply creates); that is the
//     caller's, as are admission, ownerReference deduplication and dry run.
//
// # Known gaps
//
//   - Server-side apply is not computed here: Apply refuses application/apply-patch+yaml with 415
//     UnsupportedMediaType and a message naming the model. The apiserver model serves apply itself
//     (sim/apiserver apply.go, with the field manager) and records every patch's managedFields there;
//     it uses CheckNamespaceAndName and ServerError from here (TestServerSideApplyIsRefusedWith415).
//   - A JSON or merge patch that sets apiVersion or kind to other values fails with 422 Invalid. The real
//     apiserver converts the object when the new apiVersion is another served version of the same kind,
//     and fails (also 422) otherwise. A patch that removes them is treated as leaving them unchanged; what
//     the real decoder does then is not modelled
//     (TestAPatchThatChangesApiVersionIsInvalidAndOneThatRemovesItChangesNothing).
//   - Custom resources are Go structs here and decode like built-in types: a value of the wrong type is a
//     422 from decoding (field "patch"), where the real apiserver decodes into unstructured and rejects it
//     with a 422 from OpenAPI schema validation (other fields and message). Unknown fields are dropped as
//     schema pruning drops them; x-kubernetes-preserve-unknown-fields is not modelled
//     (TestACustomResourceOfTheWrongTypeFailsInDecodingNotInSchemaValidation).
//   - The JSON patch copy size limit (jsonpatch.AccumulatedCopySizeLimit, 3 MiB in the real apiserver) is
//     not enforced: setting it would change a process-wide variable of json-patch.v4
//     (TestJSONPatchCopiesAreNotLimitedInSize).
//   - Error messages that name Go types are the real ones where the Go types are the real ones (k8s.io/api
//     types): a test type or a CR struct names itself (TestErrorMessagesNameTheGoTypesTheyDecodeInto).
//   - Messages of decoding errors inside one map-typed field may depend on Go map order when several
//     entries are wrong, in the real apiserver as here (the unstructured converter ranges over the map);
//     the codes and reasons do not (TestDecodingErrorsInAMapFieldQuoteWhicheverEntryComesFirst).
package patch
