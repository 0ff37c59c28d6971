package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

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
