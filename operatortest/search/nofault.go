package search

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
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
// until a finding that needs a fault. A random plan's minimal plan that
// shrank to no fault is such a finding too (run.go), and the search goes on
// past it the same way.

// faultFree judges the sweep's workloads with no fault and returns, in
// order, a finding for each that shows a signature not in seen (all its new
// signatures: the first the finding's, the others listed under it), each
// handed to report as it is found; it adds them to seen.
func faultFree(w *world.World, t *testing.T, seen map[string]bool, report func(Finding)) ([]Finding, error) {
	start := time.Now()
	bases, err := sweepWorkloads(w)
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
		vs := r.Violated()
		fresh := unseen(signatures(w, vs), seen)
		if len(fresh) == 0 {
			continue
		}
		for _, sig := range fresh {
			seen[sig] = true
		}
		f := Finding{Signature: fresh[0], Also: fresh[1:], NoFault: true, Minimal: p, Violations: vs, Hash: r.Hash, steps: r.Steps,
			TimeToFind: time.Since(start)}
		found = append(found, f)
		report(f)
		if len(found) >= maxFindings {
			break
		}
	}
	return found, nil
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
