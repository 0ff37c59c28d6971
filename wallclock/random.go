package wallclock

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"fmt"
	mathrand "math/rand"
	randv2 "math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/cryptotest"

	"github.com/google/uuid"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// SeedRandom makes the randomness that code in the process draws follow seed
// for the rest of t (call it in the bubble, before the world runs): every run
// seeded alike draws the same values in the same order.
//
//   - crypto/rand (Read, Text, Int, Prime, the Reader) and every implicit use
//     of cryptographic randomness in crypto/... (key generation, say):
//     testing/cryptotest.SetGlobalRandom, until t ends.
//   - github.com/google/uuid (uuid.New; controller-runtime draws one per
//     reconcile, as its reconcileID) from a stream of its own, until t ends:
//     otherwise each reconcile would shift the values an operator then draws
//     from crypto/rand.
//   - math/rand's global functions (Int, Intn, Float64, Shuffle, Read, ...,
//     and what is built on them: wait.Jitter, say): re-seeded through
//     math/rand.Seed, which Go 1.24 made a no-op unless GODEBUG has
//     randseednop=0; SeedRandom sets it for the call and puts GODEBUG back.
//     The global generator then stays seeded after t (no later code needs
//     it random).
//   - k8s.io/apimachinery/pkg/util/rand (String, Intn: the names operators
//     make), through its Seed.
//
// What no code in the process can seed: math/rand/v2's global functions
// (and math/rand's, had they not been re-seeded) read runtime.rand, a
// ChaCha8 state per OS thread seeded by the operating system at start, with
// no GODEBUG and no hook; the order of a Go map's iteration and
// hash/maphash's seeds come from it too. Code that draws from them is
// nondeterministic, and that shows: two runs of one plan differ in their
// trace hash (CheckDeterminism, and a replay that does not reproduce).
//
// Restart, which SeedRandom returns, starts crypto/rand, math/rand and
// util/rand over from the seed (google/uuid goes on): a world calls it when
// an operator's process starts again, so that the new incarnation draws what
// the first one drew (see operatortest's random.go).
//
// A parallel test (t.Parallel, on t or a parent) cannot seed what the whole
// process shares: SeedRandom fails the test with one line saying so.
func SeedRandom(t *testing.T, seed uint64) (restart func()) {
	t.Helper()
	src := rng.New(seed)
	crypto, math, apimachinery := src.Stream("random/crypto").Uint64(), int64(src.Stream("random/math").Uint64()), int64(src.Stream("random/apimachinery").Uint64())
	restart = func() {
		if err := setGlobalRandom(t, crypto); err != nil {
			t.Fatalf("wallclock: the process's randomness cannot follow the plan: %v", err)
		}
		seedMathRand(math)
		utilrand.Seed(apimachinery)
	}
	restart()
	drawOnce.Do(func() {
		// A create that the apiserver model remembers draws what its field
		// manager drew (sim/apiserver's createMemo).
		apiserver.SetCreateDraw(func() { mathrand.Float32() })
	})
	uuid.SetRand(newReader(src.Stream("random/uuid").Uint64()))
	t.Cleanup(func() { uuid.SetRand(nil) })
	return restart
}

var drawOnce sync.Once

// setGlobalRandom is cryptotest.SetGlobalRandom, with its panic (a parallel
// test, a FIPS 140-3 v1.0.0 build) as an error.
func setGlobalRandom(t *testing.T, seed uint64) (err error) {
	if !testing.Testing() {
		// A program that is not a test binary (ctrlsim run, through
		// internal/outside.Run) cannot use cryptotest: crypto/rand's Reader
		// is seeded instead, which Read, Text, Int and Prime follow
		// (implicit draws of crypto/... do not: Known gaps).
		previous := cryptorand.Reader
		cryptorand.Reader = newReader(seed)
		t.Cleanup(func() { cryptorand.Reader = previous })
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("testing/cryptotest.SetGlobalRandom: %v", r)
		}
	}()
	cryptotest.SetGlobalRandom(t, seed)
	return nil
}

// seedMathRand seeds math/rand's global generator. Seed is a no-op since
// Go 1.24 unless GODEBUG has randseednop=0, which the runtime reads again
// whenever the GODEBUG variable is set (os.Setenv notifies it).
func seedMathRand(seed int64) {
	old, had := os.LookupEnv("GODEBUG")
	setting := "randseednop=0"
	if strings.TrimSpace(old) != "" {
		setting = old + "," + setting // the last setting of a key wins
	}
	os.Setenv("GODEBUG", setting)
	mathrand.Seed(seed) //nolint:staticcheck // the deprecated global Seed is the only way in
	if had {
		os.Setenv("GODEBUG", old)
	} else {
		os.Unsetenv("GODEBUG")
	}
}

// reader is a ChaCha8 stream as an io.Reader, safe for concurrent use.
type reader struct {
	mu sync.Mutex
	c  *randv2.ChaCha8
}

func newReader(seed uint64) *reader {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:8], seed)
	return &reader{c: randv2.NewChaCha8(s)}
}

func (r *reader) Read(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c.Read(b)
}
