package apiserver

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/sim/patch"
)

// isApply reports whether pt is server-side apply (a "; charset=..." suffix
// is dropped, as PatchResource drops it).
func isApply(pt types.PatchType) bool {
	if i := strings.Index(string(pt), ";"); i > 0 {
		pt = pt[:i]
	}
	return pt == types.ApplyYAMLPatchType
}

// validateWriteOptions is ValidateCreateOptions/ValidateUpdateOptions's check
// of the options the model reads: the fieldManager, force (PatchOptions
// only: refused) and dryRun (All only).
func validateWriteOptions(o WriteOptions, kind string) error {
	var errs field.ErrorList
	if o.FieldManager != "" {
		errs = append(errs, validation.ValidateFieldManager(o.FieldManager, field.NewPath("fieldManager"))...)
	}
	if o.Force != nil {
		errs = append(errs, field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch"))
	}
	errs = append(errs, validation.ValidateDryRun(field.NewPath("dryRun"), o.DryRun)...)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

// apply is a PATCH of type application/apply-patch+yaml, as the handler's
// applyPatcher serves it (k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/
// patch.go): the options validated (a fieldManager is required), the body
// decoded from YAML (400 "error decoding patch: ..."), then the field
// manager's Apply merges it into the live object by field ownership (a
// conflict is its 409 naming each conflicting manager and field; force takes
// the fields over; the fields the manager applied before and applies no
// longer are removed unless another manager owns them). The result is written
// as a patch's is (update: admission, strategy, validation, storage). An
// object that does not exist is created from the applied configuration (the
// handler's forceAllowCreate), except through the status subresource, whose
// store never creates (404). targetErr is target's error.
func (s *Server) apply(r Request, obj, existing client.Object, targetErr error, data []byte, o WriteOptions) error {
	create := false
	if targetErr != nil {
		if !apierrors.IsNotFound(targetErr) || r.Kind == nil || r.Subresource != "" || existing != nil {
			return targetErr
		}
		create = true
	}
	k := r.Kind
	if len(data) > patch.MaxRequestBodyBytes {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", patch.MaxRequestBodyBytes))
	}
	po := metav1.PatchOptions{FieldManager: o.FieldManager, Force: o.Force, DryRun: o.DryRun}
	if errs := validation.ValidatePatchOptions(&po, types.ApplyYAMLPatchType); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	patchObj := &unstructured.Unstructured{Object: map[string]any{}}
	if err := yaml.Unmarshal(data, &patchObj.Object); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	force := o.Force != nil && *o.Force
	var live client.Object
	if create {
		n, err := (objectConverter{k: k, scheme: s.kinds.scheme}).New(k.GVK)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		live = asStored(k, n.(client.Object))
	} else {
		live = existing
	}
	applied, err := s.applyFields(k, r.Subresource, live, patchObj, o.FieldManager, force)
	if err != nil {
		return patch.ServerError(err)
	}
	if create && applied.GetUID() != "" {
		return apierrors.NewConflict(k.GroupResource(), r.Name,
			fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", applied.GetUID()))
	}
	ns := r.Namespace
	if !k.Namespaced {
		ns = ""
	}
	if err := patch.CheckNamespaceAndName(applied, ns, r.Name); err != nil {
		return err
	}
	r.applied = true
	var out client.Object
	if create {
		if k.Namespaced {
			if err := s.namespaceLifecycle(r, r.Name); err != nil {
				return err
			}
		}
		if err := crdCreateRefused(k, r.Name); err != nil {
			return err
		}
		applied.SetResourceVersion("")
		r.Verb = "patch"
		out, err = s.create(r, applied)
	} else {
		out, err = s.update(r, applied, existing, false)
	}
	if err != nil {
		return err
	}
	if err := s.ambiguous(r); err != nil {
		return err
	}
	copyInto(obj, out)
	return nil
}
