package rng_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// methodNames lists the exported methods of v's type.
func methodNames(v any) []string {
	typ := reflect.TypeOf(v)
	var out []string
	for i := range typ.NumMethod() {
		out = append(out, typ.Method(i).Name)
	}
	return out
}

func TestAnyoneWhoKnowsTheSeedPredictsEveryStream(t *testing.T) {
	const seed, key = 12345, "scheduler/pick"
	// The derivation of doc.go's contract, from public parts alone.
	h := sha256.New()
	h.Write([]byte("ctrlsim/rng/v1\x00"))
	h.Write(binary.BigEndian.AppendUint64(nil, seed))
	h.Write([]byte(key))
	var s [32]byte
	h.Sum(s[:0])
	predicted := rand.NewChaCha8(s)
	st := rng.New(seed).Stream(key)
	for i := range 100 {
		if got, want := st.Uint64(), predicted.Uint64(); got != want {
			t.Fatalf("draw %d = %#x, the seed predicts %#x", i, got, want)
		}
	}
}

func TestTwoSitesChoosingOneKeyShiftEachOthersDraws(t *testing.T) {
	alone := draws(rng.New(3).Stream("informer/p1"), 2)
	src := rng.New(3)
	siteA, siteB := src.Stream("informer/p1"), src.Stream("informer/p1")
	siteB.Uint64() // the other site draws first
	if got := siteA.Uint64(); got != alone[1] || siteA != siteB {
		t.Fatalf("site A's first draw = %#x (one stream: %v), want %#x, the second of the key's sequence", got, siteA == siteB, alone[1])
	}
	// Nothing is checked of a key: an empty one, one built from a counter, one
	// that is no path at all.
	for _, key := range []string{"", "pods/" + strconv.Itoa(7), "\x00 not a path \xff"} {
		if got := src.Stream(key).Key(); got != key {
			t.Errorf("Stream(%q).Key() = %q", key, got)
		}
	}
}

func TestASourceKeepsEveryStreamItMadeForItsLifetime(t *testing.T) {
	if got, want := methodNames(&rng.Source{}), []string{"Seed", "Stream"}; !slices.Equal(got, want) {
		t.Errorf("Source's methods are %v, want %v (none lets a stream go)", got, want)
	}
	src := rng.New(1)
	first := src.Stream("k/0")
	for i := range 10_000 {
		src.Stream("k/" + strconv.Itoa(i+1))
	}
	if src.Stream("k/0") != first {
		t.Fatal("after 10,000 other keys, Stream(\"k/0\") is a new stream: the source let the first go")
	}
}

func TestAStreamDrawsNoNormalExponentialOrZipf(t *testing.T) {
	want := []string{"Bool", "Duration", "Float64", "IntN", "Key", "Pick", "Shuffle", "Uint64"}
	if got := methodNames(&rng.Stream{}); !slices.Equal(got, want) {
		t.Fatalf("Stream's methods are %v, want %v", got, want)
	}
}
