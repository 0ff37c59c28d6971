package envtestenv_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
)

type inner struct {
	Name string `json:"name"`
}

type sample struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	inner                                // untagged embedded: flattened, as encoding/json does
	Ref               inner              `json:",inline"`
	Count             *int32             `json:"count,omitempty"`
	At                metav1.Time        `json:"at"`
	Tags              map[string]string  `json:"tags,omitempty"`
	Items             []inner            `json:"items,omitempty"`
	Raw               []byte             `json:"raw,omitempty"`
	Port              intstr.IntOrString `json:"port"`
	Skipped           string             `json:"-"`
	NoTag             bool
	unexported        string // must not appear
}

// SchemaOf follows encoding/json's field rules and controller-gen's type
// mappings.
func TestSchemaOfFollowsTheJSONForm(t *testing.T) {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	name := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str}}
	want := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"apiVersion": str, "kind": str,
		"metadata": {Type: "object"},
		"name":     str,
		"count":    {Type: "integer", Format: "int32"},
		"at":       {Type: "string", Format: "date-time"},
		"tags":     {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &str}},
		"items":    {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &name}},
		"raw":      {Type: "string", Format: "byte"},
		"port":     {XIntOrString: true, AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
		"NoTag":    {Type: "boolean"},
	}}
	if diff := cmp.Diff(want, envtestenv.SchemaOf(reflect.TypeFor[*sample]())); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
}

type node struct {
	Children []node `json:"children,omitempty"`
}

// A recursive type has no finite structural schema: the recursion preserves
// unknown fields.
func TestSchemaOfARecursiveTypePreservesUnknownFields(t *testing.T) {
	s := envtestenv.SchemaOf(reflect.TypeFor[node]())
	items := s.Properties["children"].Items.Schema
	if items.XPreserveUnknownFields == nil || !*items.XPreserveUnknownFields || items.Type != "" {
		t.Errorf("children items = %+v, want x-kubernetes-preserve-unknown-fields and no type", items)
	}
}
