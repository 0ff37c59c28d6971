package operatortest

import "github.com/ctrlsim/ctrlsim/sim/process"

// Randomness. Each run seeds the randomness that code in the process draws
// (crypto/rand, math/rand's global functions, google/uuid,
// k8s.io/apimachinery/pkg/util/rand: wallclock.SeedRandom) from its plan's
// seed, so that every run of a plan draws the same values, and every start of
// an operator's process (a restart after a crash, a stale restart) starts
// them over: a new incarnation draws what the first one drew, in the same
// order. A correct operator that drew a password and crashed before it wrote
// it draws the same password again after its restart, as the fault-free run
// drew it: its end state is then comparable with the reference's (on a real
// cluster it would draw another; which one cannot matter to a correct
// operator). What that gives up: a bug whose only symptom is that a restarted
// process draws a value other than its predecessor's (a password regenerated
// at every start), which no generic oracle could tell from a correct
// operator's fresh draw anyway.

// randomSeed is the seed of a run's randomness for a plan with this seed. A
// seed and its otherSeed share it: interleavings-agree compares two
// interleavings of one workload, not two draws of a random token. Other
// plans draw other values.
func randomSeed(seed uint64) uint64 { return seed % 2048 }

// randomAtEveryStart makes every start of the operator's processes start the
// run's randomness over.
func (w *world) randomAtEveryStart(specs []process.Spec) []process.Spec {
	for i := range specs {
		setup := specs[i].Setup
		specs[i].Setup = func(p *process.Process) error {
			if w.restartRandom != nil {
				w.restartRandom()
			}
			return setup(p)
		}
	}
	return specs
}
