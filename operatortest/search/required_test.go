package search

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// The sweep's workloads, and so plan 0, start from what every drawn plan
// starts from: each domain step with Min 1 or more, as simply as a plan
// draws it (its earliest time, its first values); a step no plan must draw
// is not there (bd/blocked-workers' apply-broken, Min 1, was missing from
// plan 0 and from every targeted plan's world).
func TestTheSweepsWorkloadsHoldTheDomainStepsEveryPlanDraws(t *testing.T) {
	o := twoSeedOptions()
	do := func(context.Context, world.StepEnv, world.Args) error { return nil }
	o.Workload.Domain = []world.DomainStep{
		{Name: "apply-broken", Params: []world.Param{{Key: "bundle", Values: []string{"broken", "v1"}}}, From: 2 * time.Second, Within: 10 * time.Second, Min: 1, Max: 1, Do: do},
		{Name: "revoke", After: "apply-broken", Within: time.Second, Min: 1, Max: 1, Do: do},
		{Name: "upgrade", Params: []world.Param{{Key: "bundle", Values: []string{"v2"}}}, Do: do},
	}
	w, err := NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	first, again, err := sweepWorkloads(w)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(first, again...) {
		text := p.String()
		if !strings.Contains(text, "at 2s apply-broken bundle=broken\n") || !strings.Contains(text, "at 2s revoke\n") || strings.Contains(text, "upgrade") {
			t.Fatalf("a sweep workload:\n%s\nwant apply-broken bundle=broken and revoke at 2s, and no upgrade", text)
		}
	}
}
