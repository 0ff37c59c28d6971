package operatortest

// randomSeed is the seed of the randomness that the operator's code draws
// (crypto/rand, math/rand's global functions, google/uuid,
// k8s.io/apimachinery/pkg/util/rand: wallclock.SeedRandom) in a run of a plan
// with this seed. Every run of a plan draws the same values. A seed and its
// otherSeed share it: interleavings-agree compares two interleavings of the
// same workload, not two draws of a random token; other plans draw other
// values, and the faulted run of a plan draws what its fault-free reference
// drew, in the same order, until the faults change what the operator does.
func randomSeed(seed uint64) uint64 { return seed % 2048 }
