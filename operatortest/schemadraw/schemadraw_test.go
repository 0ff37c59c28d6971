package schemadraw

import (
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"
)

// A schema with a constraint of each kind the drawing models.
func constrained() *apiextensionsv1.JSONSchemaProps {
	return &apiextensionsv1.JSONSchemaProps{Type: "object", Required: []string{"name"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"name":     {Type: "string", Pattern: "^[a-z]{2,5}$"},
		"size":     {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"small"`)}, {Raw: []byte(`"large"`)}}},
		"replicas": {Type: "integer", Minimum: ptr.To(1.0), Maximum: ptr.To(9.0)},
		"ratio":    {Type: "number", Minimum: ptr.To(0.0), ExclusiveMinimum: true, Maximum: ptr.To(1.0)},
		"address":  {Type: "string", Format: "ipv4"},
		"ports": {Type: "array", MaxItems: ptr.To[int64](3), XListType: ptr.To("set"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "integer", Minimum: ptr.To(1.0), Maximum: ptr.To(65535.0)}}},
		"labels": {Type: "object", MaxProperties: ptr.To[int64](2),
			AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](4)}}},
	}}
}

// The apiserver's own validation of a value against a schema: the
// OpenAPI validator and the list-type check (sets and map lists) that a
// custom resource's create or update also runs.
func validator(t *testing.T, p *apiextensionsv1.JSONSchemaProps) func(v any) field.ErrorList {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(p, &internal, nil); err != nil {
		t.Fatal(err)
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		t.Fatal(err)
	}
	structural, err := schema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return func(v any) field.ErrorList {
		errs := apiservervalidation.ValidateCustomResource(nil, v, sv)
		if m, ok := v.(map[string]any); ok {
			errs = append(errs, listtype.ValidateListSetsAndMaps(nil, structural, m)...)
		}
		return errs
	}
}

// A valid draw passes the apiserver's validation of its schema and an
// invalid one fails it; a draw under nothing unmodelled is sure.
func TestDrawsAreValidOrInvalidAsTheAPIServerJudges(t *testing.T) {
	p := constrained()
	v := validator(t, p)
	rapid.Check(t, func(t *rapid.T) {
		invalid := rapid.Bool().Draw(t, "invalid")
		d := DrawValue(t, p, invalid, 0)
		if d.Invalid != invalid {
			t.Fatalf("asked invalid=%v, drew invalid=%v", invalid, d.Invalid)
		}
		errs := v(d.V)
		if !invalid && len(errs) > 0 {
			t.Fatalf("valid draw %v refused: %v", d.V, errs.ToAggregate())
		}
		if invalid && len(errs) == 0 {
			t.Fatalf("invalid draw %v accepted", d.V)
		}
		if !invalid && !d.Sure {
			t.Fatalf("valid draw %v under no unmodelled rule is not sure", d.V)
		}
	})
}

// A CEL rule is not modelled: a valid draw under it is not sure.
func TestADrawUnderACELRuleIsNotSure(t *testing.T) {
	p := &apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: ptr.To[int64](8),
		XValidations: apiextensionsv1.ValidationRules{{Rule: "self != 'forbidden'"}}}
	if !Unmodelled(p) {
		t.Fatal("a schema with a CEL rule is not reported unmodelled")
	}
	rapid.Check(t, func(t *rapid.T) {
		if d := DrawValue(t, p, false, 0); d.Sure {
			t.Fatalf("valid draw %v under a CEL rule is sure", d.V)
		}
	})
}

// Embedded resources and fields that keep unknown fields are not drawn.
func TestEmbeddedAndPreservedFieldsAreNotDrawable(t *testing.T) {
	for _, p := range []*apiextensionsv1.JSONSchemaProps{
		{Type: "object", XEmbeddedResource: true},
		{Type: "object", XPreserveUnknownFields: ptr.To(true)},
	} {
		if Drawable(p) {
			t.Errorf("%+v is drawable", p)
		}
	}
	if !Drawable(&apiextensionsv1.JSONSchemaProps{Type: "string"}) {
		t.Error("a string is not drawable")
	}
}
