package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// JSON text drawn as a patch author could write it: a few keys that collide (also through escapes
// and case), duplicate keys, nulls at every depth, nested objects and arrays, odd whitespace, and
// strings the library re-escapes.

var mergeKeys = []string{`"a"`, `"b"`, `"c"`, `"A"`, `"\u0061"`, `"sp ace"`, `"<&>"`, `"é"`, `"\ud83d\ude00"`, `"x\ty"`, `"kind"`, `"apiVersion"`, `"KIND"`, `"spec"`}

func drawWS(t *rapid.T) string {
	return rapid.SampledFrom([]string{"", "", "", " ", "\n  ", "\t"}).Draw(t, "ws")
}

func drawJSON(t *rapid.T, depth int) string {
	kinds := []string{"null", "scalar", "string"}
	if depth < 4 {
		kinds = append(kinds, "object", "object", "array")
	}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case "null":
		return "null"
	case "scalar":
		return rapid.SampledFrom([]string{"0", "-1", "1.50", "1e3", "12345678901234567890", "true", "false"}).Draw(t, "scalar")
	case "string":
		return rapid.SampledFrom([]string{`""`, `"v"`, `"a<b>&c"`, `"\"q\""`, `"\u00e9"`, `"{"`, `"["`, `"null"`}).Draw(t, "string")
	case "array":
		n := rapid.IntRange(0, 3).Draw(t, "len")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = drawWS(t) + drawJSON(t, depth+1) + drawWS(t)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		return drawObject(t, depth)
	}
}

func drawObject(t *rapid.T, depth int) string {
	n := rapid.IntRange(0, 4).Draw(t, "members")
	parts := make([]string, n)
	for i := range parts {
		parts[i] = drawWS(t) + rapid.SampledFrom(mergeKeys).Draw(t, "key") + drawWS(t) + ":" + drawWS(t) + drawJSON(t, depth+1)
	}
	return "{" + strings.Join(parts, ",") + drawWS(t) + "}"
}

// tokens is a JSON text as its token stream (strings decoded, numbers as written): two texts
// with the same tokens have the same members in the same order and the same values.
func tokens(t *rapid.T, b []byte) []any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out []any
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("invalid JSON %s: %v", b, err)
		}
		out = append(out, tok)
	}
}

// mergePatch gives the library's document whenever it says it can, and it can for every
// object patch of an object document.
func TestMergePatchIsTheLibrarys(t *testing.T) {
	// Cheap checks: twenty times rapid's default count, as the quirks need a null and an object
	// to meet at the same key.
	for range 20 {
		rapid.Check(t, mergePatchIsTheLibrarys)
	}
}

func mergePatchIsTheLibrarys(t *rapid.T) {
	{
		// The document as json.Marshal writes one: compact, no duplicate keys.
		var v any
		if err := json.Unmarshal([]byte(drawObject(t, 0)), &v); err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(v)
		patch := []byte(drawWS(t) + drawJSON(t, 0) + drawWS(t))
		if rapid.Bool().Draw(t, "object patch") {
			patch = []byte(drawWS(t) + drawObject(t, 0))
		}
		want, wantErr := jsonpatch.MergePatch(doc, patch)
		got, ok := mergePatch(doc, patch)
		if !ok {
			if wantErr == nil && isObject(patch) {
				t.Fatalf("mergePatch declined an object patch the library applies:\ndoc   %s\npatch %s", doc, patch)
			}
			return
		}
		if wantErr != nil {
			t.Fatalf("the library fails (%v) where mergePatch gives %s\ndoc   %s\npatch %s", wantErr, got, doc, patch)
		}
		if w, g := tokens(t, want), tokens(t, got); !reflect.DeepEqual(w, g) {
			t.Fatalf("doc   %s\npatch %s\nlibrary    %s\nmergePatch %s", doc, patch, want, got)
		}
	}
}

// Through Apply, the fast path and the library's path give the same object, warnings and error,
// on the typed objects of the round-trip properties: with patches a client computes, and with
// drawn ones (unknown fields, nulls, type errors, duplicates).
func TestFastMergeIsTheHandlersPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		current := drawDeployment(t, "current")
		var patch []byte
		switch rapid.SampledFrom([]string{"client", "drawn", "metadata", "kind"}).Draw(t, "patch") {
		case "client":
			a, _ := json.Marshal(current)
			b, _ := json.Marshal(drawDeployment(t, "modified"))
			var err error
			if patch, err = jsonpatch.CreateMergePatch(a, b); err != nil {
				t.Fatal(err)
			}
		case "drawn":
			patch = []byte(drawObject(t, 0))
		case "kind":
			patch = []byte(`{"kind":` + rapid.SampledFrom([]string{`"Deployment"`, `"Pod"`, `null`, `1`, `"Deploy\u006dent"`}).Draw(t, "kind") +
				`,"apiVersion":` + rapid.SampledFrom([]string{`"apps/v1"`, `"v1"`, `"a/b/c"`, `null`, `"apps/v1"`}).Draw(t, "apiVersion") + `}`)
		default:
			patch = []byte(`{"metadata":` + drawObject(t, 1) + `,"spec":{"replicas":` + drawJSON(t, 3) + `}}`)
		}
		opts := Options{PatchOptions: metav1.PatchOptions{
			FieldValidation: rapid.SampledFrom([]string{"", "Ignore", "Warn", "Strict"}).Draw(t, "validation")}}
		obj, warnings, err := ApplyWithWarnings(current, types.MergePatchType, patch, opts)
		fastMergePatch = false
		defer func() { fastMergePatch = true }()
		wantObj, wantWarnings, wantErr := ApplyWithWarnings(current, types.MergePatchType, patch, opts)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("patch %s: error %v, want %v", patch, err, wantErr)
		}
		if !reflect.DeepEqual(obj, wantObj) {
			t.Fatalf("patch %s:\n%s", patch, cmp.Diff(wantObj, obj))
		}
		if !reflect.DeepEqual(warnings, wantWarnings) {
			t.Fatalf("patch %s: warnings %q, want %q", patch, warnings, wantWarnings)
		}
	})
}

// BenchmarkMergePatch is a controller's status-like merge patch of a Deployment, through the
// fast path and through the library's, side by side.
func BenchmarkMergePatch(b *testing.B) {
	current := deployment()
	current.Spec.Template.Spec.Containers = append(current.Spec.Template.Spec.Containers, current.Spec.Template.Spec.Containers...)
	patch := []byte(`{"metadata":{"labels":{"app":"web","tier":"front"}},"spec":{"replicas":3,"paused":null}}`)
	for _, fast := range []bool{true, false} {
		name := map[bool]string{true: "fast", false: "library"}[fast]
		b.Run(name, func(b *testing.B) {
			fastMergePatch = fast
			defer func() { fastMergePatch = true }()
			for b.Loop() {
				if _, err := Apply(current, types.MergePatchType, patch, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
