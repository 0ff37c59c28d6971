package canon

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// digestText is what a checksum looks like: lowercase hex, at least 16
// characters (a SHA-256 cut to 16, as many operators cut it) and at most
// a SHA-512's 128.
var digestText = regexp.MustCompile(`^[0-9a-f]{16,128}$`)

// digestKey is how many leading characters of a digest index it (the
// shortest checksum digestText takes).
const digestKey = 16

// digests is a run's preimages: for every value the run stored (each
// version of each object in its watch log), its digests, so that a checksum
// an operator computed over content the cluster holds is named by that
// content. Built on the first checksum met (most runs meet none).
type digests struct {
	log  []apiserver.Event
	once sync.Once
	// byKey: a digest's first digestKey characters -> the full digests (hex)
	// of that start and what each digests.
	byKey map[string][]preimage
}

type preimage struct {
	hex   string
	value any // a string, or a decoded JSON object or list
}

// lookup finds what s is the digest of (s the whole hex digest or its
// leading part): the value, and whether there is one. Two values of one
// digest (none in practice) give the first stored.
func (d *digests) lookup(s string) (any, bool) {
	if d == nil || !digestText.MatchString(s) {
		return nil, false
	}
	d.once.Do(d.build)
	for _, p := range d.byKey[s[:digestKey]] {
		if len(s) <= len(p.hex) && p.hex[:len(s)] == s {
			return p.value, true
		}
	}
	return nil, false
}

// build indexes the digests of every value stored in the run: every string,
// and the JSON (as encoding/json writes it: map keys sorted) of every object
// and list inside an object's content (its metadata's managedFields aside),
// by MD5, SHA-1, SHA-256 and SHA-512 in hex.
func (d *digests) build() {
	d.byKey = map[string][]preimage{}
	seen := map[string]bool{}
	add := func(b []byte, v any) {
		if seen[string(b)] {
			return
		}
		seen[string(b)] = true
		m5, s1, s256, s512 := md5.Sum(b), sha1.Sum(b), sha256.Sum256(b), sha512.Sum512(b)
		for _, sum := range [][]byte{m5[:], s1[:], s256[:], s512[:]} {
			h := hex.EncodeToString(sum)
			d.byKey[h[:digestKey]] = append(d.byKey[h[:digestKey]], preimage{hex: h, value: v})
		}
	}
	var walk func(n *encoded)
	walk = func(n *encoded) {
		switch x := n.v.(type) {
		case string:
			add([]byte(x), x)
			return
		case map[string]any, []any:
			if n.ok {
				if seen[string(n.json)] {
					return // this node, and so all inside it, is indexed
				}
				add(n.json, x)
			}
		}
		for _, k := range n.kids { // a map's in key order: the first value stored of a digest is the one named
			if k.walked {
				walk(k)
			}
		}
	}
	for _, ev := range d.log {
		if ev.Object == nil {
			continue
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ev.Object)
		if err != nil {
			continue
		}
		walk(encode(u, true))
	}
}

// encoded is a decoded JSON value with its JSON as json.Marshal writes it
// (ok false where json.Marshal fails), built from its children's, so that a
// value's nodes are encoded once, not once per node above them.
type encoded struct {
	v    any
	json []byte
	ok   bool
	// kids are a map's values in key order, a list's items; walked is
	// false for what build does not index (managedFields).
	kids   []*encoded
	walked bool
}

// encode is v encoded; walked as given.
func encode(v any, walked bool) *encoded {
	n := &encoded{v: v, walked: walked, ok: true}
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			n.json = []byte("null")
			return n
		}
		keys := make([]string, 0, len(x))
		for k := range x { // lint:order-independent sorted below
			keys = append(keys, k)
		}
		slices.Sort(keys) // json.Marshal's order of a map's keys
		size := 2
		for _, k := range keys {
			kid := encode(x[k], k != "managedFields")
			n.kids = append(n.kids, kid)
			n.ok = n.ok && kid.ok
			size += len(k) + 4 + len(kid.json)
		}
		if !n.ok {
			break
		}
		n.json = make([]byte, 0, size)
		n.json = append(n.json, '{')
		for i, k := range keys {
			if i > 0 {
				n.json = append(n.json, ',')
			}
			if n.json, n.ok = appendString(n.json, k); !n.ok {
				break
			}
			n.json = append(n.json, ':')
			n.json = append(n.json, n.kids[i].json...)
		}
		n.json = append(n.json, '}')
	case []any:
		if x == nil {
			n.json = []byte("null")
			return n
		}
		size := 2
		for _, e := range x {
			kid := encode(e, true)
			n.kids = append(n.kids, kid)
			n.ok = n.ok && kid.ok
			size += 1 + len(kid.json)
		}
		if !n.ok {
			break
		}
		n.json = make([]byte, 0, size)
		n.json = append(n.json, '[')
		for i, kid := range n.kids {
			if i > 0 {
				n.json = append(n.json, ',')
			}
			n.json = append(n.json, kid.json...)
		}
		n.json = append(n.json, ']')
	case string:
		n.json, n.ok = appendString(nil, x)
	default:
		b, err := json.Marshal(x)
		n.json, n.ok = b, err == nil
	}
	if !n.ok {
		n.json = nil
	}
	return n
}

// appendString appends s as json.Marshal encodes a string: quoted as it is
// when it needs no escape (printable ASCII other than the quote, the
// backslash and json.Marshal's HTML escapes <, > and &), else json.Marshal's
// own bytes.
func appendString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			return append(b, q...), err == nil
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// digestName is the canonical name of a checksum whose content the run
// stored: a digest of that content after the equivalence (digestOf: times
// and uids masked), "<digest of [1a2b3c4d]>".
func (d *digests) name(s string) (string, bool) {
	v, ok := d.lookup(s)
	if !ok {
		return "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	var cp any
	if err := json.Unmarshal(b, &cp); err != nil { // a copy: v is the index's
		return "", false
	}
	dg, ok := digestOf(cp, "", d)
	if !ok {
		return "", false
	}
	return "<digest of [" + dg + "]>", true
}
