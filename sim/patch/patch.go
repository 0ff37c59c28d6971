package patch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

const (
	// MaxRequestBodyBytes is the kube-apiserver's default limit on a request body
	// (k8s.io/apiserver@v0.37.2/pkg/server/config.go, MaxRequestBodyBytes: 3 * 1024 * 1024). A larger patch
	// body fails with 413 RequestEntityTooLarge before it is looked at.
	MaxRequestBodyBytes = 3 * 1024 * 1024

	// MaxJSONPatchOperations is the most operations one JSON patch may hold
	// (maxJSONPatchOperations in k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go).
	MaxJSONPatchOperations = 10000
)

// Options describe the resource being patched and the request's options.
type Options struct {
	// Strategic is true when the kind supports strategic merge patch (built-in Go types registered from
	// k8s.io/api); false for custom resources, for which the real apiserver rejects it.
	Strategic bool
	// GroupResource is the resource patched, e.g. {Group: "apps", Resource: "deployments"}. The core
	// "namespaces" resource is cluster-scoped by its request namespace, as in the real handler.
	GroupResource schema.GroupResource
	// Name is the name on the request URL. Empty means current's name. A patched object whose name differs
	// is rejected with 400 BadRequest.
	Name string
	// Kind is the kind current is served as: the apiVersion and kind of the document a JSON patch or merge
	// patch is applied to. Empty means current's TypeMeta. A JSON or merge patch that sets another
	// apiVersion or kind is rejected with 422 Invalid (see the package doc's known gaps).
	Kind schema.GroupVersionKind
	// PatchOptions are the request's options (client.PatchOption values end up here). They are validated
	// as the real handler validates them. FieldValidation picks how unknown and duplicate fields are
	// treated: "" means Warn, the real default. DryRun and FieldManager are otherwise the caller's.
	PatchOptions metav1.PatchOptions
}

// Apply returns the object that a PATCH of type pt with body data makes of current. current is a typed
// object (pointer to a struct registered in a scheme) and is not modified; the result is a new object of the
// same Go type. Errors are *apierrors.StatusError values with the reason/code the real apiserver gives.
//
// Apply is ApplyWithWarnings without the warnings.
func Apply(current runtime.Object, pt types.PatchType, data []byte, opts Options) (runtime.Object, error) {
	obj, _, err := ApplyWithWarnings(current, pt, data, opts)
	return obj, err
}

// ApplyWithWarnings is Apply that also returns the warnings the real apiserver sends in Warning headers:
// with fieldValidation Warn (the default), one per unknown or duplicate field the patch or the patched
// object holds, e.g. `unknown field "spec.foo"`. The unknown fields themselves are dropped.
//
// The steps follow PatchResource and patcher.applyPatch in
// k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go, in their order: media type (415), body size
// (413), options (422), JSON syntax (400), the patch itself, decoding into the Go type, then the
// namespace and name checks (400).
func ApplyWithWarnings(current runtime.Object, pt types.PatchType, data []byte, opts Options) (runtime.Object, []string, error) {
	mustBeTyped(current)
	accessor, err := meta.Accessor(current)
	if err != nil {
		panic(fmt.Sprintf("patch: current object has no metadata: %v", err))
	}

	// PatchResource drops "; charset=..." from the Content-Type before matching it.
	if i := strings.Index(string(pt), ";"); i > 0 {
		pt = pt[:i]
	}
	if err := checkMediaType(pt, opts.Strategic); err != nil {
		return nil, nil, err
	}
	if pt == types.ApplyYAMLPatchType {
		return nil, nil, errServerSideApply(opts.Strategic)
	}
	if len(data) > MaxRequestBodyBytes {
		// limitedReadBody in k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/rest.go.
		return nil, nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", MaxRequestBodyBytes))
	}
	if errs := validation.ValidatePatchOptions(&opts.PatchOptions, pt); len(errs) > 0 {
		return nil, nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	// validateAndTranscodePatch.
	if !json.Valid(data) {
		return nil, nil, apierrors.NewBadRequest("invalid JSON patch")
	}

	p := &patcher{
		current:    current,
		kind:       opts.Kind,
		patchType:  pt,
		patchBytes: data,
		validation: fieldValidation(opts.PatchOptions.FieldValidation),
	}
	if p.kind.Empty() {
		p.kind = current.GetObjectKind().GroupVersionKind()
	}
	name := opts.Name
	if name == "" {
		name = accessor.GetName()
	}
	patched, err := p.apply(opts.GroupResource, name)
	if err != nil {
		return nil, nil, serverError(err)
	}
	// The patched object is built from scratch: give it current's TypeMeta, as the real apiserver stores
	// the patched object as the type it serves (a JSON or merge patch that changes apiVersion or kind
	// failed in decodePatched; a strategic merge patch ignores such a change).
	patched.GetObjectKind().SetGroupVersionKind(current.GetObjectKind().GroupVersionKind())

	requestNamespace := accessor.GetNamespace()
	if opts.GroupResource == (schema.GroupResource{Resource: "namespaces"}) {
		requestNamespace = "" // rest.ExpectedNamespaceForResource
	}
	if err := checkNamespaceAndName(patched, requestNamespace, name); err != nil {
		return nil, nil, err
	}
	return patched, p.warnings, nil
}

// apply runs the patch mechanism of the patch type. A panic in it (strategicpatch has some, e.g. on
// {"$retainKeys":[[]]}) is what the real apiserver's finisher.FinishRequest and WithPanicRecovery turn
// into a plain-text 500 "This request caused apiserver to panic. Look in the logs for details."; the
// error is the one client-go makes of that answer (rest.Request.newUnstructuredResponseError).
func (p *patcher) apply(resource schema.GroupResource, name string) (patched runtime.Object, err error) {
	mechanism := p.applyJSONPatch
	switch p.patchType {
	case types.JSONPatchType, types.MergePatchType:
	case types.StrategicMergePatchType:
		mechanism = p.applyStrategicMergePatch
	default:
		panic(fmt.Sprintf("unreachable: checkMediaType let %s through", p.patchType))
	}
	defer func() {
		if r := recover(); r != nil {
			patched = nil
			err = apierrors.NewGenericServerResponse(http.StatusInternalServerError, http.MethodPatch, resource, name,
				"This request caused apiserver to panic. Look in the logs for details.", 0, true)
		}
	}()
	return mechanism()
}

// patcher holds one patch request; it mirrors the patcher struct of the real handler.
type patcher struct {
	current    runtime.Object
	kind       schema.GroupVersionKind
	patchType  types.PatchType
	patchBytes []byte
	validation string // metav1.FieldValidationIgnore, Warn or Strict
	warnings   []string
}

// strict reports whether the patch and the patched object are decoded with the strict decoder, which
// reports unknown and duplicate fields (as warnings for Warn, as errors for Strict).
func (p *patcher) strict() bool {
	return p.validation == metav1.FieldValidationWarn || p.validation == metav1.FieldValidationStrict
}

// fieldValidation is the function of the same name in k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/rest.go:
// an unset directive means Warn.
func fieldValidation(directive string) string {
	if directive == "" {
		return metav1.FieldValidationWarn
	}
	return directive
}

// newObject returns a new zero object of current's Go type, as restPatcher.New() does for the real handler.
func (p *patcher) newObject() runtime.Object {
	return reflect.New(reflect.TypeOf(p.current).Elem()).Interface().(runtime.Object)
}

// versionedCurrent returns a copy of current whose TypeMeta is the served kind, as the object the real
// handler converts to its served version before patching it.
func (p *patcher) versionedCurrent() runtime.Object {
	obj := p.current.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(p.kind)
	return obj
}

func mustBeTyped(obj runtime.Object) {
	if obj == nil {
		panic("patch: current object is nil")
	}
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return // a custom resource with no Go type, patched as JSON (merge and JSON patch only)
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		panic(fmt.Sprintf("patch: %T is not a typed object; this package patches Go structs only", obj))
	}
	if t := reflect.TypeOf(obj); t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("patch: %T is not a pointer to a struct", obj))
	}
}

// CheckNamespaceAndName is checkNamespaceAndName, for the apiserver model's
// server-side apply, whose result the handler checks as any patch's.
func CheckNamespaceAndName(obj runtime.Object, requestNamespace, name string) error {
	return checkNamespaceAndName(obj, requestNamespace, name)
}

// checkNamespaceAndName is the tail of patcher.applyPatch: rest.EnsureObjectNamespaceMatchesRequestNamespace
// (k8s.io/apiserver@v0.37.2/pkg/registry/rest/meta.go) then checkName (handlers/rest.go). A patch may leave
// metadata.namespace empty (it is set back), may not move a namespaced object to another namespace, and
// may not change or remove metadata.name.
func checkNamespaceAndName(obj runtime.Object, requestNamespace, name string) error {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	switch objNamespace := accessor.GetNamespace(); {
	case objNamespace == requestNamespace:
	case objNamespace == metav1.NamespaceNone:
		accessor.SetNamespace(requestNamespace)
	case requestNamespace == metav1.NamespaceNone:
		accessor.SetNamespace(metav1.NamespaceNone)
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if accessor.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf(
			"the name of the object (%s) does not match the name on the URL (%s)", accessor.GetName(), name))
	}
	return nil
}
