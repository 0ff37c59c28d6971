package envtestenv

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// CRD describes a custom resource served from a Go type, as the simulator's
// apiserver.CRD does, plus the type itself (a pointer to its zero value) from
// which the structural schema is derived.
type CRD struct {
	GVK        schema.GroupVersionKind
	Plural     string
	Namespaced bool
	// Status enables the status subresource.
	Status bool
	// Type is a value of the Go type, e.g. &pipeline.Pipeline{}.
	Type runtime.Object
}

// Definition returns the CustomResourceDefinition of c: one served and stored
// version with the structural schema of c.Type (SchemaOf), the status
// subresource if c.Status, and names derived from the kind (singular is the
// lower-case kind, listKind the kind with "List").
func (c CRD) Definition() *apiextensionsv1.CustomResourceDefinition {
	scope := apiextensionsv1.ClusterScoped
	if c.Namespaced {
		scope = apiextensionsv1.NamespaceScoped
	}
	var sub *apiextensionsv1.CustomResourceSubresources
	if c.Status {
		sub = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	}
	s := SchemaOf(reflect.TypeOf(c.Type))
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: c.Plural + "." + c.GVK.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: c.GVK.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: c.Plural, Singular: strings.ToLower(c.GVK.Kind), Kind: c.GVK.Kind, ListKind: c.GVK.Kind + "List",
			},
			Scope: scope,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: c.GVK.Version, Served: true, Storage: true,
				Subresources: sub,
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &s},
			}},
		},
	}
}

// Definitions returns the definitions of crds.
func Definitions(crds ...CRD) []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		out[i] = c.Definition()
	}
	return out
}

var (
	timeType       = reflect.TypeFor[metav1.Time]()
	microTimeType  = reflect.TypeFor[metav1.MicroTime]()
	goTimeType     = reflect.TypeFor[time.Time]()
	durationType   = reflect.TypeFor[metav1.Duration]()
	objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()
	listMetaType   = reflect.TypeFor[metav1.ListMeta]()
	quantityType   = reflect.TypeFor[resource.Quantity]()
	intOrStrType   = reflect.TypeFor[intstr.IntOrString]()
	rawExtType     = reflect.TypeFor[runtime.RawExtension]()
	rawJSONType    = reflect.TypeFor[json.RawMessage]()
)

// SchemaOf is the structural OpenAPI v3 schema of a Go type as encoding/json
// writes it, the shape controller-gen gives a CRD: struct fields by their json
// names (inline and untagged embedded structs flattened, "-" skipped), pointers
// as their element, slices as arrays ([]byte as a base64 string), maps with
// string keys as objects with additionalProperties, metav1.Time and time.Time as
// date-time strings, metav1.Duration as a string, resource.Quantity and
// intstr.IntOrString as x-kubernetes-int-or-string, and metadata as a bare
// object (the API server owns its schema). Interfaces, runtime.RawExtension,
// json.RawMessage and recursive types preserve unknown fields.
//
// No field is required, nullable, defaulted or constrained (no enums, patterns
// or list types): the schema prunes unknown fields and checks types, nothing
// more.
func SchemaOf(t reflect.Type) apiextensionsv1.JSONSchemaProps {
	return schemaOf(t, map[reflect.Type]bool{})
}

func schemaOf(t reflect.Type, visiting map[reflect.Type]bool) apiextensionsv1.JSONSchemaProps {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	preserve := apiextensionsv1.JSONSchemaProps{XPreserveUnknownFields: ptrTo(true)}
	switch t {
	case timeType, microTimeType, goTimeType:
		return apiextensionsv1.JSONSchemaProps{Type: "string", Format: "date-time"}
	case durationType:
		return apiextensionsv1.JSONSchemaProps{Type: "string"}
	case objectMetaType, listMetaType:
		return apiextensionsv1.JSONSchemaProps{Type: "object"}
	case quantityType, intOrStrType:
		return apiextensionsv1.JSONSchemaProps{XIntOrString: true, AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}}
	case rawExtType, rawJSONType:
		return preserve
	}
	switch t.Kind() {
	case reflect.String:
		return apiextensionsv1.JSONSchemaProps{Type: "string"}
	case reflect.Bool:
		return apiextensionsv1.JSONSchemaProps{Type: "boolean"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64"}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int32"}
	case reflect.Float32, reflect.Float64:
		return apiextensionsv1.JSONSchemaProps{Type: "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return apiextensionsv1.JSONSchemaProps{Type: "string", Format: "byte"}
		}
		items := schemaOf(t.Elem(), visiting)
		return apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &items}}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("envtestenv: map key %s of %s has no JSON object form", t.Key(), t))
		}
		v := schemaOf(t.Elem(), visiting)
		return apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &v}}
	case reflect.Interface:
		return preserve
	case reflect.Struct:
		if visiting[t] {
			return preserve // a recursive type: no finite structural schema
		}
		visiting[t] = true
		defer delete(visiting, t)
		s := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{}}
		addFields(t, s.Properties, visiting)
		return s
	}
	panic(fmt.Sprintf("envtestenv: no JSON schema for %s (kind %s)", t, t.Kind()))
}

// addFields adds the json properties of struct t to props, flattening inline
// and untagged embedded structs as encoding/json does.
func addFields(t reflect.Type, props map[string]apiextensionsv1.JSONSchemaProps, visiting map[reflect.Type]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "") || strings.Contains(","+opts+",", ",inline,") {
			if ft.Kind() == reflect.Struct {
				addFields(ft, props, visiting)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = schemaOf(f.Type, visiting)
	}
}

func ptrTo[T any](v T) *T { return &v }
