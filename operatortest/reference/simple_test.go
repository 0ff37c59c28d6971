package reference_test

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/internal/long"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// simplePlans is how many plans TestTheSimpleJudgeAgreesWithTheLazyOne
// draws in all (spread over the test operators); -short draws a tenth.
var simplePlans = flag.Int("simple.plans", long.Pick(300, 1000), "plans the simple judge's property test draws, over all its operators (300; 1,000 in make long)")

// simpleJudge judges p as the table of excuses (verdict.Excuses) states it,
// with none of reference.Run's savings: every reference the table names is
// run for every plan, in no order (no cache outlives the plan: w's is
// dropped first), and each oracle is asked once, of every candidate at once.
// The comparing oracles are monotone in their references (a reference more
// is one more candidate end state, one more bound on counts, one more
// source of learned fields: what holds against a set holds against a larger
// one), which is what lets the lazy judge ask one at a time and stop; here
// nothing stops. The rules:
//
//   - the base: the plan's own fault-free run and the other schedule's;
//   - random-draws: the run with other draws is a reference of converges,
//     update-summaries and interleavings-agree (its differing fields free);
//   - cluster-backoff: what the cluster's controllers hold in back-off at
//     the faulted run's end (converges) or at either fault-free run's
//     (interleavings-agree) is not compared: its owned objects, its status
//     and its owners';
//   - late-start: every late start is a candidate of converges;
//   - same-downtime, same-blind-time, stop-after-cut: when an operator was
//     down or blind, a converges or update-summaries verdict the above leave
//     violated holds by the first stop (before the cut reconciles, then
//     after) whose fault-free run of the same downtime makes it hold, unless
//     the same restarts with no time down make it hold too (same-restarts);
//   - shared-error, error-met: no-error-at-rest against the base, withdrawn
//     when the fault-free run with no generated workload ends in the error
//     too (quiet-workload).
//
// Every other verdict (the kernel's, terminates, writes-at-rest, no-orphans,
// the test's properties) is the faulted run's own, judged against the base.
func simpleJudge(t *testing.T, w *world.World, p *plan.Plan) ([]check.Verdict, error) {
	w.Refs = nil
	base, err := reference.References(w, t, p)
	if err != nil {
		return nil, err
	}
	draws, err := reference.DrawsReference(w, t, p.Seed, p.Steps)
	if err != nil {
		return nil, err
	}
	var lates []*verdict.Reference
	for i, at := range reference.LateStarts(p) {
		l, err := reference.LateStart(w, t, p, at, i == 0)
		if err != nil {
			return nil, err
		}
		lates = append(lates, l)
	}
	quiet, err := reference.Reference(w, t, p.Seed, world.ScriptSteps(p.Steps))
	if err != nil {
		return nil, err
	}
	w.JudgeCut = ""
	snap, r, err := reference.RunOnce(w, t, p, base, 0)
	if err != nil {
		return nil, err
	}
	withDraws := append(slices.Clip(base), draws)
	judge := func(v check.Verdict, extra ...*verdict.Reference) check.Verdict {
		refs := append(slices.Clip(withDraws), extra...)
		if v.Property == world.Converges {
			return verdict.Converges(w, append(refs, lates...), snap, v.At)
		}
		return verdict.UpdateSummaries(w, refs, snap, v.At)
	}
	var out []check.Verdict
	for _, v := range r.Verdicts {
		switch v.Property {
		case world.Converges, world.UpdateSummaries:
			nv := judge(v)
			if !nv.Holds {
				for _, after := range []bool{false, true} {
					down, err := reference.DowntimeReference(w, t, p, r, false, after)
					if err != nil {
						return nil, err
					}
					if down == nil || !judge(v, down).Holds {
						continue
					}
					same, err := reference.DowntimeReference(w, t, p, r, true, after)
					if err != nil {
						return nil, err
					}
					if !judge(v, same).Holds {
						nv = judge(v, down)
					}
					break
				}
			}
			v = nv
		case world.NoErrorAtRest:
			if v.Holds && reference.ErrorWithoutWorkload(snap, quiet.Snap) != "" {
				v.Holds = false
			}
		}
		out = append(out, v)
	}
	free, note, err := reference.RandomDerived(w, t, p, base[0])
	if err != nil {
		return nil, err
	}
	out = append(out, reference.Agree(w, base, snap, free, note))
	return w.Opts.Enabled(out), nil
}

// holdsBy is each verdict's property and whether it holds, in a stable order.
func holdsBy(vs []check.Verdict) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s=%v", v.Property, v.Holds))
	}
	slices.Sort(out)
	return out
}

// The lazy judge (reference.Run: references run only while a verdict would
// fire, in the table's order, cached across plans and recalled) gives every
// plan of the test operators the verdicts the simple judge gives (after
// raft's quorum/quick_test.go, which checks its fast majority against a
// deliberately simple one): the savings change what is run, never what
// holds. The plans are the explorer's: drawn from each operator's space,
// aimed at its fault-free run's writes and changes.
func TestTheSimpleJudgeAgreesWithTheLazyOne(t *testing.T) {
	operators := []struct {
		name string
		o    func() world.Options
	}{
		{"restart between two writes", func() world.Options { return optest.AppOptions(optest.TrustsItsMark) }},
		{"known bugs", func() world.Options { return optest.BugOptions(&optest.KnownBugs{TwoWrites: true}, false) }},
		{"finalizer", optest.FinalizerOptions},
		{"publish, giving up", func() world.Options { return optest.PublishOptions(true) }},
		{"ticker", func() world.Options { return optest.TickerOptions(false) }},
		{"gadget", optest.GadgetOptions},
	}
	n := *simplePlans
	if testing.Short() {
		n /= 10
	}
	per := max((n+len(operators)-1)/len(operators), 1) // n at the least, over all
	judged, disagreed, violated := 0, 0, 0
	excused := map[string]int{} // the table's cases the lazy judge's verdicts name
	for _, op := range operators {
		t.Run(op.name, func(t *testing.T) {
			o := op.o()
			lazy, simple := optest.TestWorld(t, o), optest.TestWorld(t, o)
			sp := lazy.Space
			sp.Targets = reference.TargetsOfRun(lazy, t)
			sp.Writes = reference.Writes(lazy, t)
			gen := plan.Generator(sp)
			for i := range per {
				p := gen.Example(i)
				done := world.Simulating()
				got, err := reference.Run(lazy, t, p)
				if err != nil {
					done()
					t.Fatalf("plan %d: the lazy judge: %v\n%s", i, err, p)
				}
				if world.CutNote(got.Verdicts) != "" {
					done()
					continue // not judged (cut.go)
				}
				want, err := simpleJudge(t, simple, p)
				done()
				if err != nil {
					t.Fatalf("plan %d: the simple judge: %v\n%s", i, err, p)
				}
				judged++
				if len(check.Violated(got.Verdicts)) > 0 {
					violated++
				}
				for _, v := range got.Verdicts {
					for _, e := range v.Excused {
						excused[e]++
					}
				}
				if g, s := holdsBy(got.Verdicts), holdsBy(want); !slices.Equal(g, s) {
					disagreed++
					t.Errorf("plan %d: the lazy judge says %v, the simple one %v\n%s\nlazy: %v\nsimple: %v", i, g, s, p, check.Violated(got.Verdicts), check.Violated(want))
				}
			}
		})
	}
	var names []string
	for e, k := range excused { // lint:order-independent sorted below
		names = append(names, fmt.Sprintf("%s %d", e, k))
	}
	slices.Sort(names)
	t.Logf("%d plans judged by both (%d disagreed, %d violated something); the excuses their verdicts name: %v", judged, disagreed, violated, names)
	switch {
	case judged < n*9/10:
		t.Errorf("%d plans judged of %d drawn: too many cut to say anything", judged, n)
	case !testing.Short() && (violated == 0 || len(excused) < 3):
		// (At a tenth of the plans, -short, the test operators' plans reach
		// an excuse too rarely to require one: 96 plans named none.)
		t.Errorf("%d plans violated something and %d of the table's cases were named: the plans do not reach the rules the two judges state", violated, len(excused))
	}
}
