package patch

import (
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/ctrlsim/ctrlsim/sim/patch/internal/handlers"
)

// applyJSONPatch is jsonPatcher.applyPatchToCurrentObject of k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go,
// for JSON patch (RFC 6902) and JSON merge patch (RFC 7386): encode current as JSON, patch the bytes with
// gopkg.in/evanphx/json-patch.v4, decode the result into a new object of the Go type.
func (p *patcher) applyJSONPatch() (runtime.Object, error) {
	// The real handler encodes with its codec, which writes apiVersion and kind.
	currentJS, err := json.Marshal(p.versionedCurrent())
	if err != nil {
		return nil, err
	}
	if p.patchType == types.MergePatchType && fastMergePatch {
		if obj, ok := p.fastMerge(currentJS); ok {
			return obj, nil
		}
	}
	patchedJS, strictErrs, err := p.applyJSPatch(currentJS)
	if err != nil {
		return nil, err
	}
	return p.decodePatched(patchedJS, strictErrs)
}

// fastMergePatch turns fastMerge on; tests turn it off to compare.
var fastMergePatch = true

// fastMerge is the common case of a JSON merge patch, done by mergePatch instead of the
// library: a patch that is an object with no duplicate fields, and a patched object that decodes
// with no error and nothing to warn about. Otherwise ok is false and the caller takes the real
// handler's path, whose errors and warnings quote the library's patched document byte for byte.
func (p *patcher) fastMerge(currentJS []byte) (obj runtime.Object, ok bool) {
	if p.strict() {
		v := map[string]any{}
		if strictErrs, err := kjson.UnmarshalStrict(p.patchBytes, &v); err != nil || len(strictErrs) > 0 {
			return nil, false
		}
	}
	merged, ok := mergePatchObject(currentJS, p.patchBytes)
	if !ok {
		return nil, false
	}
	apiVersion, kind, ok := merged.typeMeta()
	if !ok {
		return nil, false
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, false
	}
	patchedJS := merged.appendTo(make([]byte, 0, len(currentJS)+len(p.patchBytes)))
	warned := len(p.warnings)
	obj, err = p.decodeKind(patchedJS, gv.WithKind(kind), nil)
	if err != nil || len(p.warnings) != warned {
		p.warnings = p.warnings[:warned]
		return nil, false
	}
	return obj, true
}

// applyJSPatch is jsonPatcher.applyJSPatch.
func (p *patcher) applyJSPatch(versionedJS []byte) (patchedJS []byte, strictErrs []error, err error) {
	switch p.patchType {
	case types.JSONPatchType:
		if p.strict() {
			var err error
			if strictErrs, err = handlers.StrictDecodeJSONPatch(p.patchBytes); err != nil {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
			for i, e := range strictErrs {
				strictErrs[i] = fmt.Errorf("json patch %v", e)
			}
		}
		patchObj, err := jsonpatch.DecodePatch(p.patchBytes)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		if len(patchObj) > MaxJSONPatchOperations {
			return nil, nil, apierrors.NewRequestEntityTooLargeError(
				fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d",
					MaxJSONPatchOperations, len(patchObj)))
		}
		patchedJS, err := patchObj.Apply(versionedJS)
		if err != nil {
			// The real handler passes the json-patch error as the server message, which
			// NewGenericServerResponse drops for 422: the client sees only "the server rejected our request
			// due to an error in our request", whichever operation failed and why.
			return nil, nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return patchedJS, strictErrs, nil
	case types.MergePatchType:
		if p.strict() {
			v := map[string]any{}
			var err error
			if strictErrs, err = kjson.UnmarshalStrict(p.patchBytes, &v); err != nil {
				return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
		}
		patchedJS, err = jsonpatch.MergePatch(versionedJS, p.patchBytes)
		if err == jsonpatch.ErrBadJSONPatch {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		return patchedJS, strictErrs, err
	default:
		panic(fmt.Sprintf("unreachable: applyJSPatch called for %s", p.patchType))
	}
}

// decodePatched is the decoding half of jsonPatcher.applyPatchToCurrentObject: runtime.DecodeInto with the
// handler's codec, whose JSON serializer is the strict one unless fieldValidation is Ignore
// (k8s.io/apimachinery@v0.37.2/pkg/runtime/serializer/json/json.go, Serializer.Decode and unmarshal).
// Unknown fields are dropped; with the strict serializer they are also reported, as warnings (Warn) or as
// a 422 (Strict). Any other decoding error, such as a string where an integer goes, is a 422.
func (p *patcher) decodePatched(patchedJS []byte, strictErrs []error) (runtime.Object, error) {
	// The serializer reads apiVersion and kind first, and decodes into the type they name.
	gvk, err := kjsonserializer.DefaultMetaFactory.Interpret(patchedJS)
	if err != nil {
		return nil, invalidPatched(patchedJS, err.Error())
	}
	return p.decodeKind(patchedJS, *gvk, strictErrs)
}

// decodeKind is decodePatched once the patched document's apiVersion and kind are read.
func (p *patcher) decodeKind(patchedJS []byte, gvk schema.GroupVersionKind, strictErrs []error) (runtime.Object, error) {
	invalid := func(detail string) error { return invalidPatched(patchedJS, detail) }
	if !p.kind.Empty() && !sameKind(gvk, p.kind) {
		return nil, invalid(fmt.Sprintf(
			"the patched object is %s, not %s: the ctrlsim apiserver model does not let a patch change apiVersion or kind",
			describeKind(gvk), describeKind(p.kind)))
	}

	obj := p.newObject()
	var decodeStrictErrs []error
	var err error
	if u, ok := obj.(*unstructured.Unstructured); ok {
		// The custom resource handler decodes into unstructured JSON: no field is
		// unknown there (the schema prunes them later).
		if err := u.UnmarshalJSON(patchedJS); err != nil {
			return nil, invalid(err.Error())
		}
		if err := p.strictDecoding(strictErrs, invalid); err != nil {
			return nil, err
		}
		return obj, nil
	}
	if p.strict() {
		decodeStrictErrs, err = kjson.UnmarshalStrict(patchedJS, obj)
	} else {
		err = kjson.UnmarshalCaseSensitivePreserveInts(patchedJS, obj)
	}
	if err != nil {
		// Non-strict errors trump strict ones, as in the real handler.
		return nil, invalid(err.Error())
	}
	if err := p.strictDecoding(append(strictErrs, decodeStrictErrs...), invalid); err != nil {
		return nil, err
	}
	return obj, nil
}

// invalidPatched is the 422 of a patched document that does not decode: it quotes the document.
func invalidPatched(patchedJS []byte, detail string) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), string(patchedJS), detail),
	})
}

// strictDecoding handles unknown and duplicate fields per the fieldValidation directive: warnings for
// Warn, an Invalid error for Strict (built by invalid), nothing for Ignore (never reported then).
func (p *patcher) strictDecoding(strictErrs []error, invalid func(detail string) error) error {
	if len(strictErrs) == 0 {
		return nil
	}
	if p.validation == metav1.FieldValidationWarn {
		// addStrictDecodingWarnings in handlers/rest.go: one warning per error, its text as is.
		for _, e := range strictErrs {
			p.warnings = append(p.warnings, e.Error())
		}
		return nil
	}
	return invalid(runtime.NewStrictDecodingError(strictErrs).Error())
}

// sameKind reports whether a patched document's apiVersion/kind are still the served ones. A field the
// patch removed counts as unchanged (the real decoder fills it in from the target type).
func sameKind(got, want schema.GroupVersionKind) bool {
	if got.Kind != "" && got.Kind != want.Kind {
		return false
	}
	if got.GroupVersion().Empty() {
		return true
	}
	return got.GroupVersion() == want.GroupVersion()
}

func describeKind(gvk schema.GroupVersionKind) string {
	return fmt.Sprintf("apiVersion %q kind %q", gvk.GroupVersion().String(), gvk.Kind)
}
