package rng_test

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/rng"
	"pgregory.net/rapid"
)

const deployKey = "informer/p1/apps/v1/Deployment"

func draws(s *rng.Stream, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = s.Uint64()
	}
	return out
}

// TestGoldenValues pins the first outputs so that an accidental change of
// algorithm (seed derivation, generator, or a derived draw) fails here: such a
// change silently alters every recorded plan's replay. The seed derivation was
// checked independently: printf 'ctrlsim/rng/v1\x00' + 8-byte seed + key | sha256sum.
func TestGoldenValues(t *testing.T) {
	s := rng.New(1).Stream(deployKey)
	want := []uint64{0x55521f2d626c7429, 0xb4d750a8fda129a9, 0x8681488f6782db40, 0x95366d4c6a1821c7}
	if got := draws(s, 4); !slices.Equal(got, want) {
		t.Fatalf("New(1).Stream(%q) first draws = %#x, want %#x", deployKey, got, want)
	}

	r := rng.New(42).Stream("scheduler/pick")
	if got := r.IntN(10); got != 7 {
		t.Errorf("IntN(10) = %d, want 7", got)
	}
	if got := r.IntN(1000); got != 999 {
		t.Errorf("IntN(1000) = %d, want 999", got)
	}
	if got := r.Float64(); got != 0.47441975201269104 {
		t.Errorf("Float64() = %v, want 0.47441975201269104", got)
	}
	if got := r.Duration(time.Second, 2*time.Second); got != 1041159900*time.Nanosecond {
		t.Errorf("Duration(1s, 2s) = %v, want 1.0411599s", got)
	}
	if got := r.Bool(0.5); got {
		t.Errorf("Bool(0.5) = true, want false")
	}
	p := []int{0, 1, 2, 3, 4, 5, 6, 7}
	r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	if want := []int{5, 0, 4, 2, 7, 1, 6, 3}; !slices.Equal(p, want) {
		t.Errorf("Shuffle(8) = %v, want %v", p, want)
	}
}

func TestSameSeedAndKeyGiveTheSameSequence(t *testing.T) {
	a := draws(rng.New(7).Stream(deployKey), 100)
	b := draws(rng.New(7).Stream(deployKey), 100)
	if !slices.Equal(a, b) {
		t.Fatal("two sources with the same seed gave different sequences for one key")
	}
}

func TestSameKeyReturnsTheSameStreamContinuingItsSequence(t *testing.T) {
	src := rng.New(7)
	s := src.Stream(deployKey)
	first := s.Uint64()
	again := src.Stream(deployKey)
	if again != s {
		t.Fatal("Stream(key) returned a different *Stream for the same key")
	}
	want := draws(rng.New(7).Stream(deployKey), 2)
	if first != want[0] || again.Uint64() != want[1] {
		t.Fatal("a second Stream(key) call restarted the sequence instead of continuing it")
	}
	if src.Seed() != 7 || s.Key() != deployKey {
		t.Fatalf("Seed()=%d Key()=%q", src.Seed(), s.Key())
	}
}

func TestDifferentSeedsOrKeysGiveDifferentSequences(t *testing.T) {
	base := draws(rng.New(1).Stream("a"), 4)
	for _, tc := range []struct {
		name  string
		other []uint64
	}{
		{"other seed", draws(rng.New(2).Stream("a"), 4)},
		{"other key", draws(rng.New(1).Stream("b"), 4)},
		{"empty key", draws(rng.New(1).Stream(""), 4)},
	} {
		if slices.Equal(base, tc.other) {
			t.Errorf("%s: same first draws as New(1).Stream(\"a\")", tc.name)
		}
	}
}

// TestStreamDrawsDependOnlyOnSeedAndKey: creating and using other streams, in
// any order and interleaving, never shifts a stream's draws.
func TestStreamDrawsDependOnlyOnSeedAndKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		want := draws(rng.New(seed).Stream(deployKey), 20)

		src := rng.New(seed)
		others := rapid.SliceOfDistinct(rapid.StringMatching(`[a-z/]{0,12}`), rapid.ID[string]).Draw(t, "others")
		var got []uint64
		for len(got) < len(want) {
			if len(others) > 0 && rapid.Bool().Draw(t, "use other") {
				o := src.Stream(rapid.SampledFrom(others).Draw(t, "other"))
				o.IntN(rapid.IntRange(1, 100).Draw(t, "n"))
				continue
			}
			got = append(got, src.Stream(deployKey).Uint64())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("draws shifted by other streams:\n got %#x\nwant %#x", got, want)
		}
	})
}

// TestDerivedDrawsMatchMathRandV2 checks this package's own IntN, Float64 and
// Shuffle against math/rand/v2's on the same generator (64-bit platforms).
// The package owns these algorithms so a Go release cannot change recorded
// runs; if a release changes rand/v2 and only this test fails, delete it.
func TestDerivedDrawsMatchMathRandV2(t *testing.T) {
	if bits.UintSize != 64 {
		t.Skip("math/rand/v2 takes a 32-bit path on this platform")
	}
	// The reference is a rand.Rand fed by a second copy of the same stream.
	s := rng.New(9).Stream("derived")
	want := rand.New(uint64Func(rng.New(9).Stream("derived").Uint64))
	for i := range 1000 {
		n := 1 + i*i*7919
		if got, w := s.IntN(n), want.IntN(n); got != w {
			t.Fatalf("IntN(%d) = %d, math/rand/v2 gives %d", n, got, w)
		}
		if got, w := s.Float64(), want.Float64(); got != w {
			t.Fatalf("Float64() = %v, math/rand/v2 gives %v", got, w)
		}
	}
	a, b := make([]int, 50), make([]int, 50)
	for i := range a {
		a[i], b[i] = i, i
	}
	s.Shuffle(len(a), func(i, j int) { a[i], a[j] = a[j], a[i] })
	want.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	if !slices.Equal(a, b) {
		t.Fatalf("Shuffle = %v, math/rand/v2 gives %v", a, b)
	}
}

type uint64Func func() uint64

func (f uint64Func) Uint64() uint64 { return f() }

func TestIntNIsInRangeAndPanicsOnNonPositive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rng.New(rapid.Uint64().Draw(t, "seed")).Stream("k")
		n := rapid.IntRange(1, math.MaxInt).Draw(t, "n")
		if got := s.IntN(n); got < 0 || got >= n {
			t.Fatalf("IntN(%d) = %d", n, got)
		}
		if got := s.Pick(n); got < 0 || got >= n {
			t.Fatalf("Pick(%d) = %d", n, got)
		}
	})
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("IntN(%d) did not panic", n)
				}
			}()
			rng.New(1).Stream("k").IntN(n)
		}()
	}
}

func TestDurationIsWithinBothBoundsInclusive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rng.New(rapid.Uint64().Draw(t, "seed")).Stream("k")
		a := time.Duration(rapid.Int64().Draw(t, "a"))
		b := time.Duration(rapid.Int64().Draw(t, "b"))
		lo, hi := min(a, b), max(a, b)
		if got := s.Duration(lo, hi); got < lo || got > hi {
			t.Fatalf("Duration(%d, %d) = %d", lo, hi, got)
		}
	})
	s := rng.New(1).Stream("k")
	if got := s.Duration(time.Second, time.Second); got != time.Second {
		t.Errorf("Duration(1s, 1s) = %v", got)
	}
	// Both ends are reachable: with a span of 2 values, both appear.
	seen := map[time.Duration]bool{}
	for range 100 {
		seen[s.Duration(0, 1)] = true
	}
	if !seen[0] || !seen[1] {
		t.Errorf("Duration(0, 1) over 100 draws saw %v, want both 0 and 1", seen)
	}
	defer func() {
		if recover() == nil {
			t.Error("Duration(2s, 1s) did not panic")
		}
	}()
	s.Duration(2*time.Second, time.Second)
}

func TestShuffleIsAPermutation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rng.New(rapid.Uint64().Draw(t, "seed")).Stream("k")
		n := rapid.IntRange(0, 100).Draw(t, "n")
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		s.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		sorted := slices.Sorted(slices.Values(p))
		for i, v := range sorted {
			if v != i {
				t.Fatalf("Shuffle(%d) lost or duplicated elements: %v", n, p)
			}
		}
	})
}

func TestBoolHonoursProbability(t *testing.T) {
	s := rng.New(3).Stream("k")
	for range 1000 {
		if s.Bool(0) || s.Bool(-1) || s.Bool(math.NaN()) {
			t.Fatal("Bool(p <= 0 or NaN) returned true")
		}
		if !s.Bool(1) || !s.Bool(2) {
			t.Fatal("Bool(p >= 1) returned false")
		}
	}
	const n = 100_000
	trues := 0
	for range n {
		if s.Bool(0.3) {
			trues++
		}
	}
	if f := float64(trues) / n; math.Abs(f-0.3) > 0.01 {
		t.Fatalf("Bool(0.3) true %.4f of the time", f)
	}
	// Exactly one draw per call whatever p is.
	a, b := rng.New(5).Stream("k"), rng.New(5).Stream("k")
	a.Bool(0)
	b.Bool(0.9)
	if a.Uint64() != b.Uint64() {
		t.Fatal("Bool consumed a different number of draws for different p")
	}
}

func TestIntNIsRoughlyUniform(t *testing.T) {
	// Deterministic (fixed seed), so this never flakes; it catches a biased
	// or broken reduction. Chi-square with 9 degrees of freedom: 27.9 is the
	// 0.1% critical value.
	s := rng.New(11).Stream("k")
	const buckets, n = 10, 100_000
	var counts [buckets]int
	for range n {
		counts[s.IntN(buckets)]++
	}
	chi := 0.0
	for _, c := range counts {
		d := float64(c) - n/buckets
		chi += d * d / (n / buckets)
	}
	if chi > 27.9 {
		t.Fatalf("chi-square %.1f over counts %v", chi, counts)
	}
}

func ExampleSource_Stream() {
	src := rng.New(1)
	lag := src.Stream("informer/p1/apps/v1/Deployment")
	fmt.Println(lag.Duration(0, 5*time.Second))
	fmt.Println(lag.Duration(0, 5*time.Second))
	// Output:
	// 1.666421645s
	// 3.532052237s
}
