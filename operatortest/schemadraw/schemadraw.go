package schemadraw

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"pgregory.net/rapid"
)

// The labels a mutation carries (its expect= argument): what the API answers
// when the step is applied to the seed object as the test gave it.
const (
	ExpectValid   = "valid"   // accepted
	ExpectInvalid = "invalid" // refused with 422
	ExpectUnknown = "unknown" // valid by the drawing's reckoning, but a rule it does not model (CEL, anyOf, ...) decides
)

// MaxDepth bounds the nesting of drawn objects and arrays.
const MaxDepth = 4

// Drawn is a value drawn from a schema.
type Drawn struct {
	V       any  // as unstructured content holds it: int64, float64, string, bool, []any, map[string]any
	Invalid bool // outside the schema
	Sure    bool // when valid: nothing unmodelled applies
}

// Unmodelled reports whether p itself carries a validation the drawing does
// not model: its valid draws are not sure.
func Unmodelled(p *apiextensionsv1.JSONSchemaProps) bool {
	return len(p.XValidations) > 0 || len(p.AllOf) > 0 || len(p.AnyOf) > 0 || len(p.OneOf) > 0 || p.Not != nil
}

// Drawable reports whether values can be drawn for p at all: embedded
// resources and fields that keep unknown fields are left alone.
func Drawable(p *apiextensionsv1.JSONSchemaProps) bool {
	if p.XEmbeddedResource || (p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields) {
		return false
	}
	switch {
	case p.XIntOrString:
		return true
	case p.Type == "array":
		return p.Items != nil && p.Items.Schema != nil && Drawable(p.Items.Schema)
	}
	return p.Type == "string" || p.Type == "integer" || p.Type == "number" || p.Type == "boolean" || p.Type == "object"
}

// DrawValue draws a value for p: invalid if asked and p has a constraint to
// break (else valid).
func DrawValue(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool, depth int) Drawn {
	d := drawValue1(t, p, invalid, depth)
	if !d.Invalid && Unmodelled(p) {
		d.Sure = false
	}
	return d
}

func drawValue1(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool, depth int) Drawn {
	if len(p.Enum) > 0 {
		return drawEnum(t, p, invalid)
	}
	switch {
	case p.XIntOrString:
		if invalid {
			return Drawn{V: true, Invalid: true} // neither an integer nor a string
		}
		if rapid.Bool().Draw(t, "int-or-string") {
			return Drawn{V: rapid.Int64Range(0, 10).Draw(t, "int"), Sure: true}
		}
		return Drawn{V: fmt.Sprintf("%d%%", rapid.IntRange(0, 100).Draw(t, "percent")), Sure: true}
	case p.Type == "boolean":
		if invalid {
			return Drawn{V: "true", Invalid: true} // a string, not a boolean
		}
		return Drawn{V: rapid.Bool().Draw(t, "bool"), Sure: true}
	case p.Type == "integer":
		return drawInteger(t, p, invalid)
	case p.Type == "number":
		return drawNumber(t, p, invalid)
	case p.Type == "string":
		return drawString(t, p, invalid)
	case p.Type == "array":
		return drawArray(t, p, invalid, depth)
	case p.Type == "object":
		return drawObject(t, p, invalid, depth)
	}
	return Drawn{V: nil}
}

// drawEnum: a member, or (invalid) a value of the right type that is not one.
func drawEnum(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool) Drawn {
	members := make([]any, 0, len(p.Enum))
	for _, e := range p.Enum {
		members = append(members, JSONContent(e.Raw))
	}
	if !invalid {
		return Drawn{V: rapid.SampledFrom(members).Draw(t, "enum"), Sure: true}
	}
	switch first := members[0].(type) {
	case string:
		v := "not-" + first
		for slices.Contains(members, any(v)) {
			v = "not-" + v
		}
		return Drawn{V: v, Invalid: true}
	case int64:
		v := first
		for slices.Contains(members, any(v)) {
			v++
		}
		return Drawn{V: v, Invalid: true}
	}
	return Drawn{V: rapid.SampledFrom(members).Draw(t, "enum"), Sure: true}
}

// intRange is the closed range of integers within p's bounds, and whether
// each end is a bound of p.
func intRange(p *apiextensionsv1.JSONSchemaProps) (lo, hi int64, hasLo, hasHi bool) {
	const limit = 1 << 52 // exact in a float64 and in JSON
	if p.Minimum != nil && math.Abs(*p.Minimum) < limit {
		lo, hasLo = int64(math.Ceil(*p.Minimum)), true
		if p.ExclusiveMinimum && float64(lo) == *p.Minimum {
			lo++
		}
	}
	if p.Maximum != nil && math.Abs(*p.Maximum) < limit {
		hi, hasHi = int64(math.Floor(*p.Maximum)), true
		if p.ExclusiveMaximum && float64(hi) == *p.Maximum {
			hi--
		}
	}
	switch {
	case !hasLo && !hasHi:
		lo, hi = 0, 10
	case !hasLo:
		lo = hi - 10
	case !hasHi:
		hi = lo + 10
	}
	return lo, hi, hasLo, hasHi
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func drawInteger(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool) Drawn {
	lo, hi, hasLo, hasHi := intRange(p)
	var m int64 // an integral multipleOf, or 0
	sure := true
	if p.MultipleOf != nil {
		if f := *p.MultipleOf; f >= 1 && f == math.Trunc(f) && f < 1<<31 {
			m = int64(f)
		} else {
			sure = false // a fractional multipleOf: integers drawn may not be multiples
		}
	}
	if invalid {
		var bad []any
		if hasLo {
			bad = append(bad, lo-1)
		}
		if hasHi {
			bad = append(bad, hi+1)
		}
		if m >= 2 {
			bad = append(bad, floorDiv(lo, m)*m+m+1) // a multiple plus one
		}
		bad = append(bad, float64(lo)+0.5, fmt.Sprint(lo)) // not an integer; a string
		return Drawn{V: rapid.SampledFrom(bad).Draw(t, "invalid-int"), Invalid: true}
	}
	if lo > hi {
		return Drawn{V: lo} // no integer within the bounds
	}
	if m > 0 {
		klo, khi := -floorDiv(-lo, m), floorDiv(hi, m)
		if klo > khi {
			return Drawn{V: lo} // no multiple within the bounds
		}
		return Drawn{V: rapid.Int64Range(klo, khi).Draw(t, "multiple") * m, Sure: sure}
	}
	return Drawn{V: rapid.Int64Range(lo, hi).Draw(t, "int"), Sure: sure}
}

func drawNumber(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool) Drawn {
	lo, hi := 0.0, 10.0
	if p.Minimum != nil {
		lo = *p.Minimum
	}
	if p.Maximum != nil {
		hi = *p.Maximum
	}
	if p.Minimum == nil && p.Maximum != nil {
		lo = hi - 10
	}
	if p.Maximum == nil && p.Minimum != nil {
		hi = lo + 10
	}
	if invalid {
		var bad []any
		if p.Minimum != nil {
			if p.ExclusiveMinimum {
				bad = append(bad, lo)
			} else {
				bad = append(bad, lo-1)
			}
		}
		if p.Maximum != nil {
			if p.ExclusiveMaximum {
				bad = append(bad, hi)
			} else {
				bad = append(bad, hi+1)
			}
		}
		if m := p.MultipleOf; m != nil && *m == math.Trunc(*m) && *m >= 2 {
			bad = append(bad, math.Ceil(lo / *m)**m+0.5)
		}
		bad = append(bad, "1")
		return Drawn{V: rapid.SampledFrom(bad).Draw(t, "invalid-number"), Invalid: true}
	}
	// Halves within the bounds (exclusive ends left out), or multiples.
	step := 0.5
	if m := p.MultipleOf; m != nil {
		step = *m
	}
	if step <= 0 || math.IsInf(lo, 0) || math.IsInf(hi, 0) || (hi-lo)/step > 1<<40 {
		return Drawn{V: lo}
	}
	klo, khi := int64(math.Ceil(lo/step)), int64(math.Floor(hi/step))
	if p.ExclusiveMinimum && float64(klo)*step <= lo {
		klo++
	}
	if p.ExclusiveMaximum && float64(khi)*step >= hi {
		khi--
	}
	if klo > khi {
		return Drawn{V: lo}
	}
	v := float64(rapid.Int64Range(klo, khi).Draw(t, "halves")) * step
	// A fractional multipleOf meets float rounding in the validator's division.
	return Drawn{V: v, Sure: p.MultipleOf == nil || step == math.Trunc(step)}
}

// stringFormat draws valid strings of one format and gives an invalid one,
// as kube-openapi's strfmt checks them.
type stringFormat struct {
	valid   func(t *rapid.T) string
	invalid string
}

// Word is a small label-like word, from 1 to n characters.
func Word(t *rapid.T, n int) string {
	return rapid.StringMatching(fmt.Sprintf(`[a-z][a-z0-9]{0,%d}`, max(n-1, 0))).Draw(t, "word")
}

// formats are the string formats the apiserver validates
// (apiextensions-apiserver pkg/apiserver/validation/formats.go) that the
// drawing generates; names as go-openapi normalizes them (no dashes).
var formats = map[string]stringFormat{
	"datetime": {func(t *rapid.T) string {
		return fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02dZ", rapid.IntRange(1, 12).Draw(t, "month"), rapid.IntRange(1, 28).Draw(t, "day"),
			rapid.IntRange(0, 23).Draw(t, "hour"), rapid.IntRange(0, 59).Draw(t, "minute"), rapid.IntRange(0, 59).Draw(t, "second"))
	}, "2026-13-01T00:00:00Z"},
	"date": {func(t *rapid.T) string {
		return fmt.Sprintf("2026-%02d-%02d", rapid.IntRange(1, 12).Draw(t, "month"), rapid.IntRange(1, 28).Draw(t, "day"))
	}, "2026-13-01"},
	"duration": {func(t *rapid.T) string {
		return fmt.Sprintf("%d%s", rapid.IntRange(1, 90).Draw(t, "n"), rapid.SampledFrom([]string{"s", "m", "h"}).Draw(t, "unit"))
	}, "5 parsecs"},
	"uuid": {func(t *rapid.T) string {
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", rapid.Uint32().Draw(t, "uuid-a"), rapid.Uint32().Draw(t, "uuid-b"))
	}, "not-a-uuid"},
	"ipv4": {func(t *rapid.T) string {
		return fmt.Sprintf("10.%d.%d.%d", rapid.IntRange(0, 255).Draw(t, "b"), rapid.IntRange(0, 255).Draw(t, "c"), rapid.IntRange(1, 254).Draw(t, "d"))
	}, "10.0.0.256"},
	"ipv6": {func(t *rapid.T) string { return fmt.Sprintf("fd00::%x", rapid.IntRange(1, 0xffff).Draw(t, "ipv6")) }, "fd00:::1"},
	"cidr": {func(t *rapid.T) string { return fmt.Sprintf("10.%d.0.0/16", rapid.IntRange(0, 255).Draw(t, "cidr")) }, "10.0.0.0/33"},
	"mac": {func(t *rapid.T) string {
		return fmt.Sprintf("02:00:00:00:%02x:%02x", rapid.IntRange(0, 255).Draw(t, "e"), rapid.IntRange(0, 255).Draw(t, "f"))
	}, "02:00:00:00:00"},
	"hostname":     {func(t *rapid.T) string { return Word(t, 8) + ".example.com" }, "-bad-"},
	"email":        {func(t *rapid.T) string { return Word(t, 8) + "@example.com" }, "not-an-email"},
	"uri":          {func(t *rapid.T) string { return "https://example.com/" + Word(t, 8) }, "not a uri"},
	"byte":         {func(t *rapid.T) string { return base64.StdEncoding.EncodeToString([]byte(Word(t, 8))) }, "!!!"},
	"k8sshortname": {func(t *rapid.T) string { return Word(t, 8) }, "-Bad"},
	"k8slongname":  {func(t *rapid.T) string { return Word(t, 8) + "." + Word(t, 8) }, "-Bad"},
	"password":     {func(t *rapid.T) string { return Word(t, 8) }, ""},
}

// formatOf is p's format as the validator knows it, or "".
func formatOf(p *apiextensionsv1.JSONSchemaProps) string {
	return strings.ReplaceAll(p.Format, "-", "")
}

func drawString(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool) Drawn {
	minL, maxL := int64(0), int64(-1)
	if p.MinLength != nil {
		minL = *p.MinLength
	}
	if p.MaxLength != nil {
		maxL = *p.MaxLength
	}
	var re *regexp.Regexp
	var parsed *syntax.Regexp
	if p.Pattern != "" {
		var err error
		if re, err = regexp.Compile(p.Pattern); err == nil {
			parsed, err = syntax.Parse(p.Pattern, syntax.Perl)
		}
		if err != nil {
			re, parsed = nil, nil // the apiserver refuses such a CRD; not drawn
		}
	}
	checked := p.Format != "" && validatedFormat(p.Format)
	f, hasFormat := formats[formatOf(p)]
	hasFormat = hasFormat && checked
	ok := func(s string) bool {
		n := int64(utf8.RuneCountInString(s))
		return n >= minL && (maxL < 0 || n <= maxL) && (re == nil || re.MatchString(s))
	}
	if invalid {
		var bad []any
		if maxL >= 0 {
			bad = append(bad, strings.Repeat("a", int(maxL)+1))
		}
		if minL > 0 {
			bad = append(bad, strings.Repeat("a", int(minL)-1))
		}
		if re != nil {
			// A string of a valid length that the pattern does not match.
			n := int(max(minL, 1))
			for _, c := range []string{"!", "-", "A", "0", " ", "~", "é"} {
				if s := strings.Repeat(c, n); (maxL < 0 || int64(n) <= maxL) && !re.MatchString(s) {
					bad = append(bad, s)
					break
				}
			}
		}
		if hasFormat && f.invalid != "" {
			bad = append(bad, f.invalid)
		}
		bad = append(bad, int64(7)) // a number, not a string
		return Drawn{V: rapid.SampledFrom(bad).Draw(t, "invalid-string"), Invalid: true}
	}
	sure := !checked || hasFormat // a checked format without a generator here: unsure
	var s string
	for try := 0; try < 4; try++ {
		switch {
		case hasFormat:
			s = f.valid(t)
		case parsed != nil:
			var b strings.Builder
			genRegexp(t, parsed, &b)
			s = b.String()
		default:
			hiL := minL + 6
			if maxL >= 0 {
				hiL = min(hiL, maxL)
			}
			n := rapid.Int64Range(minL, max(minL, hiL)).Draw(t, "length")
			s = ""
			if n > 0 {
				s = rapid.StringMatching(fmt.Sprintf(`[a-z][a-z0-9]{%d}`, n-1)).Draw(t, "string")
			}
		}
		if ok(s) {
			return Drawn{V: s, Sure: sure}
		}
	}
	return Drawn{V: s} // no drawn string met every constraint
}

// validatedFormat reports whether the apiserver checks strings of format f
// (apiextensions' GetUnrecognizedFormats at the default compatibility
// version: the others are stripped from the schema, any string is valid).
func validatedFormat(f string) bool {
	s := &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}, Format: f}}
	return len(apiservervalidation.GetUnrecognizedFormats(s, environment.DefaultCompatibilityVersion())) == 0
}

// genRegexp writes a string matching re (regexp/syntax, Perl flags), drawing
// each choice (alternative, repetition count, character) from t: repetitions
// are bounded (at most 3 beyond their minimum), characters are taken from the
// printable ASCII part of a class when it has one.
func genRegexp(t *rapid.T, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rapid.Bool().Draw(t, "fold") {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(classRune(t, re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(rapid.SampledFrom([]rune("abcxyz019")).Draw(t, "any"))
	case syntax.OpCapture:
		genRegexp(t, re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			genRegexp(t, s, b)
		}
	case syntax.OpAlternate:
		genRegexp(t, re.Sub[rapid.IntRange(0, len(re.Sub)-1).Draw(t, "alternative")], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 4
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+3 {
				hi = lo + 3
			}
		}
		for n := rapid.IntRange(lo, hi).Draw(t, "repeat"); n > 0; n-- {
			genRegexp(t, re.Sub[0], b)
		}
	}
	// Anchors, word boundaries and empty matches write nothing; the caller
	// checks the result against the compiled pattern.
}

// classRune draws a rune of a character class (pairs of inclusive ranges),
// preferring printable ASCII.
func classRune(t *rapid.T, ranges []rune) rune {
	var printable [][2]rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], 0x21), min(ranges[i+1], 0x7e)
		if lo <= hi {
			printable = append(printable, [2]rune{lo, hi})
		}
	}
	if len(printable) == 0 {
		for i := 0; i+1 < len(ranges); i += 2 {
			lo, hi := ranges[i], ranges[i+1]
			if hi >= 0xd800 && lo <= 0xdfff { // no surrogates
				if lo < 0xd800 {
					hi = 0xd7ff
				} else {
					lo = 0xe000
				}
			}
			if lo <= hi {
				printable = append(printable, [2]rune{lo, min(hi, lo+255)})
			}
		}
	}
	if len(printable) == 0 {
		return 'a'
	}
	r := printable[rapid.IntRange(0, len(printable)-1).Draw(t, "range")]
	return rune(rapid.IntRange(int(r[0]), int(r[1])).Draw(t, "rune"))
}

// ListType is p's x-kubernetes-list-type ("atomic" when absent).
func ListType(p *apiextensionsv1.JSONSchemaProps) string {
	if p.XListType == nil {
		return "atomic"
	}
	return *p.XListType
}

func drawArray(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool, depth int) Drawn {
	items := p.Items.Schema
	minI, maxI := int64(0), int64(-1)
	if p.MinItems != nil {
		minI = *p.MinItems
	}
	if p.MaxItems != nil {
		maxI = *p.MaxItems
	}
	elems := func(n int64) ([]any, bool) {
		out := make([]any, 0, n)
		sure := true
		for i := int64(0); i < n; i++ {
			d := DrawValue(t, items, false, depth+1)
			sure = sure && d.Sure
			out = append(out, d.V)
		}
		return out, sure
	}
	if invalid {
		var bad []string
		if maxI >= 0 {
			bad = append(bad, "too-many")
		}
		if minI > 0 {
			bad = append(bad, "too-few")
		}
		if depth < MaxDepth {
			bad = append(bad, "bad-item")
		}
		bad = append(bad, "not-a-list")
		switch rapid.SampledFrom(bad).Draw(t, "invalid-array") {
		case "too-many":
			v, _ := elems(maxI + 1)
			return Drawn{V: v, Invalid: true}
		case "too-few":
			v, _ := elems(minI - 1)
			return Drawn{V: v, Invalid: true}
		case "bad-item":
			n := rapid.Int64Range(max(minI, 1), max(minI, 1)+1).Draw(t, "length")
			if maxI >= 0 {
				n = min(n, max(maxI, 1))
			}
			v, _ := elems(n - 1)
			bad := DrawValue(t, items, true, depth+1)
			if !bad.Invalid {
				return Drawn{V: "not-a-list", Invalid: true}
			}
			return Drawn{V: append(v, bad.V), Invalid: true}
		}
		return Drawn{V: "not-a-list", Invalid: true}
	}
	hiN := minI + 2
	if maxI >= 0 {
		hiN = min(hiN, maxI)
	}
	if depth >= MaxDepth {
		hiN = minI
	}
	if hiN < minI {
		return Drawn{V: []any{}} // no length within the bounds
	}
	v, sure := elems(rapid.Int64Range(minI, hiN).Draw(t, "length"))
	// A set or map list keeps its list type: a second equal item (or item
	// with the same keys) is dropped, as the apiserver would refuse it.
	if v = distinct(p, v); int64(len(v)) < minI {
		sure = false // too few distinct items drawn for minItems
	}
	return Drawn{V: v, Sure: sure && !Unmodelled(items)}
}

// distinct is v without the items that break p's list type, the first of
// each kept.
func distinct(p *apiextensionsv1.JSONSchemaProps, v []any) []any {
	out := v[:0:0]
	seen := map[string]bool{}
	for _, e := range v {
		key, keyed := itemKey(p, e)
		if keyed && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, e)
	}
	return out
}

// DistinctItems reports whether v keeps p's list type: no two equal items in
// a set, no two items with the same keys in a map list.
func DistinctItems(p *apiextensionsv1.JSONSchemaProps, v []any) bool {
	return len(distinct(p, v)) == len(v)
}

// itemKey is what identifies item e of a list of p's type: the item itself
// in a set, its keys in a map list; keyed is false for any other list,
// whose items may repeat.
func itemKey(p *apiextensionsv1.JSONSchemaProps, e any) (key string, keyed bool) {
	var k any = e
	switch ListType(p) {
	case "set":
	case "map":
		m, _ := e.(map[string]any)
		var ks []any
		for _, name := range p.XListMapKeys {
			ks = append(ks, m[name])
		}
		k = ks
	default:
		return "", false
	}
	b, _ := json.Marshal(k)
	return string(b), true
}

// MapValues is the schema of an object's values when it is a map
// (additionalProperties with a schema), or nil.
func MapValues(p *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	if p.Type != "object" || p.AdditionalProperties == nil || p.AdditionalProperties.Schema == nil || len(p.Properties) > 0 {
		return nil
	}
	return p.AdditionalProperties.Schema
}

func SortedProps(p *apiextensionsv1.JSONSchemaProps) []string {
	names := make([]string, 0, len(p.Properties))
	for n := range p.Properties { // lint:order-independent sorted below
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func drawObject(t *rapid.T, p *apiextensionsv1.JSONSchemaProps, invalid bool, depth int) Drawn {
	if !Drawable(p) {
		return Drawn{V: map[string]any{}}
	}
	minP, maxP := int64(0), int64(-1)
	if p.MinProperties != nil {
		minP = *p.MinProperties
	}
	if p.MaxProperties != nil {
		maxP = *p.MaxProperties
	}
	m := map[string]any{}
	sure := true
	if vals := MapValues(p); vals != nil {
		n := rapid.Int64Range(minP, minP+2).Draw(t, "keys")
		if maxP >= 0 {
			n = min(n, maxP)
		}
		if depth >= MaxDepth {
			n = minP
		}
		if invalid {
			switch bad := rapid.IntRange(0, 3).Draw(t, "invalid-map"); {
			case bad == 0 && maxP >= 0:
				n = maxP + 1
			case bad == 1 && minP > 0:
				n = minP - 1
			case bad == 2 && depth < MaxDepth:
				d := DrawValue(t, vals, true, depth+1)
				if d.Invalid {
					m["bad"] = d.V
					return Drawn{V: m, Invalid: true}
				}
				return Drawn{V: "not-an-object", Invalid: true}
			default:
				return Drawn{V: "not-an-object", Invalid: true}
			}
			for i := int64(0); i < n; i++ {
				m[fmt.Sprintf("k%d", i)] = DrawValue(t, vals, false, depth+1).V
			}
			return Drawn{V: m, Invalid: true}
		}
		for i := int64(0); i < n; i++ {
			d := DrawValue(t, vals, false, depth+1)
			sure = sure && d.Sure
			m[fmt.Sprintf("k%d", i)] = d.V
		}
		return Drawn{V: m, Sure: sure}
	}
	names := SortedProps(p)
	var drawableNames []string
	for _, n := range names {
		prop := p.Properties[n]
		if Drawable(&prop) {
			drawableNames = append(drawableNames, n)
		}
	}
	if invalid {
		var bad []string
		var required []string // those the valid draw fills
		for _, r := range p.Required {
			if slices.Contains(drawableNames, r) {
				required = append(required, r)
			}
		}
		if len(required) > 0 {
			bad = append(bad, "drop-required")
		}
		if len(drawableNames) > 0 && depth < MaxDepth {
			bad = append(bad, "bad-property")
		}
		bad = append(bad, "not-an-object")
		how := rapid.SampledFrom(bad).Draw(t, "invalid-object")
		if how == "not-an-object" {
			return Drawn{V: "not-an-object", Invalid: true}
		}
		v := drawObject(t, p, false, depth).V.(map[string]any)
		if how == "drop-required" {
			delete(v, rapid.SampledFrom(required).Draw(t, "required"))
			return Drawn{V: v, Invalid: true}
		}
		n := rapid.SampledFrom(drawableNames).Draw(t, "property")
		prop := p.Properties[n]
		d := DrawValue(t, &prop, true, depth+1)
		if !d.Invalid {
			return Drawn{V: "not-an-object", Invalid: true}
		}
		v[n] = d.V
		return Drawn{V: v, Invalid: true}
	}
	for _, r := range p.Required {
		if _, ok := p.Properties[r]; !ok {
			sure = false // required, but not a property the drawing knows
		}
	}
	for _, n := range names {
		prop := p.Properties[n]
		required := slices.Contains(p.Required, n)
		if !Drawable(&prop) {
			if required {
				sure = false // a required field the drawing cannot fill
			}
			continue
		}
		if !required && (depth >= MaxDepth || !rapid.Bool().Draw(t, "optional")) {
			continue
		}
		d := DrawValue(t, &prop, false, depth+1)
		sure = sure && d.Sure
		m[n] = d.V
	}
	if n := int64(len(m)); n < minP || (maxP >= 0 && n > maxP) {
		sure = false
	}
	return Drawn{V: m, Sure: sure}
}

// JSONContent decodes JSON as unstructured content holds it: integers as
// int64, other numbers as float64.
func JSONContent(raw []byte) any {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return numbers(v)
}

func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x { // lint:order-independent each key's value is converted on its own
			x[k] = numbers(x[k])
		}
	}
	return v
}
