package schemadraw

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"
)

// draws are n valid draws of p, from the seeds 0 to n-1.
func draws(p *apiextensionsv1.JSONSchemaProps, n int) []Drawn {
	g := rapid.Custom(func(t *rapid.T) Drawn {
		_ = rapid.Bool().Draw(t, "step") // some draws take no data; rapid wants some
		return DrawValue(t, p, false, 0)
	})
	out := make([]Drawn, n)
	for i := range out {
		out[i] = g.Example(i)
	}
	return out
}

// A format the apiserver checks and the drawing has no generator for
// (hexcolor, isbn) is drawn as a plain string, and a fractional multipleOf
// is not modelled: their valid draws are not sure. (A format the apiserver
// does not check takes any string: its draws are sure.)
func TestAFormatNotGeneratedAndAFractionalMultipleOfAreNotSure(t *testing.T) {
	for _, p := range []*apiextensionsv1.JSONSchemaProps{
		{Type: "string", Format: "hexcolor"},
		{Type: "string", Format: "isbn"},
		{Type: "number", MultipleOf: ptr.To(0.5)},
	} {
		for _, d := range draws(p, 20) {
			if d.Sure {
				t.Errorf("type %s format %q multipleOf %v: the valid draw %v is sure", p.Type, p.Format, p.MultipleOf, d.V)
			}
		}
	}
	for _, f := range []string{"uuid", "color"} {
		for _, d := range draws(&apiextensionsv1.JSONSchemaProps{Type: "string", Format: f}, 5) {
			if !d.Sure {
				t.Errorf("format %q: the valid draw %v is not sure", f, d.V)
			}
		}
	}
}

// nesting is how many objects deep v goes.
func nesting(v any) int {
	m, ok := v.(map[string]any)
	if !ok {
		return 0
	}
	deepest := 0
	for _, c := range m {
		deepest = max(deepest, nesting(c))
	}
	return 1 + deepest
}

// An object whose optional field nests it again, eight deep, is drawn at
// most MaxDepth+1 objects deep: below MaxDepth no optional field is drawn.
func TestNestingStopsAtMaxDepth(t *testing.T) {
	p := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"leaf": {Type: "string"}}}
	for range 8 {
		p = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"child": p}}
	}
	deepest := 0
	for _, d := range draws(&p, 300) {
		deepest = max(deepest, nesting(d.V))
	}
	if deepest != MaxDepth+1 {
		t.Errorf("300 draws nest at most %d objects deep, want %d (MaxDepth %d)", deepest, MaxDepth+1, MaxDepth)
	}
}
