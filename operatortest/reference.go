package operatortest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Reference runs: the fault-free run of a plan's seed and workload. The
// converges oracle compares a run's end state with its reference's; the
// generator aims timed faults at the reference's reads and writes (Targets);
// interleavings-agree compares the references of two seeds.

// refRun is the fault-free run of one seed and workload.
type refRun struct {
	snap    *snapshot
	targets []time.Duration
}

// maxRefs bounds the references kept: exploring draws a new seed for most
// plans, shrinking reuses a few.
const maxRefs = 64

// reference runs (or recalls) the fault-free run of seed and steps.
func (w *world) reference(t *testing.T, seed uint64, steps []plan.Step) (*refRun, error) {
	p := &plan.Plan{Seed: seed, Steps: steps}
	key := p.String()
	if r, ok := w.refs[key]; ok {
		return r, nil
	}
	snap, res, err := w.runOnce(t, p, nil, true)
	if err != nil {
		return nil, err
	}
	r := &refRun{snap: snap, targets: targetsOf(res.steps, w.o.FaultPhase)}
	if w.refs == nil || len(w.refs) >= maxRefs {
		w.refs = map[string]*refRun{}
	}
	w.refs[key] = r
	return r, nil
}

// targetsOf are the instants of the fault phase at which some process wrote,
// or an operator read live: where a crash, a hold or a stale restart makes a
// difference (Sieve's intermediate, unobserved and stale states).
func targetsOf(steps []trace.Step, faultPhase time.Duration) []time.Duration {
	var out []time.Duration
	for _, s := range steps {
		if s.At > faultPhase {
			break
		}
		switch s.Op {
		case "create", "update", "patch", "delete", "deletecollection":
		case "get", "list":
			if s.Process == "admin" {
				continue
			}
		default:
			continue
		}
		if strings.HasPrefix(s.Object, "Lease ") {
			continue // leader election's renewals, every RetryPeriod: not the operator's work
		}
		if n := len(out); n == 0 || out[n-1] != s.At {
			out = append(out, s.At)
		}
	}
	return out
}

// targets is the Space's Targets: the reference run's instants.
func (w *world) targets(t *testing.T) func(p *plan.Plan) []time.Duration {
	return func(p *plan.Plan) []time.Duration {
		r, err := w.reference(t, p.Seed, p.Steps)
		if err != nil {
			return nil // the run of the plan itself reports the error
		}
		return r.targets
	}
}

// otherSeed is the seed of the second interleaving interleavings-agree runs:
// another of the generator's 4096 schedules.
func otherSeed(seed uint64) uint64 { return (seed + 2048) % 4096 }

// interleavingsAgree is Kamera's oracle: the fault-free runs of one workload
// under two schedules end in the same state.
func (w *world) interleavingsAgree(t *testing.T, p *plan.Plan, ref *refRun) (check.Verdict, error) {
	other, err := w.reference(t, otherSeed(p.Seed), p.Steps)
	if err != nil {
		return check.Verdict{}, err
	}
	if err := ref.snap.diffAs(other.snap, fmt.Sprintf("the fault-free run with seed %d", p.Seed),
		fmt.Sprintf("the fault-free run with seed %d", otherSeed(p.Seed))); err != nil {
		return check.Verdict{Property: InterleavingsAgree, Detail: err.Error()}, nil
	}
	return check.Verdict{Property: InterleavingsAgree, Holds: true}, nil
}
