// Package rng is the simulator's only source of randomness: one seed per run,
// split into keyed sub-streams.
//
// Every decision site draws from its own Stream, named by a key such as
// "informer/p1/apps/v1/Deployment" or "scheduler/pick". A stream's sequence
// is a pure function of (seed, key): adding a fault site, an object or a
// process, or using streams in another order, never shifts the draws of an
// unrelated site (the keyed-PRNG idea of pebble's vfs/errorfs). This keeps a
// shrunk plan's remaining choices stable while rapid removes others.
//
// Contract:
//
//   - A stream is math/rand/v2's ChaCha8 generator seeded with
//     SHA-256("ctrlsim/rng/v1" 0x00 || seed as 8 bytes big-endian || key).
//   - Source.Stream returns the same *Stream for the same key, continuing its
//     sequence.
//   - Derived draws (IntN/Pick, Float64, Bool, Duration, Shuffle) are
//     implemented in this package on top of Uint64 (Lemire's unbiased
//     bounded integers; 53-bit floats), so a Go release cannot change them.
//     Golden tests pin the first outputs of a stream: a change of algorithm
//     fails them, and must be treated as a change of every recorded run.
//   - Float64 and Bool consume exactly one Uint64; IntN and Duration one,
//     except on a rejection (probability below n/2^64); Shuffle(n) n-1 IntN.
//   - Argument errors (IntN(n <= 0), Duration(hi < lo), Shuffle(n < 0)) are
//     programmer errors and panic, as in math/rand/v2.
//
// Nothing in sim/ may use the global math/rand or math/rand/v2 functions, or
// any generator not obtained from a Source.
//
// A Stream is not safe for concurrent use: the scheduler runs one goroutine
// at a time, and each stream has one site. Source.Stream is: a hosted
// controller's goroutine woken by the bubble's clock (kube-controller-manager's
// garbage collector's Sync, making a monitor's informer and its list-order
// stream) runs before it calls into the simulator, beside the scheduled one,
// which may be making a stream of its own.
//
// # Known gaps
//
//   - Not for security: streams are predictable from the seed by design
//     (TestAnyoneWhoKnowsTheSeedPredictsEveryStream).
//   - Keys are not validated or namespaced: two sites that choose the same key
//     share one stream and shift each other's draws. Callers must build keys
//     from the site's identity (component/process/kind/...), never from
//     anything order-dependent such as a counter of created objects
//     (TestTwoSitesChoosingOneKeyShiftEachOthersDraws).
//   - Streams are kept for the Source's lifetime (about 0.4 KiB each); a run
//     that creates millions of distinct keys holds them all
//     (TestASourceKeepsEveryStreamItMadeForItsLifetime).
//   - Only the distributions above; no normal, exponential or Zipf draws yet
//     (TestAStreamDrawsNoNormalExponentialOrZipf).
package rng
