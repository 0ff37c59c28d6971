package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
	"time"
)

// domain separates ctrlsim's stream seeds from any other use of SHA-256 and
// versions the derivation: changing it changes every run.
const domain = "ctrlsim/rng/v1\x00"

// Source is the one seed of a simulation run and the streams derived from it.
// Stream is safe for concurrent use (a hosted controller's goroutine woken by
// the bubble's clock, outside the scheduler, may make its stream while a
// scheduled goroutine makes another; one lock for every Source,
// streamsMu); a Stream is not.
type Source struct {
	seed    uint64
	streams map[string]*Stream
}

// streamsMu guards every Source's streams (Stream). It is not a field of
// Source: with a sync.Mutex field locked in Stream, go1.26.8's optimised
// build of kubeworld's TestTwoPodsOfOnePrefixMetInTheOtherOrderSwapDraws
// compared two pointers to stack-allocated pods wrongly (first == a false
// where first was a; right with -gcflags=-l, or once a escapes), a
// compiler fault reproduced in a 120-line program outside this module.
var streamsMu sync.Mutex

// New returns the source of a run with the given seed.
func New(seed uint64) *Source {
	return &Source{seed: seed, streams: make(map[string]*Stream)}
}

// Seed returns the seed New was called with.
func (s *Source) Seed() uint64 { return s.seed }

// Stream returns the stream named key, creating it on first use; later calls
// with the same key return the same *Stream, continuing its sequence. A
// stream's draws depend only on (seed, key): never on which other streams
// exist, nor on the order they were created or used. Keys are paths such as
// "informer/p1/apps/v1/Deployment".
func (s *Source) Stream(key string) *Stream {
	streamsMu.Lock()
	r, ok := s.streams[key]
	if !ok {
		r = &Stream{key: key, src: rand.NewChaCha8(streamSeed(s.seed, key))}
		s.streams[key] = r
	}
	streamsMu.Unlock()
	return r
}

// streamSeed is SHA-256(domain || seed as 8 bytes big-endian || key).
func streamSeed(seed uint64, key string) [32]byte {
	h := sha256.New()
	h.Write([]byte(domain))
	h.Write(binary.BigEndian.AppendUint64(nil, seed))
	h.Write([]byte(key))
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Stream is one keyed sequence of draws. The derived draws (IntN, Float64,
// Bool, Duration, Shuffle) are computed here from Uint64, not by rand.Rand,
// so their values are pinned by this package's tests and cannot change with a
// Go release. It is not safe for concurrent use.
type Stream struct {
	key string
	src *rand.ChaCha8
}

// Key returns the stream's key.
func (r *Stream) Key() string { return r.key }

// Uint64 returns a uniform value in [0, 2^64).
func (r *Stream) Uint64() uint64 { return r.src.Uint64() }

// IntN returns a uniform value in [0, n). It panics if n <= 0, like
// math/rand/v2.
func (r *Stream) IntN(n int) int {
	if n <= 0 {
		panic("rng: invalid argument to IntN")
	}
	return int(r.uint64n(uint64(n)))
}

// Pick returns a uniform index in [0, n); it is IntN, named for choosing one
// of n alternatives.
func (r *Stream) Pick(n int) int { return r.IntN(n) }

// Float64 returns a uniform value in [0, 1): the low 53 bits of one draw
// over 2^53, as math/rand/v2 computes it.
func (r *Stream) Float64() float64 {
	return float64(r.Uint64()<<11>>11) / (1 << 53)
}

// Bool returns true with probability p: always false for p <= 0 (or NaN),
// always true for p >= 1. It consumes exactly one draw whatever p is, so
// changing a probability in a plan does not shift the stream's later draws.
func (r *Stream) Bool(p float64) bool {
	return r.Float64() < p
}

// Duration returns a uniform duration in [lo, hi], both ends included. It
// panics if hi < lo.
func (r *Stream) Duration(lo, hi time.Duration) time.Duration {
	if hi < lo {
		panic("rng: Duration with hi < lo")
	}
	span := uint64(hi) - uint64(lo) // exact even when hi-lo overflows int64
	if span == math.MaxUint64 {
		return lo + time.Duration(r.Uint64())
	}
	return lo + time.Duration(r.uint64n(span+1))
}

// Shuffle permutes n elements with Fisher-Yates, calling swap(i, j) for
// i from n-1 down to 1, like math/rand/v2. It panics if n < 0.
func (r *Stream) Shuffle(n int, swap func(i, j int)) {
	if n < 0 {
		panic("rng: invalid argument to Shuffle")
	}
	for i := n - 1; i > 0; i-- {
		swap(i, int(r.uint64n(uint64(i+1))))
	}
}

// uint64n returns a uniform value in [0, n), n > 0, by Lemire's multiply and
// reject method ("Fast Random Integer Generation in an Interval", 2019), as
// math/rand/v2 does on 64-bit platforms (on 32-bit ones it takes a 32-bit path
// this package does not, so runs replay the same on every platform). It usually consumes one draw; rejection is rarer than
// n/2^64.
func (r *Stream) uint64n(n uint64) uint64 {
	if n&(n-1) == 0 { // a power of two
		return r.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}
