package search

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Findings with no fault at all. A bug the workload alone shows (an
// operator that writes its status unchanged every resync: writes-at-rest;
// a reconcile that panics on every object) is shown by every plan of that
// workload, faulted or not: reported from the first targeted plan it would
// blame that plan's fault, and it would end the search, hiding every bug
// that needs a fault. So before the sweep each of its workloads (the script
// alone, then each lifecycle's) is judged with no fault: plan 0. What one
// violates is a finding "with no fault at all", saved and shown first; its
// signatures count as seen, so that a faulted plan that shows nothing else
// is no finding, and the exploration goes on (with or without KeepGoing)
// until a finding that needs a fault; but where Options.Expect names the
// bug a workload's fault-free run shows (without KeepGoing), the search
// ends at that workload, the later ones not judged. A random plan's minimal plan that
// shrank to no fault is such a finding too (run.go), and the search goes on
// past it the same way.

// faultFree judges the sweep's workloads with no fault and returns, in
// order, a finding for each that shows a signature not in seen (all its new
// signatures: the first the finding's, the others listed under it), each
// handed to report as it is found (which says whether it is a finding of
// its own: package rootcause); it adds them to seen.
func faultFree(w *world.World, t *testing.T, seen map[string]bool, report func(Finding) (bool, error)) ([]Finding, error) {
	start := time.Now()
	first, again, err := sweepWorkloads(w)
	bases := append(first, again...)
	if err != nil {
		return nil, fmt.Errorf("the world could not run the sweep's workload (a bug of the test's setup, not a finding): %w", err)
	}
	defer func() { w.Phase = "" }()
	long := longOf(w) // longrun.go
	var found []Finding
	for _, p := range bases {
		w.Phase = world.PhaseFind
		long.start("plan 0 (no fault)", "judging the workload's fault-free run", p)
		r, err := reference.RunRecalled(w, t, p)
		long.done()
		if err != nil {
			var we *world.WorldError
			if errors.As(err, &we) {
				err = we.Err
			}
			return nil, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
		}
		for _, f := range plainFindings(w, t, p, r, seen, time.Since(start)) {
			if len(found) >= maxFindings {
				break
			}
			seen[f.Signature] = true
			for _, sig := range f.Also {
				seen[sig] = true
			}
			mine, err := report(f)
			if err != nil {
				return nil, err
			}
			if !mine {
				continue
			}
			found = append(found, f)
		}
		if pinsKnownBug(w, found) {
			// Options.Expect's known bug is found: the search ends here
			// (run.go), and the workloads after this one are not judged.
			break
		}
	}
	return found, nil
}

// plainFindings is the finding with no fault at all of r, the run of p (a
// plan with no fault), if it shows a signature not in seen: one run, one
// finding, its headline the first of its new signatures (byHeadline: the
// test's own property first) and the others listed under it (Also), each
// printed with it and its plan saved once. A fault-free run shows whatever
// the workload alone shows, so nothing in it says its signatures share a
// cause (a panic and a wrong copy may be two bugs of one run): they are
// listed under one finding because they are one plan's, not one cause's,
// and every one of them counts as seen. With KeepGoing, package rootcause
// still lists a later plan under it only where their first wrong writes
// are one.
func plainFindings(w *world.World, t *testing.T, p *plan.Plan, r *world.RunResult, seen map[string]bool, took time.Duration) []Finding {
	sigs := byHeadline(w, unseen(signatures(w, r.Violated()), seen))
	if len(sigs) == 0 {
		return nil
	}
	var suspected []check.Verdict
	if w.Opts.Expect != "" {
		// Whether the plan shows the known bug (pinsKnownBug) is judged of
		// the plan as a whole, the run its interleavings-agree blames too.
		suspected = failure.SuspectOf(w, t, p, r.Violated()).Violated()
	}
	return []Finding{{By: "no fault at all", Signature: sigs[0], Also: sigs[1:], NoFault: true, Minimal: p, Violations: r.Violated(), Hash: r.Hash, steps: r.Steps, explored: r, TimeToFind: took, suspected: suspected}}
}

// unseen are the signatures of sigs not in seen, in order.
func unseen(sigs []string, seen map[string]bool) []string {
	var out []string
	for _, s := range sigs {
		if !seen[s] {
			out = append(out, s)
		}
	}
	return out
}

// needsFault counts the findings of fs that need a fault.
func needsFault(fs []Finding) int {
	n := 0
	for _, f := range fs {
		if !f.NoFault {
			n++
		}
	}
	return n
}

// firstWithFault is the first finding of fs that needs a fault (nil: none).
func firstWithFault(fs []Finding) *Finding {
	for i := range fs {
		if !fs[i].NoFault {
			return &fs[i]
		}
	}
	return nil
}

// split tells f's signatures apart by cause, for a finding of the random
// pass (the sweep's are told apart by plan 0 already): those the fault-free
// run of f's minimal plan (its seed and workload, no fault) shows too are
// not the fault's, and make findings with no fault at all of their own
// (plainFindings); f keeps the others, its headline the test's own
// property where one is among them (the author's words for the bug), the
// rest listed under it. A minimal plan with no fault is itself such a
// finding. seen is what the exploration has reported; split adds nothing
// to it.
func split(w *world.World, t *testing.T, f Finding, seen map[string]bool) ([]Finding, Finding, error) {
	if len(f.Minimal.Faults) == 0 {
		// One finding, as plainFindings makes it.
		sigs := byHeadline(w, unseen(append([]string{f.Signature}, f.Also...), seen))
		if len(sigs) == 0 {
			return nil, Finding{}, nil
		}
		f.Signature, f.Also, f.NoFault, f.FirstFailure, f.By = sigs[0], sigs[1:], true, 0, "no fault at all"
		return []Finding{f}, Finding{}, nil
	}
	quiet := &plan.Plan{Seed: f.Minimal.Seed, Steps: f.Minimal.Steps}
	w.Phase = world.PhaseFind
	r, err := reference.RunRecalled(w, t, quiet)
	w.Phase = ""
	if err != nil {
		return nil, f, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", err)
	}
	plain := map[string]bool{}
	for _, s := range signatures(w, r.Violated()) {
		plain[s] = true
	}
	nf := plainFindings(w, t, quiet, r, seen, f.TimeToFind)
	if len(nf) > 0 {
		if plain[f.Signature] {
			// The signature searched for is shown with no fault: f is
			// this finding, and what needs the fault is under it (if any).
			f.Signature, f.Also = "", unseen(f.Also, plain)
			if len(f.Also) > 0 {
				f.Signature, f.Also = f.Also[0], f.Also[1:]
			}
		}
	}
	var also []string
	for _, s := range unseen(f.Also, seen) {
		if !plain[s] {
			also = append(also, s)
		}
	}
	f.Also = also
	if f.Signature == "" {
		return nf, f, nil // nothing of it needs the fault
	}
	return nf, headline(w, f), nil
}

// headline makes f's signature the one of its signatures that says the
// most (byHeadline), the others under it.
func headline(w *world.World, f Finding) Finding {
	sigs := byHeadline(w, append([]string{f.Signature}, f.Also...))
	f.Signature, f.Also = sigs[0], sigs[1:]
	return f
}

// byHeadline orders sigs by what they say of a bug, stably: the test's own
// properties first (the author's words for it), then a panic's (the code
// that panicked), then the generic oracles'.
func byHeadline(w *world.World, sigs []string) []string {
	rank := func(sig string) int {
		name, _, _ := strings.Cut(sig, " ")
		for _, p := range w.Opts.Properties {
			if p.Name == name {
				return 0
			}
		}
		if strings.Contains(sig, " @ ") {
			return 1
		}
		return 2
	}
	out := slices.Clone(sigs)
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}
