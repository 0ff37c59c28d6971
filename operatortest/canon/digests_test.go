package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// checksumOf is the SHA-256 of data's JSON, in hex, as an operator that
// rolls its pods on a ConfigMap's change computes it.
func checksumOf(t *testing.T, data map[string]string) string {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// runWith is the Tokens of a run whose log holds a ConfigMap of data.
func runWith(data map[string]string) *Tokens {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "queue", Name: "relay-config", UID: "uid-1"}, Data: data}
	return NewTokens([]apiserver.Event{{Type: watch.Added, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Object: cm}})
}

// A checksum is compared by what it digests: two schedules that stamped one
// configuration at two instants computed two checksums of one content, which
// read alike; a checksum of another configuration, or one the run stored no
// content of (a stale one, another serialisation), reads as another.
func TestAChecksumIsComparedByWhatItDigests(t *testing.T) {
	early := map[string]string{"relay.conf": "port = 4222", "changedAt": "2026-01-01T00:00:03Z"}
	late := map[string]string{"relay.conf": "port = 4222", "changedAt": "2026-01-01T00:00:07Z"}
	other := map[string]string{"relay.conf": "port = 4223", "changedAt": "2026-01-01T00:00:03Z"}
	a := runWith(early).Text(checksumOf(t, early))
	b := runWith(late).Text(checksumOf(t, late))
	if a != b {
		t.Errorf("one content stamped at two instants: checksums read %q and %q", a, b)
	}
	if a == checksumOf(t, early) {
		t.Errorf("the checksum of stored content reads as its hex: %q", a)
	}
	if c := runWith(other).Text(checksumOf(t, other)); c == a {
		t.Errorf("the checksum of another configuration reads as the first: %q", c)
	}
	// Cut to 16 characters, as many operators cut it: the same rule.
	if a16, b16 := runWith(early).Text(checksumOf(t, early)[:16]), runWith(late).Text(checksumOf(t, late)[:16]); a16 != b16 || a16 != a {
		t.Errorf("cut checksums read %q and %q, want %q", a16, b16, a)
	}
	// A stale checksum: the run holds only the other content.
	stale := checksumOf(t, early)
	if got := runWith(other).Text(stale); got != stale {
		t.Errorf("a checksum of content the run never stored is renamed: %q", got)
	}
}

// The index encodes each value once, from its children's encodings: the
// bytes are json.Marshal's, HTML escapes, invalid UTF-8, floats, nulls and
// map key order included, so a checksum over content is found as before.
func TestAValueEncodedFromItsChildrenIsJSONMarshalsBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue().Draw(t, "v")
		want, err := json.Marshal(v)
		got := encode(v, true)
		switch {
		case err != nil && got.ok:
			t.Fatalf("json.Marshal failed (%v), encode gave %s", err, got.json)
		case err == nil && (!got.ok || string(got.json) != string(want)):
			t.Fatalf("encode gave %s (ok %v), json.Marshal %s", got.json, got.ok, want)
		}
	})
}

// jsonValue draws what runtime.DefaultUnstructuredConverter.ToUnstructured
// gives: maps, lists, strings, int64s, float64s, bools and nils, nested.
func jsonValue() *rapid.Generator[any] {
	leaf := rapid.OneOf(
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.SampledFrom([]string{"<a&b>", "\u2028", "\xff\xfe", "é", `"q"\`, ""}), func(s string) any { return s }),
		rapid.Map(rapid.Int64(), func(i int64) any { return i }),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Just[any](nil),
		rapid.Just[any](map[string]any(nil)),
		rapid.Just[any]([]any(nil)),
	)
	var value func(depth int) *rapid.Generator[any]
	value = func(depth int) *rapid.Generator[any] {
		if depth == 0 {
			return leaf
		}
		return rapid.OneOf(leaf,
			rapid.Map(rapid.MapOfN(rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{"managedFields", "<k>", "a", "b"})), value(depth-1), 0, 4),
				func(m map[string]any) any { return m }),
			rapid.Map(rapid.SliceOfN(value(depth-1), 0, 4), func(l []any) any { return l }),
		)
	}
	return value(3)
}
