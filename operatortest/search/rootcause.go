package search

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

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Root causes (KeepGoing; the rule is doc.go's: a finding is one root
// cause). A run goes wrong first at a write: where it first departs from
// the run it is judged against (rundiff.Diverge's first divergent write
// over the changes of the kinds the differential oracles judge, compared
// as they compare them, that no built-in controller made: the manager's
// Leases and Events are not judged, and a fault shifts the timing of a
// built-in controller's writes, a Job's status.uncountedTerminatedPods),
// a faulted plan's
// run from its fault-free run and, for two schedules that disagree with no
// fault (interleavings-agree), the one seed's fault-free run from the
// other's; or, for writes-at-rest with no fault, at its first write at
// rest (the first write an operator process makes in a reconcile after the
// fault phase). Two findings are one root cause when their first wrong
// writes were made in the same reconcile (one controller of one process
// reconciling one object) and, where one of them is a write at rest, to
// the same object: a departure is where the reconcile took another way,
// and each later write of it follows; a write at rest is one write that
// should not be, and accounts for no other object's. A finding whose run
// goes wrong at no such write (a panic with no fault, a run that ends as
// its reference does, a first divergent write outside a reconcile) is a
// root cause of its own.

// rootCauses are an exploration's findings that are not listed under
// another (their signatures), each with its first wrong write (nil: none),
// and the signatures listed under each since it was made; saved are the
// root causes found before, the saved plans that still violate (the
// signatures found under them were never saved), whose first wrong writes
// are found when a new finding is compared with them.
type rootCauses struct {
	heads []rootCause
	also  map[string][]string
	saved []Finding
}

// rootCause is a finding's signature and its first wrong write.
type rootCause struct {
	sig   string
	wrong *wrongWrite
}

// wrongWrite is where a run first goes wrong: a write of object by process
// in reconcile (its controller and the object reconciled), a write at rest
// or a departure from the run it is judged against, said as a line says
// it.
type wrongWrite struct {
	process, reconcile, object string
	atRest                     bool
	said                       string
}

// sameCause says whether w and o are one root cause (the rule above).
func (w *wrongWrite) sameCause(o *wrongWrite) bool {
	return w.process == o.process && w.reconcile == o.reconcile && (!w.atRest && !o.atRest || w.object == o.object)
}

// under is the signature of the earlier finding f is one root cause with
// ("" if none: f is added as a root cause of its own), and where f's run
// first went wrong.
func (rc *rootCauses) under(w *world.World, t *testing.T, f Finding) (string, *wrongWrite, error) {
	ww, err := firstWrongWrite(w, t, f)
	if err != nil {
		return "", nil, err
	}
	if ww != nil {
		for _, g := range rc.saved {
			sw, err := firstWrongWrite(w, t, g)
			if err != nil {
				return "", nil, err
			}
			rc.heads = append(rc.heads, rootCause{sig: g.Signature, wrong: sw})
		}
		rc.saved = nil
		for _, h := range rc.heads {
			if h.wrong != nil && h.wrong.sameCause(ww) {
				if rc.also == nil {
					rc.also = map[string][]string{}
				}
				rc.also[h.sig] = append(rc.also[h.sig], append([]string{f.Signature}, f.Also...)...)
				return h.sig, ww, nil
			}
		}
	}
	rc.heads = append(rc.heads, rootCause{sig: f.Signature, wrong: ww})
	return "", ww, nil
}

// list adds to each finding of fs the signatures listed under it.
func (rc *rootCauses) list(fs []Finding) {
	for i := range fs {
		for _, s := range rc.also[fs[i].Signature] {
			if !slices.Contains(fs[i].Also, s) {
				fs[i].Also = append(fs[i].Also, s)
			}
		}
	}
}

// firstWrongWrite is where the run of f's minimal plan first goes wrong
// (the rule above), or nil: nowhere, or a run cut at the work bound.
func firstWrongWrite(w *world.World, t *testing.T, f Finding) (*wrongWrite, error) {
	p := f.Minimal
	against := &plan.Plan{Seed: p.Seed, Steps: p.Steps}
	name, _, _ := strings.Cut(f.Signature, " ")
	switch {
	case len(p.Faults) == 0 && name == world.InterleavingsAgree:
		p = &plan.Plan{Seed: reference.OtherSeed(p.Seed), Steps: p.Steps}
	case len(p.Faults) == 0 && name == world.WritesAtRest:
		against = nil
	case len(p.Faults) == 0:
		return nil, nil
	}
	phase := w.Phase
	defer func() { w.Phase = phase }()
	w.Phase = world.PhaseFind
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
	ref, refRun, err := reference.RunOnce(w, t, against, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
	}
	if world.CutNote(refRun.Verdicts) != "" {
		return nil, nil
	}
	kinds := verdict.Judged(w, ref, snap)
	d := rundiff.Diverge(w, operatorsOnly(w, refRun, kinds), operatorsOnly(w, run, kinds), true, nil)
	if d == nil || d.Reconcile == "" {
		return nil, nil
	}
	return &wrongWrite{process: d.Process, reconcile: d.Reconcile, object: d.Object, said: d.String()}, nil
}

// firstWriteAtRest is r's first write at rest: the first write an operator
// process made in a reconcile after the fault phase (nil: none).
func firstWriteAtRest(w *world.World, r *world.RunResult) *wrongWrite {
	reconciling := map[string]string{} // by worker: the reconcile under way
	for _, s := range r.Steps {
		worker := fmt.Sprintf("%s/%s/%d", s.Process, s.Controller, s.Worker)
		if s.Op == "reconcile" {
			reconciling[worker] = s.Controller + " " + s.Object
		}
		if s.RVWritten > 0 && s.Reconcile > 0 && s.At > w.Opts.FaultPhase && slices.Contains(w.Space.Processes, s.Process) {
			return &wrongWrite{process: s.Process, reconcile: reconciling[worker], object: s.Object, atRest: true,
				said: fmt.Sprintf("the %s of %s at %v, at rest", s.Op, s.Object, s.At)}
		}
	}
	return nil
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

// sameCauseLine says that sig, found at plan place, is listed under head.
func sameCauseLine(sig string, place int, head string, ww *wrongWrite) string {
	return fmt.Sprintf("operatortest: %s at plan %d: one root cause with %s, listed under it (the runs of both first go wrong in the reconcile %s of process %s; this one at %s)",
		sig, place, head, ww.reconcile, ww.process, ww.said)
}
