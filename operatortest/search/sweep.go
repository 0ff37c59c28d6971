package search

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/workload"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The sweep: systematic before random. Before rapid draws its random plans,
// an exploration runs the targeted plans of a few workloads on the schedule
// of the explorer's seed: the test's script alone (the seed objects and the
// author's steps, none drawn), then the script and a user's steps on one
// seed object (workload.Lifecycle: a deletion, a change; then, after all
// their plans, workload.Recreations: a re-creation at once and after the
// deletion, a change undone), so that faults are aimed at what a user's
// change makes the operator do. Plan 0 runs each of these
// workloads with no fault first (nofault.go). plan.Sweep
// enumerates each workload's plans from its fault-free run (a crash after
// each write, a stale restart onto each object's past and for each pair of
// changes, a hold across each change, an error answer to each write), the
// classes interleaved and the plans the run ranks first, and the
// workloads' plans are taken in turn, every workload's ranked plans before
// any other. They take half the budget (Checks), or what the ranked plans
// need when they are more (sweepBudget); the random plans the rest. Every targeted plan shares the
// fault-free run of its workload (its references are recalled), so a sweep
// costs about one run a plan. A targeted plan is the workload plus one fault: it is not shrunk
// (there is nothing to take away but its fault); Result.Targeted says how
// many of each class ran, of how many.

// Coverage is how many of one class of targeted plans an exploration ran.
type Coverage struct {
	Class string // "crashes after a write", "stale pairs", ... (plan.SweepClass)
	Ran   int    // how many of them were judged
	Of    int    // how many the workload's fault-free run gave
	// Ranked is how many of Of the fault-free run ranks (plan.Targeted's
	// Ranked: they come first), RankedRan how many of those were judged.
	Ranked, RankedRan int
}

func (c Coverage) String() string {
	return fmt.Sprintf("%s %s of %s", c.Class, thousands(c.Ran), thousands(c.Of))
}

// thousands writes n with a comma between each group of three digits
// (1,700), as the pass line's counts read.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// CoverageLine is cs as one clause of a log line ("targeted plans: ranked
// plans covered 40 of 40, then crashes after a write 31 of 31, stale pairs
// 48 of 1,212": the ranked plans of every class first, then each class's
// whole, the ranked among them); "" when there is none.
func CoverageLine(cs []Coverage) string {
	if len(cs) == 0 {
		return ""
	}
	parts := make([]string, len(cs))
	ranked, rankedRan := 0, 0
	for i, c := range cs {
		parts[i] = c.String()
		ranked += c.Ranked
		rankedRan += c.RankedRan
	}
	line := "targeted plans: "
	if ranked > 0 {
		line += fmt.Sprintf("ranked plans covered %s of %s, then ", thousands(rankedRan), thousands(ranked))
	}
	return line + strings.Join(parts, ", ")
}

// clause is s as a clause after a comma ("", when s is).
func clause(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

// sweepShare is the share of the budget the sweep takes at the least
// (half): the random plans keep the rest (a bug that needs a drawn
// workload or a lag is found by them), unless the ranked plans need more:
// then the sweep takes what they need, the budget at the most
// (sweepBudget).
const sweepShare = 2

// sweepBudget is how many of checks the sweep may take when its
// workloads' fault-free runs rank ranked plans.
func sweepBudget(checks, ranked int) int {
	return max(checks/sweepShare, min(ranked, checks))
}

// sweepBase is the workload the sweep targets: the script alone, on the
// explorer seed's schedule.
func sweepBase(w *world.World) (*plan.Plan, error) {
	script, _, err := w.Opts.Workload.PlanSteps(w.Opts.Scheme, w.Opts.FaultPhase+w.Opts.HealBudget)
	if err != nil {
		return nil, err
	}
	return &plan.Plan{Seed: w.Opts.EffectiveSeed() % 4096, Steps: script}, nil
}

// sweepWorkloads are the sweep's workloads as plans with no fault, in two
// tiers: the script alone and the script with each of workload.Lifecycle's
// (first: their plans keep the numbers they had before the re-creations
// came), then the script with each of workload.Recreations'. The sweep
// takes the first tier's plans in turn, then the second's.
func sweepWorkloads(w *world.World) (first, again []*plan.Plan, err error) {
	base, err := sweepBase(w)
	if err != nil {
		return nil, nil, err
	}
	steps, err := workload.Lifecycle(w)
	if err != nil {
		return nil, nil, err
	}
	more, err := workload.Recreations(w)
	if err != nil {
		return nil, nil, err
	}
	with := func(s []plan.Step) *plan.Plan {
		return &plan.Plan{Seed: base.Seed, Steps: append(slices.Clone(base.Steps), s...)}
	}
	first = []*plan.Plan{base}
	for _, s := range steps {
		first = append(first, with(s))
	}
	for _, s := range more {
		again = append(again, with(s))
	}
	return first, again, nil
}

// targetedPlans are the sweep's plans, at most sweepBudget of checks, and
// what each class has of them: the targeted plans of each workload (the
// script alone, then workload.Lifecycle's, each from its own fault-free
// run), the ranked ones of every workload first, then the rest, each taken
// from the workloads in turn so that a budget smaller than the sweep aims
// at every workload's most interesting plans.
func targetedPlans(w *world.World, t *testing.T, checks int) ([]*plan.Plan, []plan.Targeted, []Coverage, error) {
	first, again, err := sweepWorkloads(w)
	if err != nil {
		return nil, nil, nil, err
	}
	bases := append(slices.Clone(first), again...)
	sweeps := make([][]plan.Targeted, len(bases))
	of, ranked := map[plan.SweepClass]int{}, map[plan.SweepClass]int{}
	all := 0
	for b, p := range bases {
		ref, err := reference.Reference(w, t, p.Seed, p.Steps)
		if err != nil {
			return nil, nil, nil, err
		}
		sweeps[b] = plan.Sweep(w.Space, ref.Targets, ref.Writes)
		for _, tp := range sweeps[b] {
			of[tp.Class]++
			if tp.Ranked {
				ranked[tp.Class]++
				all++
			}
		}
	}
	var cov []Coverage
	for _, c := range plan.SweepClasses {
		if of[c] > 0 {
			cov = append(cov, Coverage{Class: string(c), Of: of[c], Ranked: ranked[c]})
		}
	}
	budget := sweepBudget(checks, all)
	var plans []*plan.Plan
	var targeted []plan.Targeted
	for _, rank := range []bool{true, false} {
		for _, tier := range [][2]int{{0, len(first)}, {len(first), len(bases)}} {
			next := make([]int, len(bases)) // each workload's next plan of this rank
			for len(plans) < budget {
				more := false
				for b := tier[0]; b < tier[1] && len(plans) < budget; b++ {
					for next[b] < len(sweeps[b]) && sweeps[b][next[b]].Ranked != rank {
						next[b]++
					}
					if next[b] == len(sweeps[b]) {
						continue
					}
					tp := sweeps[b][next[b]]
					next[b]++
					plans = append(plans, &plan.Plan{Seed: bases[b].Seed, Steps: bases[b].Steps, Faults: tp.Faults})
					targeted = append(targeted, tp)
					more = true
				}
				if !more {
					break
				}
			}
		}
	}
	return plans, targeted, cov, nil
}

// NoSweep, a test's hook, leaves the sweep out (and plan 0, its workloads'
// fault-free runs: nofault.go): the tests of the random
// pass (its workers, shards, shrinking, progress lines) need a bug the
// random plans find.
var NoSweep bool

// sweep runs the targeted plans (the ones this shard owns) until one
// violates a property whose signature is not in seen (with KeepGoing: every
// one, each new signature a finding, handed to report as it is found: a
// targeted plan is not shrunk, so it is whole then; report says whether it
// is a finding of its own: package rootcause). It returns the
// findings, how many places the sweep took (its plans, whichever shard ran
// them: the random plans are numbered after them), how many of them this
// shard ran, and its coverage.
func sweep(w *world.World, t *testing.T, seen map[string]bool, report func(Finding) (bool, error)) (found []Finding, places, ran int, cov []Coverage, err error) {
	if NoSweep {
		return nil, 0, 0, nil, nil
	}
	start := time.Now()
	plans, targeted, cov, err := targetedPlans(w, t, w.Opts.Checks)
	if err != nil {
		return nil, 0, 0, nil, fmt.Errorf("the world could not run the sweep's workload (a bug of the test's setup, not a finding): %w", err)
	}
	at := map[string]int{}
	for i, c := range cov {
		at[c.Class] = i
	}
	defer func() { w.Phase = "" }()
	long := longOf(w) // longrun.go
	lastLog := start
	for i, p := range plans {
		place := i + 1
		if !w.Opts.Shard.Owns(place) {
			continue
		}
		c := &cov[at[string(targeted[i].Class)]]
		c.Ran++
		if targeted[i].Ranked {
			c.RankedRan++
		}
		ran++
		if time.Since(lastLog) >= ProgressEvery {
			lastLog = time.Now()
			LogProgress(t, "operatortest: %d of %d targeted plans judged in %s (%s)", i, len(plans), time.Since(start).Round(time.Millisecond), CoverageLine(cov))
		}
		w.Phase = world.PhaseFind
		long.start(fmt.Sprintf("targeted plan %d (%s)", place, targeted[i].Class), "judging it against its fault-free runs", p)
		r, err := reference.RunRecalled(w, t, p)
		long.done()
		if err != nil {
			var we *world.WorldError
			if errors.As(err, &we) {
				err = we.Err
			}
			return nil, 0, 0, nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
		}
		CountCut(w, place, world.CutNote(r.Verdicts)) // cut.go
		vs := r.Violated()
		if len(vs) == 0 {
			continue
		}
		fresh := unseen(signatures(w, vs), seen)
		if len(fresh) == 0 {
			continue // a known violation, or one the fault-free runs show (nofault.go)
		}
		for _, sig := range fresh {
			seen[sig] = true // one plan, one fault: one root cause
		}
		f := headline(w, Finding{Signature: fresh[0], Also: fresh[1:], Minimal: p, Violations: vs, Hash: r.Hash, steps: r.Steps,
			FirstFailure: place, TimeToFind: time.Since(start)})
		mine, err := report(f)
		if err != nil {
			return nil, 0, 0, nil, err
		}
		if !mine {
			continue
		}
		found = append(found, f)
		if !w.Opts.KeepGoing || len(found) >= maxFindings {
			return found, len(plans), ran, cov, nil
		}
	}
	return found, len(plans), ran, cov, nil
}
