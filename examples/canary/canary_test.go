package canary_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// atMostOneChild is docs/writing-tests.md's property as an error, for explore.
func atMostOneChild(p *plan.Plan) error {
	c, err := cluster.New(p, world())
	if err != nil {
		return err
	}
	defer c.Close()
	c.RunFor(space.Horizon)
	var children corev1.SecretList
	if err := c.List(&children); err != nil {
		return err
	}
	if n := len(children.Items); n > 1 {
		return fmt.Errorf("parent default/app has %d child Secrets, want at most 1", n)
	}
	return nil
}

// The canary must be caught on every run: a harness that catches nothing is noticed.
func TestCanaryIsCaughtAndShrunk(t *testing.T) {
	res := explore.Run(plan.Generator(space), 100, 1, atMostOneChild)
	if !res.Caught {
		t.Fatalf("the harness must catch the canary's stale-cache bug within 100 plans (tried %d)", res.Checks)
	}
	t.Logf("caught after %d plans; minimal plan (%d lines):\n%s", res.ChecksToFirstFailure, res.Minimal.Size(), res.Minimal)
	if res.Minimal.Size() > 3 {
		t.Errorf("the shrunk plan should be a handful of lines, got %d:\n%s", res.Minimal.Size(), res.Minimal)
	}
	if err := atMostOneChild(res.Minimal); err == nil {
		t.Error("the minimal plan must reproduce the failure")
	}
}

func TestCanaryIsCaughtFromManyExplorerSeeds(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		if res := explore.Run(plan.Generator(space), 100, seed, atMostOneChild); !res.Caught {
			t.Errorf("explorer seed %d: canary not caught in 100 plans", seed)
		}
	}
}

func TestCanaryHoldsWithoutFaults(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		if err := atMostOneChild(&plan.Plan{Seed: seed}); err != nil {
			t.Fatalf("seed %d: without faults the canary works: %v", seed, err)
		}
	}
}
