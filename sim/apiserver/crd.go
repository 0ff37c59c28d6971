package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralcel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/yaml"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	celcommon "k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CRDsFromYAML reads CustomResourceDefinition manifests (apiextensions.k8s.io/v1,
// one or more YAML documents, as kubebuilder's config/crd/bases holds them) and
// returns the CRD of each one's storage version, with its OpenAPI schema: the
// apiserver model then prunes, defaults and validates that kind's objects as
// kube-apiserver does. Each manifest is checked as kube-apiserver checks the
// create of a CustomResourceDefinition (CRDFromDefinition): one it would
// refuse (a schema that is not structural, an unknown type, an
// x-kubernetes-validations rule that does not compile, ...) is refused here,
// with its 422's message, which names the CRD.
func CRDsFromYAML(data []byte) ([]CRD, error) {
	var out []CRD
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for n := 1; ; n++ {
		var def apiextensionsv1.CustomResourceDefinition
		if err := dec.Decode(&def); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("CRD manifest document %d: %w", n, err)
		}
		if def.Kind == "" && def.Name == "" {
			continue // an empty document
		}
		if def.Kind != "CustomResourceDefinition" || def.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
			return nil, fmt.Errorf("CRD manifest document %d: %s %q is not an apiextensions.k8s.io/v1 CustomResourceDefinition", n, def.Kind, def.Name)
		}
		crd, err := CRDFromDefinition(&def)
		if err != nil {
			return nil, fmt.Errorf("CRD manifest document %d: %w", n, err)
		}
		out = append(out, crd)
	}
}

// CRDFromDefinition is the CRD of def's storage version, with def as its
// Definition: installed, it serves each of def's served versions
// (versions.go). def is checked as kube-apiserver checks a
// CustomResourceDefinition's create (validateCRDWrite: apiextensions'
// ValidateCustomResourceDefinition on a copy of def defaulted and prepared
// by prepareCRDWrite): a def it would refuse is refused with the same 422
// (*errors.StatusError, reason Invalid).
func CRDFromDefinition(def *apiextensionsv1.CustomResourceDefinition) (CRD, error) {
	prepared := def.DeepCopy()
	prepareCRDWrite(prepared, nil)
	if err := validateCRDWrite(prepared, nil, ""); err != nil {
		return CRD{}, err
	}
	return crdFromDefinition(def)
}

// crdFromDefinition is CRDFromDefinition of a def already validated (a
// CustomResourceDefinition object the server admitted: its update is
// validated against the stored one, which may allow what a create would not).
// Every version's schema must be structural.
func crdFromDefinition(def *apiextensionsv1.CustomResourceDefinition) (CRD, error) {
	var out *CRD
	for i := range def.Spec.Versions {
		v := &def.Spec.Versions[i]
		crd, err := crdOfVersion(def, v)
		if err != nil {
			return CRD{}, err
		}
		if v.Storage && out == nil {
			crd.Definition = def.DeepCopy()
			out = &crd
		}
	}
	if out == nil {
		return CRD{}, fmt.Errorf("CRD %s has no storage version", def.Name)
	}
	return *out, nil
}

// crSchema is what kube-apiserver's custom resource handler builds from a CRD
// version's schema: the structural schema (for pruning, defaulting, list types
// and embedded objects), the OpenAPI validator and the x-kubernetes-validations
// (CEL) rules' validator (pkg/registry/customresource/strategy.go
// NewStrategy).
type crSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	// statusValidator validates status writes: the status property's schema
	// alone, as the handler builds it for the status subresource (nil: the
	// schema has no status property).
	statusValidator apiservervalidation.SchemaValidator
	cel             *structuralcel.Validator // nil: no rules
	// admitted remembers admit's successes (admitmemo.go).
	admitted admitMemo
}

func newCRSchema(gvk schema.GroupVersionKind, v1props *apiextensionsv1.JSONSchemaProps) (*crSchema, error) {
	var props apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1props, &props, nil); err != nil {
		return nil, fmt.Errorf("converting the schema of %s: %w", gvk, err)
	}
	s, err := structuralschema.NewStructural(&props)
	if err != nil {
		return nil, fmt.Errorf("the schema of %s is not structural: %w", gvk, err)
	}
	if errs := structuralschema.ValidateStructural(field.NewPath("spec", "validation", "openAPIV3Schema"), s); len(errs) > 0 {
		return nil, fmt.Errorf("the schema of %s is not structural: %w", gvk, errs.ToAggregate())
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(&props)
	if err != nil {
		return nil, fmt.Errorf("the schema of %s: %w", gvk, err)
	}
	var statusValidator apiservervalidation.SchemaValidator
	if st, ok := props.Properties["status"]; ok {
		if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&st); err != nil {
			return nil, fmt.Errorf("the status schema of %s: %w", gvk, err)
		}
	}
	// CEL programs are compiled here, once, as NewStrategy does.
	return &crSchema{structural: s, validator: validator, statusValidator: statusValidator, cel: structuralcel.NewValidator(s, true, celconfig.PerCallLimit)}, nil
}

// blockingErr is hasBlockingErr (pkg/registry/customresource/strategy.go):
// OpenAPI type, maxLength, maxItems, maxProperties, required and enum errors
// keep the CEL rules from running, and say so.
func blockingErr(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		if err.Type == field.ErrorTypeNotSupported || err.Type == field.ErrorTypeRequired || err.Type == field.ErrorTypeTooLong || err.Type == field.ErrorTypeTooMany || err.Type == field.ErrorTypeTypeInvalid {
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}

// admit does to a custom resource's write what the custom resource handler does
// between decoding the body and storing it: prune the fields the schema does not
// know, apply its defaults, and validate it (against old on update, ratcheting
// unchanged invalid values as CRDValidationRatcheting does; a status write,
// subresource "status", validates the status alone against the status
// property's schema, as statusStrategy.ValidateUpdate does). It works on the
// wire form of obj (its JSON as a client sends it: zero values of fields without
// omitempty are present, so not defaulted) and writes the result back into obj.
// An admission of the same request the schema admitted before is remembered
// (admitmemo.go).
func (c *crSchema) admit(k *Kind, obj, old client.Object, subresource string) error {
	key, ok := admitKey(k, obj, old, subresource)
	if ok {
		if u, hit := c.admitted.get(key); hit {
			return setAdmitted(obj, u)
		}
	}
	u, err := c.admitComputed(k, obj, old, subresource)
	if err != nil {
		return err
	}
	if ok {
		c.admitted.put(key, u)
	}
	return nil
}

// admitComputed is admit without the memo; it returns the admitted content
// it wrote into obj.
func (c *crSchema) admitComputed(k *Kind, obj, old client.Object, subresource string) (map[string]any, error) {
	uobj, isU := obj.(*unstructured.Unstructured)
	var u map[string]any
	var err error
	if isU {
		u = uobj.Object // owned by the request: defaulted and pruned in place
	} else if u, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
		return nil, err
	}
	u["apiVersion"], u["kind"] = k.GVK.GroupVersion().String(), k.GVK.Kind
	if old == nil && k.Status {
		// customResourceStrategy.PrepareForCreate drops .status before
		// validation: a typed zero status ({"conditions": null}) is not checked.
		delete(u, "status")
	}
	// The decoder drops nulls of fields that are neither nullable nor
	// defaulted (customresource_handler.go's unstructuredDefaulter), so a
	// required field sent as null is missing, not of the wrong type.
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, c.structural)
	structuraldefaulting.Default(u, c.structural)
	structuralpruning.Prune(u, c.structural, true)
	var errs field.ErrorList
	var o map[string]any // the old object, on update
	var celOpts []structuralcel.Option
	if old == nil {
		errs = apiservervalidation.ValidateCustomResource(nil, u, c.validator)
	} else {
		if uold, ok := old.(*unstructured.Unstructured); ok {
			o = runtime.DeepCopyJSON(uold.Object) // the stored snapshot is shared
		} else if o, err = runtime.DefaultUnstructuredConverter.ToUnstructured(old); err != nil {
			return nil, err
		}
		o["apiVersion"], o["kind"] = u["apiVersion"], u["kind"]
		// The stored object as the handler reads it: its storage decoder
		// applies the schema's defaults (unstructuredDefaulter).
		structuraldefaulting.Default(o, c.structural)
		if subresource == "" && k.Status {
			// customResourceStrategy.PrepareForUpdate runs after the body is
			// decoded (pruned and defaulted) and before validation: the main
			// resource's status is the stored one, value for value, so a
			// status the schema would refuse today (a typed zero status,
			// {"conditions": null} pruned to a missing required list) is
			// ratcheted as unchanged, never the request's to answer for.
			if st, ok := o["status"]; ok {
				u["status"] = runtime.DeepCopyJSONValue(st)
			} else {
				delete(u, "status")
			}
		}
		correlated := celcommon.NewCorrelatedObject(u, o, &model.Structural{Structural: c.structural})
		if subresource == "status" && k.Status && c.statusValidator != nil {
			errs = apiservervalidation.ValidateCustomResourceUpdate(field.NewPath("status"), u["status"], o["status"], c.statusValidator, apiservervalidation.WithRatcheting(correlated.Key("status")))
		} else {
			errs = apiservervalidation.ValidateCustomResourceUpdate(nil, u, o, c.validator, apiservervalidation.WithRatcheting(correlated))
		}
		celOpts = append(celOpts, structuralcel.WithRatcheting(correlated))
	}
	errs = append(errs, schemaobjectmeta.Validate(nil, nil, u, c.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u)...)
	// x-kubernetes-validations, unless a blocking error came first
	// (customResourceStrategy Validate and ValidateUpdate, hasBlockingErr).
	if c.cel != nil {
		if blocking := blockingErr(errs); blocking != nil {
			errs = append(errs, blocking)
		} else {
			var oldObj any
			if o != nil {
				oldObj = o
			}
			celErrs, _ := c.cel.Validate(context.Background(), nil, c.structural, u, oldObj, celconfig.RuntimeCELCostBudget, celOpts...)
			errs = append(errs, celErrs...)
		}
	}
	if len(errs) > 0 {
		// The schema validator walks properties in Go map order; a run must not
		// depend on it, so several causes are listed in field order.
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
		return nil, invalid(k, obj.GetName(), errs)
	}
	if isU {
		return u, nil
	}
	return u, setTyped(obj, u)
}

// setTyped writes the admitted content u into the typed object obj, as the
// handler decodes what it stores.
func setTyped(obj client.Object, u map[string]any) error {
	fresh := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, fresh); err != nil {
		return err
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(fresh).Elem())
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return nil
}
