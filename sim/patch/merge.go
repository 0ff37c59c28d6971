package patch

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// mergePatch is gopkg.in/evanphx/json-patch.v4's MergePatch(doc, patch) for a doc that is a JSON
// object and a patch that is a valid JSON object, without its cost: the library decodes every
// object it touches into a map of raw values and encodes the result again (compacting every raw
// value on the way), which made JSON merge patch the top cost of exploring the catalogue. This
// walks the raw bytes once and copies untouched values as they are.
//
// The result is the library's document: the same members in the same order at every level, and
// the same values, byte for byte except for insignificant whitespace and the library's HTML
// escaping of '<', '>' and '&' inside strings. So it decodes to the same object with the same
// errors; TestMergePatchIsTheLibrarys checks this against the library. Where the library would
// fail or the patch is not an object, ok is false and the caller uses the library. doc and patch
// must be valid JSON (Apply checks the patch first; doc is json.Marshal's).
//
// The library's quirks kept here: objects it merges or prunes come out with their keys sorted
// (it re-encodes a Go map), others keep their order; duplicate keys in an object it decodes keep
// the last value; a null member of the patch deletes the key, and nulls are pruned from objects
// the patch adds, but not from arrays, and not from a non-object value that replaces an object.
func mergePatch(doc, patch []byte) (out []byte, ok bool) {
	merged, ok := mergePatchObject(doc, patch)
	if !ok {
		return nil, false
	}
	return merged.appendTo(make([]byte, 0, len(doc)+len(patch))), true
}

// mergePatchObject is mergePatch before it writes the result: the merged object's members.
// Both documents must be valid JSON, as Apply has checked the patch before.
func mergePatchObject(doc, patch []byte) (*value, bool) {
	if !isObject(doc) || !isObject(patch) {
		return nil, false
	}
	d, ok := parseObject(doc)
	if !ok {
		return nil, false
	}
	p, ok := parseObject(patch)
	if !ok {
		return nil, false
	}
	return mergeObjects(d, p), true
}

// typeMeta reads apiVersion and kind from a merged object as the serializer's
// SimpleMetaFactory.Interpret does (decoding the whole document into a struct of the two), when
// that is plain: ok is false when a key could match either field only case-insensitively, or a
// value is not a plain string or null.
func (v *value) typeMeta() (apiVersion, kind string, ok bool) {
	for _, m := range v.obj {
		var into *string
		switch {
		case m.key == "apiVersion":
			into = &apiVersion
		case m.key == "kind":
			into = &kind
		case strings.EqualFold(m.key, "apiVersion"), strings.EqualFold(m.key, "kind"):
			return "", "", false
		default:
			for i := 0; i < len(m.key); i++ {
				if m.key[i] >= utf8.RuneSelf {
					return "", "", false // encoding/json's folding also knows a few non-ASCII letters
				}
			}
			continue
		}
		if m.val == nil {
			continue // null leaves the string empty
		}
		if m.val.kind != 0 || len(m.val.raw) < 2 || m.val.raw[0] != '"' {
			return "", "", false
		}
		s, plain := m.val.raw[1:len(m.val.raw)-1], true
		for _, c := range s {
			if c == '\\' || c == '"' || c < 0x20 || c >= utf8.RuneSelf {
				plain = false
			}
		}
		if !plain {
			return "", "", false
		}
		*into = string(s)
	}
	return apiVersion, kind, true
}

// value is a JSON value: raw bytes, or an object or array the merge rebuilt.
type value struct {
	raw  []byte   // when obj and ary are nil
	obj  []member // a rebuilt object, sorted by key
	ary  []*value // a rebuilt array; nil elements are nulls
	kind byte     // 'o' rebuilt object, 'a' rebuilt array, 0 raw
}

type member struct {
	key string
	val *value // nil: null
}

func (v *value) appendTo(b []byte) []byte {
	switch v.kind {
	case 'o':
		b = append(b, '{')
		for i, m := range v.obj {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendKey(b, m.key)
			b = append(b, ':')
			if m.val == nil {
				b = append(b, "null"...)
			} else {
				b = m.val.appendTo(b)
			}
		}
		return append(b, '}')
	case 'a':
		b = append(b, '[')
		for i, e := range v.ary {
			if i > 0 {
				b = append(b, ',')
			}
			if e == nil {
				b = append(b, "null"...)
			} else {
				b = e.appendTo(b)
			}
		}
		return append(b, ']')
	default:
		return append(b, v.raw...)
	}
}

// appendKey writes a decoded key as a JSON string.
func appendKey(b []byte, k string) []byte {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			enc, _ := json.Marshal(k) // a string always encodes
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"')
}

// mergeObjects is the library's mergeDocs on two decoded objects; the result is sorted.
func mergeObjects(doc, patch []member) *value {
	for _, pm := range patch {
		i, found := slices.BinarySearchFunc(doc, pm.key, func(m member, k string) int { return strings.Compare(m.key, k) })
		switch {
		case pm.val == nil:
			if found {
				doc = slices.Delete(doc, i, i+1)
			}
		case found && doc[i].val != nil:
			doc[i].val = merge(doc[i].val, pm.val)
		case found:
			doc[i].val = prune(pm.val)
		default:
			doc = slices.Insert(doc, i, member{key: pm.key, val: prune(pm.val)})
		}
	}
	return &value{kind: 'o', obj: doc}
}

// merge is the library's merge: a patch object merges into an object; anything else replaces
// the current value, pruned of nulls when the current value is not an object.
func merge(cur, patch *value) *value {
	if !cur.isObject() {
		return prune(patch)
	}
	if !patch.isObject() {
		return patch
	}
	c, ok := cur.members()
	if !ok {
		return prune(patch) // unreachable for valid JSON
	}
	p, ok := patch.members()
	if !ok {
		return patch
	}
	return mergeObjects(c, p)
}

// prune is the library's pruneNulls: null members go from objects, recursively through objects
// and arrays (array elements that are null stay).
func prune(v *value) *value {
	switch {
	case v.isObject():
		ms, ok := v.members()
		if !ok {
			return v
		}
		kept := ms[:0]
		for _, m := range ms {
			if m.val != nil {
				kept = append(kept, member{key: m.key, val: prune(m.val)})
			}
		}
		return &value{kind: 'o', obj: kept}
	case v.isArray():
		es, ok := v.elements()
		if !ok {
			return v
		}
		for i, e := range es {
			if e != nil {
				es[i] = prune(e)
			}
		}
		return &value{kind: 'a', ary: es}
	default:
		return v
	}
}

func (v *value) isObject() bool { return v.kind == 'o' || (v.kind == 0 && isObject(v.raw)) }
func (v *value) isArray() bool  { return v.kind == 'a' || (v.kind == 0 && firstByte(v.raw) == '[') }

// members decodes an object value (sorted by key, last duplicate wins).
func (v *value) members() ([]member, bool) {
	if v.kind == 'o' {
		return v.obj, true
	}
	return parseObject(v.raw)
}

// elements decodes an array value.
func (v *value) elements() ([]*value, bool) {
	if v.kind == 'a' {
		return v.ary, true
	}
	s := scanner{b: v.raw}
	s.ws()
	if !s.eat('[') {
		return nil, false
	}
	var out []*value
	s.ws()
	if s.eat(']') {
		return []*value{}, true
	}
	for {
		s.ws()
		start := s.i
		if !s.skipValue() {
			return nil, false
		}
		raw := v.raw[start:s.i]
		if string(raw) == "null" {
			out = append(out, nil)
		} else {
			out = append(out, &value{raw: raw})
		}
		s.ws()
		if s.eat(']') {
			return out, true
		}
		if !s.eat(',') {
			return nil, false
		}
	}
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func isObject(b []byte) bool { return firstByte(b) == '{' }

// parseObject splits a valid JSON object into members sorted by decoded key, the last of
// duplicate keys winning, as decoding into a Go map does. Values stay raw; nulls are nil.
func parseObject(b []byte) ([]member, bool) {
	s := scanner{b: b}
	s.ws()
	if !s.eat('{') {
		return nil, false
	}
	var ms []member
	s.ws()
	if s.eat('}') {
		return ms, true
	}
	for {
		s.ws()
		kstart := s.i
		if !s.skipString() {
			return nil, false
		}
		key, ok := decodeKey(b[kstart:s.i])
		if !ok {
			return nil, false
		}
		s.ws()
		if !s.eat(':') {
			return nil, false
		}
		s.ws()
		vstart := s.i
		if !s.skipValue() {
			return nil, false
		}
		var val *value
		if raw := b[vstart:s.i]; string(raw) != "null" {
			val = &value{raw: raw}
		}
		ms = append(ms, member{key: key, val: val})
		s.ws()
		if s.eat('}') {
			break
		}
		if !s.eat(',') {
			return nil, false
		}
	}
	// Sort stably by key and keep the last of equal keys.
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue
		}
		out = append(out, m)
	}
	return out, true
}

// decodeKey unquotes a JSON string as encoding/json does into a map key.
func decodeKey(q []byte) (string, bool) {
	plain := len(q) >= 2
	for i := 1; plain && i < len(q)-1; i++ {
		if c := q[i]; c == '\\' || c >= utf8.RuneSelf || c < 0x20 {
			plain = false
		}
	}
	if plain {
		return string(q[1 : len(q)-1]), true
	}
	var k string
	if err := json.Unmarshal(q, &k); err != nil {
		return "", false
	}
	return k, true
}

// scanner skips over values of valid JSON.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) skipString() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return true
		default:
			s.i++
		}
	}
	return false
}

// skipValue skips one value: a string, an object or array (counting brackets outside
// strings), or a literal or number (up to the next delimiter).
func (s *scanner) skipValue() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		return s.skipString()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if !s.skipString() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}
