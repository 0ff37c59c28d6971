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

// The sweep: systematic beside random. Taking turns with the random plans
// from the first plan, an exploration runs the targeted plans of a few workloads on the schedule
// of the explorer's seed: the test's script alone (the seed objects and the
// author's steps, none drawn, with the domain steps every plan draws as
// simply as a plan draws them: workload.Required), then the script and a user's steps on one
// seed object (workload.Lifecycle: a deletion, a change; then, after all
// their plans, workload.Recreations: a re-creation at once and after the
// deletion, a change undone), so that faults are aimed at what a user's
// change makes the operator do, and the script alone on a second schedule
// (reference.OtherSeed). Plan 0 runs each of these
// workloads with no fault first (nofault.go). plan.Sweep
// enumerates each workload's plans from its fault-free run (a crash after
// each write, a stale restart onto each object's past and for each pair of
// changes, a hold across each change, an unobserved window, an error answer
// to each write), the plans the run ranks first, and the classes are taken
// in turn (one plan of each class that has plans, then the next of each:
// no class starves the others), each class's ranked plans of every workload
// before its others, the workloads in turn. The random plans keep half the
// budget (Checks, rounded up: randomShare), whatever the sweep has; the
// sweep takes at most the rest (sweepBudget), a place of every two from
// the first (targetedPlace). Every targeted plan shares the
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

// randomShare is the budget's share the random plans keep, whatever the
// sweep has (half of Checks, rounded up; all of what the sweep does not
// fill): a bug that needs a drawn workload, a lag or a second fault is
// found by them, and a sweep of thousands of ranked plans would otherwise
// take a 100-plan budget whole (measured on large real operators: an orchestrator's panic, two of
// its status bugs and a database operator's three findings came from
// random plans that a sweep of 666 to 2,244 ranked plans left no room
// for). The sweep takes the rest (sweepBudget).
const randomShare = 2

// sweepBudget is how many of checks the sweep may take: what the random
// plans' share leaves.
func sweepBudget(checks int) int {
	return checks - (checks+randomShare-1)/randomShare
}

// sweepBase is the workload the sweep targets: the script and the domain
// steps every plan draws (workload.Required: a world no drawn plan reaches
// is no target), on the explorer seed's schedule.
func sweepBase(w *world.World) (*plan.Plan, error) {
	script, _, err := w.Opts.Workload.PlanSteps(w.Opts.Scheme, w.Opts.FaultPhase+w.Opts.HealBudget)
	if err != nil {
		return nil, err
	}
	return &plan.Plan{Seed: w.Opts.EffectiveSeed() % 4096, Steps: append(script, workload.Required(w)...)}, nil
}

// sweepWorkloads are the sweep's workloads as plans with no fault, in two
// tiers: the script alone and the script with each of workload.Lifecycle's
// (first: their plans keep the numbers they had before the re-creations
// came), then the script with each of workload.Recreations', and the
// script alone on the other schedule (reference.OtherSeed: the targets of
// two schedules' fault-free runs, not one's). The sweep takes the first
// tier's plans in turn, then the second's.
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
	// The script alone on the other schedule interleavings-agree runs
	// (reference.OtherSeed): its fault-free run reaches states the explorer
	// seed's may never reach (a second member made before a scale-down),
	// and its targets are aimed at too, after the first workloads' and the
	// re-creations' of each class and rank.
	again = append(again, &plan.Plan{Seed: reference.OtherSeed(base.Seed), Steps: base.Steps})
	return first, again, nil
}

// targetedPlans are the sweep's plans, at most sweepBudget of checks, and
// what each class has of them: the targeted plans of each workload (the
// script alone, then workload.Lifecycle's, then workload.Recreations',
// each from its own fault-free run), taken one class at a time in turn
// (plan.SweepClasses' order, the classes that have plans only), so that no
// class starves the others; within a class, the ranked plans of every
// workload first, then the rest, each rank taken from the workloads in
// turn (the first tier's, then the re-creations'), so that a budget
// smaller than the sweep aims at every class's and every workload's most
// interesting plans.
func targetedPlans(w *world.World, t *testing.T, checks int) ([]*plan.Plan, []plan.Targeted, []Coverage, error) {
	first, again, err := sweepWorkloads(w)
	if err != nil {
		return nil, nil, nil, err
	}
	bases := append(slices.Clone(first), again...)
	sweeps := make([][]plan.Targeted, len(bases))
	of, ranked := map[plan.SweepClass]int{}, map[plan.SweepClass]int{}
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
			}
		}
	}
	var cov []Coverage
	for _, c := range plan.SweepClasses {
		if of[c] > 0 {
			cov = append(cov, Coverage{Class: string(c), Of: of[c], Ranked: ranked[c]})
		}
	}
	var plans []*plan.Plan
	var targeted []plan.Targeted
	for _, a := range sweepOrder(sweeps, len(first), sweepBudget(checks)) {
		tp := sweeps[a[0]][a[1]]
		plans = append(plans, &plan.Plan{Seed: bases[a[0]].Seed, Steps: bases[a[0]].Steps, Faults: tp.Faults})
		targeted = append(targeted, tp)
	}
	return plans, targeted, cov, nil
}

// sweepOrder is the order of the sweep's plans, at most budget of them,
// each as its workload's index in sweeps and its index in that workload's
// sweep (the first workloads are sweeps[:first], the re-creations' the
// rest): the classes in turn, plan.SweepClasses' order, one plan of each
// class that has plans left, then the next of each; a class's plans its
// ranked ones of every workload first, then the rest, each rank taken from
// the first workloads in turn, then from the re-creations in turn.
func sweepOrder(sweeps [][]plan.Targeted, first, budget int) [][2]int {
	queues := map[plan.SweepClass][][2]int{} // each class's plans, in its order
	for _, c := range plan.SweepClasses {
		for _, rank := range []bool{true, false} {
			for _, tier := range [][2]int{{0, first}, {first, len(sweeps)}} {
				next := make([]int, len(sweeps)) // each workload's next plan of this class and rank
				for more := true; more; {
					more = false
					for b := tier[0]; b < tier[1]; b++ {
						for next[b] < len(sweeps[b]) && (sweeps[b][next[b]].Class != c || sweeps[b][next[b]].Ranked != rank) {
							next[b]++
						}
						if next[b] == len(sweeps[b]) {
							continue
						}
						queues[c] = append(queues[c], [2]int{b, next[b]})
						next[b]++
						more = true
					}
				}
			}
		}
	}
	var out [][2]int
	for i := 0; len(out) < budget; i++ {
		more := false
		for _, c := range plan.SweepClasses {
			if i < len(queues[c]) && len(out) < budget {
				out = append(out, queues[c][i])
				more = true
			}
		}
		if !more {
			break
		}
	}
	return out
}

// byRandom is Finding.By of a random plan's finding.
const byRandom = "a random plan"

// byTargeted is Finding.By of a targeted plan's finding: its class, and
// whether ranked.
func byTargeted(tp plan.Targeted) string {
	if tp.Ranked {
		return fmt.Sprintf("a targeted plan (ranked %s)", tp.Class)
	}
	return fmt.Sprintf("a targeted plan (%s)", tp.Class)
}

// NoSweep, a test's hook, leaves the sweep out (and plan 0, its workloads'
// fault-free runs: nofault.go): the tests of the random
// pass (its workers, shards, shrinking, progress lines) need a bug the
// random plans find.
var NoSweep bool

// The budget's places: the targeted plans and the random ones take turns
// from the first plan, a targeted plan first (place 1, 3, 5, ...: the
// sweep's most interesting plan first) and a random one after it (place
// 2, 4, 6, ...), until the sweep's plans are all placed; the random plans
// take every place after that. So in any prefix of the budget about half
// the plans are random (the sweep takes at most half: sweepBudget), and a
// sweep of thousands of ranked plans never keeps the random plans waiting.
// A place is a function of the plan index and the sweep's size alone: the
// same Options give the same sequence.

// targetedPlace is the place of the sweep's i-th plan (from 1).
func targetedPlace(i int) int { return 2*i - 1 }

// randomPlace is the place of the random pass's k-th plan (from 1), where
// the sweep has swept plans.
func randomPlace(k, swept int) int {
	if k <= swept {
		return 2 * k
	}
	return swept + k
}

// placeOf is the place of the random pass's k-th plan in w's exploration.
func placeOf(w *world.World, k int) int { return randomPlace(k, explorationOf(w).swept) }

// sweeper runs the sweep's targeted plans (the ones this shard owns) at
// their places, as the random pass reaches them (upTo), until one violates
// a property whose signature is not in seen (with KeepGoing: every one,
// each new signature a finding, handed to report as it is found: a
// targeted plan is not shrunk, so it is whole then; report says whether it
// is a finding of its own: package rootcause).
type sweeper struct {
	w           *world.World
	t           *testing.T
	plans       []*plan.Plan
	targeted    []plan.Targeted
	cov         []Coverage
	seen        map[string]bool
	report      func(Finding) (bool, error)
	add         func(Finding) bool // a finding of its own, in the order found; true once the search has maxFindings
	next        int                // the index of the next plan to run
	ran         int                // how many of them this shard ran
	found       []Finding
	done        bool // a finding ended the search (without KeepGoing, or at maxFindings)
	start       time.Time
	lastLog     time.Time
	judgedAhead int // the plans ahead judged before the workers (recalled at their places, not logged again)
}

// newSweeper makes the sweep's plans (none with NoSweep) and says which
// class finds no target inside the fault phase (phase.go).
func newSweeper(w *world.World, t *testing.T, seen map[string]bool, report func(Finding) (bool, error), add func(Finding) bool) (*sweeper, error) {
	s := &sweeper{w: w, t: t, seen: seen, report: report, add: add, start: time.Now()}
	s.lastLog = s.start
	if NoSweep {
		return s, nil
	}
	var err error
	if s.plans, s.targeted, s.cov, err = targetedPlans(w, t, w.Opts.Checks); err != nil {
		return nil, fmt.Errorf("the world could not run the sweep's workload (a bug of the test's setup, not a finding): %w", err)
	}
	if explorationOf(w).unaimed, err = unaimedLine(w, t, s.cov); err != nil { // phase.go
		return nil, fmt.Errorf("the world could not run the sweep's workload (a bug of the test's setup, not a finding): %w", err)
	}
	return s, nil
}

// upTo runs the targeted plans whose places are at most place, in order
// (all of them: place is the budget), unless a finding ended the search.
func (s *sweeper) upTo(place int) error {
	if s == nil {
		return nil
	}
	for !s.done && s.next < len(s.plans) && targetedPlace(s.next+1) <= place {
		i := s.next
		s.next++
		if err := s.run(i); err != nil {
			return err
		}
	}
	return nil
}

// ahead judges the sweep's plans from the next one on, before their
// places come (their runs are recalled when upTo reaches them), until one
// shows a signature not in seen, and returns how many random plans come
// before that plan's place (-1: none shows one). Worker processes judge
// the random places before the sweep's plans run at theirs: without
// KeepGoing they need judge only those before the first targeted finding,
// which ends the search at its place.
func (s *sweeper) ahead() (int, error) {
	if s == nil {
		return -1, nil
	}
	for i := s.next; i < len(s.plans); i++ {
		place := targetedPlace(i + 1)
		if !s.w.Opts.Shard.Owns(place) {
			continue
		}
		s.judgedAhead = i + 1
		if time.Since(s.lastLog) >= ProgressEvery {
			s.lastLog = time.Now()
			LogProgress(s.t, "operatortest: %d of %d targeted plans judged in %s, before the workers judge the random plans", i, len(s.plans), time.Since(s.start).Round(time.Millisecond))
		}
		r, err := s.judge(i)
		if err != nil {
			return 0, err
		}
		CountCut(s.w, place, world.CutNote(r.Verdicts)) // cut.go (a holding run is recalled without its note)
		if len(unseen(signatures(s.w, r.Violated()), s.seen)) > 0 {
			return i, nil // the random plans at places 2, 4, ..., 2i come before place 2i+1
		}
	}
	return -1, nil
}

// judge runs the sweep's i-th plan (from 0), recalled if judged before.
func (s *sweeper) judge(i int) (*world.RunResult, error) {
	w := s.w
	defer func() { w.Phase = "" }()
	w.Phase = world.PhaseFind
	long := longOf(w) // longrun.go
	long.start(fmt.Sprintf("targeted plan %d (%s)", targetedPlace(i+1), s.targeted[i].Class), "judging it against its fault-free runs", s.plans[i])
	r, err := reference.RunRecalled(w, s.t, s.plans[i])
	long.done()
	if err != nil {
		var we *world.WorldError
		if errors.As(err, &we) {
			err = we.Err
		}
		return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
	}
	return r, nil
}

// run judges the sweep's i-th plan (from 0), at its place.
func (s *sweeper) run(i int) error {
	w, t, p := s.w, s.t, s.plans[i]
	place := targetedPlace(i + 1)
	if !w.Opts.Shard.Owns(place) {
		return nil
	}
	c := &s.cov[slices.IndexFunc(s.cov, func(c Coverage) bool { return c.Class == string(s.targeted[i].Class) })]
	c.Ran++
	if s.targeted[i].Ranked {
		c.RankedRan++
	}
	s.ran++
	if i >= s.judgedAhead && time.Since(s.lastLog) >= ProgressEvery {
		s.lastLog = time.Now()
		LogProgress(t, "operatortest: %d of %d targeted plans judged in %s (%s)", i, len(s.plans), time.Since(s.start).Round(time.Millisecond), CoverageLine(s.cov))
	}
	r, err := s.judge(i)
	if err != nil {
		return err
	}
	CountCut(w, place, world.CutNote(r.Verdicts)) // cut.go
	vs := r.Violated()
	if len(vs) == 0 {
		return nil
	}
	fresh := unseen(signatures(w, vs), s.seen)
	if len(fresh) == 0 {
		return nil // a known violation, or one the fault-free runs show (nofault.go)
	}
	for _, sig := range fresh {
		s.seen[sig] = true // one plan, one fault: one root cause
	}
	f := headline(w, Finding{By: byTargeted(s.targeted[i]), Signature: fresh[0], Also: fresh[1:], Minimal: p, Violations: vs, Hash: r.Hash, steps: r.Steps,
		FirstFailure: place, TimeToFind: time.Since(s.start)})
	mine, err := s.report(f)
	if err != nil || !mine {
		return err
	}
	s.found = append(s.found, f)
	full := s.add(f)
	s.done = !w.Opts.KeepGoing || full
	return nil
}
