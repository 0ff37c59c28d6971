package patch

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// applyStrategicMergePatch is smpPatcher.applyPatchToCurrentObject with strategicPatchObject and
// applyPatchToObject of k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go: current becomes a map,
// k8s.io/apimachinery/pkg/util/strategicpatch merges the patch into it with the Go struct's
// patchStrategy/patchMergeKey tags as the schema (directives such as $patch, $retainKeys,
// $setElementOrder and $deleteFromPrimitiveList are handled there), and the map is converted into a new
// object of the Go type.
//
// Unlike a JSON or merge patch, a strategic merge patch that changes apiVersion or kind is silently
// ignored: the map is converted into the served Go type whatever its apiVersion and kind say.
func (p *patcher) applyStrategicMergePatch() (runtime.Object, error) {
	originalMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p.versionedCurrent())
	if err != nil {
		return nil, err
	}

	patchMap := make(map[string]interface{})
	var strictErrs []error
	if p.strict() {
		strictErrs, err = kjson.UnmarshalStrict(p.patchBytes, &patchMap)
	} else {
		err = kjson.UnmarshalCaseSensitivePreserveInts(p.patchBytes, &patchMap)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}

	// The schema is a zero object of the served type (schemaReferenceObj in the real handler).
	patchedMap, err := strategicpatch.StrategicMergeMapPatch(originalMap, patchMap, p.newObject())
	if err != nil {
		return nil, interpretStrategicMergePatchError(err)
	}

	invalid := func(detail string) error {
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), fmt.Sprintf("%+v", patchMap), detail),
		})
	}
	obj := p.newObject()
	err = runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(patchedMap, obj, p.strict())
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict {
			return nil, invalid(err.Error())
		}
		strictErrs = append(strictErrs, strictErr.Errors()...)
	}
	if err := p.strictDecoding(strictErrs, invalid); err != nil {
		return nil, err
	}
	return obj, nil
}
