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
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			add([]byte(x), x)
		case map[string]any:
			if b, err := json.Marshal(x); err == nil {
				if seen[string(b)] {
					return // this node, and so all inside it, is indexed
				}
				add(b, x)
			}
			keys := make([]string, 0, len(x))
			for k := range x { // lint:order-independent sorted below
				if k != "managedFields" {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys) // the first value stored of a digest is the one named
			for _, k := range keys {
				walk(x[k])
			}
		case []any:
			if b, err := json.Marshal(x); err == nil {
				if seen[string(b)] {
					return
				}
				add(b, x)
			}
			for _, e := range x {
				walk(e)
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
		walk(u)
	}
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
