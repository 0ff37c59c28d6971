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
// cause). A later finding is listed under an earlier one when the runs of
// both first depart from the runs they are judged against in the same
// reconcile: one controller of one process reconciling one object. That
// run is a faulted plan's fault-free run, and for a disagreement of two
// schedules with no fault (interleavings-agree) the other seed's fault-free
// run; where they depart is rundiff.Diverge's first divergent write, over
// the kinds the differential oracles judge, compared as they compare them
// (the manager's Leases and Events are not judged). Any other finding, and
// one whose first divergent write was made outside a reconcile, is a root
// cause of its own.

// rootCauses are an exploration's findings that need no other's (their
// signature), each with its first divergent write (nil: none), and the
// signatures listed under each since it was made.
type rootCauses struct {
	heads []rootCause
	also  map[string][]string
}

// rootCause is a finding's signature and its first divergent write.
type rootCause struct {
	sig   string
	write *rundiff.Divergence
}

// under is the signature of the earlier finding f is one root cause with
// ("" if none: f is added as a root cause of its own), and f's first
// divergent write.
func (rc *rootCauses) under(w *world.World, t *testing.T, f Finding) (string, *rundiff.Divergence, error) {
	d, err := firstDivergentWrite(w, t, f)
	if err != nil {
		return "", nil, err
	}
	if d != nil {
		for _, h := range rc.heads {
			if h.write != nil && h.write.Process == d.Process && h.write.Reconcile == d.Reconcile {
				if rc.also == nil {
					rc.also = map[string][]string{}
				}
				rc.also[h.sig] = append(rc.also[h.sig], append([]string{f.Signature}, f.Also...)...)
				return h.sig, d, nil
			}
		}
	}
	rc.heads = append(rc.heads, rootCause{sig: f.Signature, write: d})
	return "", d, nil
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

// firstDivergentWrite is where the run of f's minimal plan first departs
// from the run it is judged against (the rule above), or nil: no such
// run, runs that agree, a run cut at the work bound, or a write made
// outside a reconcile.
func firstDivergentWrite(w *world.World, t *testing.T, f Finding) (*rundiff.Divergence, error) {
	p := f.Minimal
	against := &plan.Plan{Seed: p.Seed, Steps: p.Steps}
	name, _, _ := strings.Cut(f.Signature, " ")
	switch {
	case len(p.Faults) == 0 && name == world.InterleavingsAgree:
		p = &plan.Plan{Seed: reference.OtherSeed(p.Seed), Steps: p.Steps}
	case len(p.Faults) == 0:
		return nil, nil
	}
	phase := w.Phase
	defer func() { w.Phase = phase }()
	w.Phase = world.PhaseFind
	ref, refRun, err := reference.RunOnce(w, t, against, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
	}
	snap, run, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
	}
	if world.CutNote(refRun.Verdicts) != "" || world.CutNote(run.Verdicts) != "" {
		return nil, nil
	}
	kinds := verdict.Judged(w, ref, snap)
	d := rundiff.Diverge(w, judgedOnly(refRun, kinds), judgedOnly(run, kinds), true, nil)
	if d == nil || d.Reconcile == "" {
		return nil, nil
	}
	return d, nil
}

// judgedOnly is r with its watch log cut to the changes of objects of kinds.
func judgedOnly(r *world.RunResult, kinds []schema.GroupVersionKind) *world.RunResult {
	out := *r
	out.Log = nil
	for _, e := range r.Log {
		if slices.Contains(kinds, e.GVK) {
			out.Log = append(out.Log, e)
		}
	}
	return &out
}

// sameCauseLine says that sig, found at plan place, is listed under head.
func sameCauseLine(sig string, place int, head string, d *rundiff.Divergence) string {
	return fmt.Sprintf("operatortest: %s at plan %d: one root cause with %s, listed under it (the runs of both first depart from the runs they are judged against in the reconcile %s of process %s; this one at %s)",
		sig, place, head, d.Reconcile, d.Process, d)
}
