package rootcause

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/rundiff"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Finding is what the rule needs of a finding: its signature (the property
// first, "converges Frontend,Service"), the signatures listed under it, and
// its minimal plan.
type Finding struct {
	Signature string
	Also      []string
	Plan      *plan.Plan
}

// Causes are an exploration's findings that are not listed under another,
// each with its first wrong write (nil: none), and the signatures listed
// under each since it was made; saved are the root causes found before,
// the saved plans that still violate, whose first wrong writes are found
// when a new finding is compared with them.
type Causes struct {
	heads []head
	also  map[string][]string
	saved []Finding
}

// head is a root cause's signature and its first wrong write.
type head struct {
	sig   string
	wrong *Write
}

// New are the root causes of an exploration whose saved plans still
// violate as saved says (one Finding for each of their signatures).
func New(saved []Finding) *Causes { return &Causes{saved: saved} }

// Write is where a run first goes wrong: a write of Object by Process in
// Reconcile (its controller and the object reconciled), one of three: a
// departure from the run it is judged against (Fields: the fields its
// content differs in there, as rundiff names them), a write at rest
// (AtRest), or the hot loop's step (Loop); said as a line says it.
type Write struct {
	Process, Reconcile, Object string
	Fields                     []string
	AtRest, Loop               bool
	Said                       string
}

// Same says whether w and o are the same wrong write (the rule): one
// reconcile going wrong at the same object, or in the same fields of
// another, or in one hot loop.
func (w *Write) Same(o *Write) bool {
	if w.Process != o.Process || w.Reconcile != o.Reconcile {
		return false
	}
	switch {
	case w.Loop || o.Loop:
		return w.Loop && o.Loop
	case w.Object == o.Object:
		return true
	default:
		return !w.AtRest && !o.AtRest && slices.Equal(w.Fields, o.Fields)
	}
}

// property is a signature's property: its first word.
func property(sig string) string {
	name, _, _ := strings.Cut(sig, " ")
	return name
}

// comparable says whether a finding of signature sig may be listed under
// a head of signature hs at all: the test's own properties only under
// their own (an author's property is never hidden under a generic
// oracle's finding, nor under another of the author's).
func comparable(w *world.World, sig, hs string) bool {
	own := func(s string) bool {
		return slices.ContainsFunc(w.Opts.Properties, func(p world.Property) bool { return p.Name == property(s) })
	}
	return !own(sig) && !own(hs) || property(sig) == property(hs)
}

// Under is the signature of the earlier finding f is one root cause with
// ("" if none: f is added as a root cause of its own), and where f's run
// first went wrong.
func (c *Causes) Under(w *world.World, t *testing.T, f Finding) (string, *Write, error) {
	ww, err := First(w, t, f.Plan, f.Signature)
	if err != nil {
		return "", nil, err
	}
	if ww != nil {
		for _, g := range c.saved {
			sw, err := First(w, t, g.Plan, g.Signature)
			if err != nil {
				return "", nil, err
			}
			c.heads = append(c.heads, head{sig: g.Signature, wrong: sw})
		}
		c.saved = nil
		for _, h := range c.heads {
			if h.wrong != nil && comparable(w, f.Signature, h.sig) && h.wrong.Same(ww) {
				if c.also == nil {
					c.also = map[string][]string{}
				}
				c.also[h.sig] = append(c.also[h.sig], append([]string{f.Signature}, f.Also...)...)
				return h.sig, ww, nil
			}
		}
	}
	c.heads = append(c.heads, head{sig: f.Signature, wrong: ww})
	return "", ww, nil
}

// Also are the signatures listed under the finding of signature sig.
func (c *Causes) Also(sig string) []string { return c.also[sig] }

// First is where the run of p, a minimal plan that shows signature, first
// goes wrong (the rule), or nil: nowhere, or a run cut at the work bound.
func First(w *world.World, t *testing.T, p *plan.Plan, signature string) (*Write, error) {
	phase := w.Phase
	defer func() { w.Phase = phase }()
	w.Phase = world.PhaseFind
	against := &plan.Plan{Seed: p.Seed, Steps: p.Steps}
	name := property(signature)
	switch {
	case name == cluster.HotLoopProperty:
		return loopOf(w, t, p)
	case len(p.Faults) == 0 && name == world.InterleavingsAgree:
		p = &plan.Plan{Seed: reference.OtherSeed(p.Seed), Steps: p.Steps}
	case len(p.Faults) == 0 && name == world.Converges:
		// judged against its own fault-free run: itself
	case len(p.Faults) == 0 && name == world.WritesAtRest:
		against = nil
	case len(p.Faults) == 0:
		return nil, nil
	}
	var ref *verdict.Snapshot
	var refRun *world.RunResult
	if against != nil {
		var err error
		if ref, refRun, err = reference.RunOnce(w, t, against, nil, 0); err != nil {
			return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
		}
		if world.CutNote(refRun.Verdicts) != "" {
			return nil, nil
		}
	}
	for range sameRuns {
		snap, run, err := reference.RunOnce(w, t, p, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
		}
		if world.CutNote(run.Verdicts) != "" {
			return nil, nil
		}
		if against == nil {
			return firstWriteAtRest(w, run), nil
		}
		kinds := verdict.Judged(w, ref, snap)
		d := rundiff.Diverge(w, operatorsOnly(w, refRun, kinds), operatorsOnly(w, run, kinds), true, nil)
		if d != nil && d.Reconcile != "" {
			return &Write{Process: d.Process, Reconcile: d.Reconcile, Object: d.Object, Fields: d.Fields, Said: d.String()}, nil
		}
	}
	return nil, nil
}

// sameRuns bounds the runs of a plan made until one departs from the run
// it is judged against. A finding whose run departs from its reference
// only when the operator draws differently from one run to the next (it
// ranges over a Go map: examples/patterns/mapports, whose converges with
// no fault is judged against itself) departs in a run drawn otherwise than
// the reference, and nowhere in one drawn alike; of eight runs, each as
// likely as not to draw alike, all do once in 256. A run of a
// deterministic operator that departs nowhere is run again as often, for
// nothing: a KeepGoing finding's cost, not a plan's.
const sameRuns = 8

// loopOf is where the run of p goes wrong in a hot loop: the reconcile it
// loops in (the loop's own reconciles, or the writes made in them), at the
// step that completed the loop (nil: p's run shows no hot loop).
func loopOf(w *world.World, t *testing.T, p *plan.Plan) (*Write, error) {
	_, run, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
	}
	for _, v := range run.Violated() {
		if v.Property != cluster.HotLoopProperty {
			continue
		}
		by, _, _ := strings.Cut(strings.TrimPrefix(v.Detail, "hot loop: "), " made ") // cluster.HotLoop's String
		s, reconcile, ok := firstIn(run.Steps, func(s trace.Step, reconcile string) bool {
			return s.At == v.At && s.Process+"/"+s.Controller == by && reconcile != ""
		})
		if ok {
			return &Write{Process: s.Process, Reconcile: reconcile, Object: s.Object, Loop: true,
				Said: fmt.Sprintf("the hot loop of %s, in the reconcile %s", by, reconcile)}, nil
		}
	}
	return nil, nil
}

// firstWriteAtRest is r's first write at rest: the first write an operator
// process made in a reconcile after the fault phase (nil: none).
func firstWriteAtRest(w *world.World, r *world.RunResult) *Write {
	s, reconcile, ok := firstIn(r.Steps, func(s trace.Step, _ string) bool {
		return s.RVWritten > 0 && s.Reconcile > 0 && s.At > w.Opts.FaultPhase && slices.Contains(w.Space.Processes, s.Process)
	})
	if !ok {
		return nil
	}
	return &Write{Process: s.Process, Reconcile: reconcile, Object: s.Object, AtRest: true,
		Said: fmt.Sprintf("the %s of %s at %v, at rest", s.Op, s.Object, s.At)}
}

// firstIn is the first of steps that match says is the one, given the
// reconcile its worker has under way ("controller namespace/name"; "":
// none), and that reconcile.
func firstIn(steps []trace.Step, match func(s trace.Step, reconcile string) bool) (trace.Step, string, bool) {
	reconciling := map[string]string{} // by worker
	for _, s := range steps {
		worker := fmt.Sprintf("%s/%s/%d", s.Process, s.Controller, s.Worker)
		if s.Op == "reconcile" {
			reconciling[worker] = s.Controller + " " + s.Object
		}
		if match(s, reconciling[worker]) {
			return s, reconciling[worker], true
		}
	}
	return trace.Step{}, "", false
}

// operatorsOnly is r with its watch log cut to the changes of objects of
// kinds that no built-in controller made (the operator's and the
// workload's: those of w's operator processes and of its user, admin).
func operatorsOnly(w *world.World, r *world.RunResult, kinds []schema.GroupVersionKind) *world.RunResult {
	builtin := map[uint64]bool{}
	for _, s := range r.Steps {
		if s.RVWritten > 0 && s.Process != "" && s.Process != "admin" && !slices.Contains(w.Space.Processes, s.Process) {
			builtin[s.RVWritten] = true
		}
	}
	out := *r
	out.Log = nil
	for _, e := range r.Log {
		if !builtin[e.ResourceVersion] && slices.Contains(kinds, e.GVK) {
			out.Log = append(out.Log, e)
		}
	}
	return &out
}

// Line says that sig, found at plan place, is listed under head.
func Line(sig string, place int, head string, ww *Write) string {
	how := "the same way"
	switch {
	case ww.Loop:
		how = "in the same hot loop"
	case ww.AtRest:
		how = "at a write at rest of the same object"
	case len(ww.Fields) > 0:
		how = "in the same fields (." + strings.Join(ww.Fields, ", .") + ")"
	}
	return fmt.Sprintf("operatortest: %s at plan %d: one root cause with %s, listed under it (the runs of both first go wrong in the reconcile %s of process %s, %s; this one at %s)",
		sig, place, head, ww.Reconcile, ww.Process, how, ww.Said)
}
