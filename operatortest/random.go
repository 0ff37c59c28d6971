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

// randomSeed is the seed of a run's environment for a plan with this seed:
// what the world outside the operator's schedule draws at random. That is
// the randomness code in the process draws (above), the apiserver's
// suffixes of generated names (cluster.Options.NamesSeed) and the kubelet's
// durations of each pod: its binding, its start and how long its
// containers run (kubeworld.Delays.Seed). A seed and its otherSeed share
// it: interleavings-agree compares two interleavings of one workload in one
// environment, not two environments (a Job that ran 7 s in one and 29 s in
// the other ends differently whatever the operator does). What the seed
// keeps for the schedule alone is the interleaving: which task runs next,
// every API call's latency, every watch event's delivery, when a CRD is
// Established, when a replica retries for its leader Lease. Other plans draw
// other environments.
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
