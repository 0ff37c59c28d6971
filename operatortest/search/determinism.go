package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/rundiff"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Determinism.
//
// A run is a function of its plan, up to what the oracles' equivalence
// ignores; two runs of one plan are compared by package rundiff's rule
// (rundiff.Diverge: object by object, the first object whose content one
// run wrote and the other did not, and its fields). Its cases here:
//
//   - The exploration runs its preflight plan (no workload, no fault)
//     up to four times, until two differ beyond the equivalence. That is
//     the operator's own nondeterminism (a list rendered by ranging over
//     a Go map, an unseeded random value): said once, with the object and
//     the fields it touches (Result.Nondeterminism; Run fails with it),
//     and a finding's replay is judged modulo those fields too. The
//     verdicts are not: only a declaration makes the oracles ignore a
//     field (a buggy twin whose bug is a field built in map order,
//     examples/patterns/mapports, is caught by them). Runs that differ
//     only in what the equivalence ignores are logged.
//   - A finding's replay that gives another trace hash, but agrees with
//     the exploring run modulo the equivalence and shows the same
//     violation, replays: it is reported, with a line saying the hashes
//     differ and in what (report.go). A replay is two runs of one plan
//     too: where the operator wrote other content to one object at the
//     same point of both, that is its nondeterminism as the preflight's
//     is (said once, if the preflight's runs happened alike), and the
//     comparison goes on modulo those fields.

// determinismRuns are the runs of the preflight plan made again until one
// differs: a range over a small Go map is one of few orders, most often the
// same one (a map of four: one order in about five of ten ranges), so two
// runs alike prove little.
const determinismRuns = 3

// checkDeterminism runs the preflight plan again and compares the two runs
// (the rule above): the operator's own nondeterminism is said once, and
// judged from then on as if declared.
func checkDeterminism(w *world.World, t *testing.T, first *world.RunResult) error {
	var ignored *rundiff.Divergence // a difference only in what the oracles ignore
	for range determinismRuns {
		_, again, err := reference.RunOnce(w, t, &plan.Plan{Seed: w.Opts.EffectiveSeed()}, nil, 0)
		if err != nil || again.Hash == first.Hash {
			if err != nil {
				return err
			}
			continue
		}
		if d := rundiff.Diverge(w, first, again, true, explorationOf(w).found); d != nil {
			learn(w, d, "the fault-free run with no workload")
			return nil
		}
		if ignored == nil {
			ignored = rundiff.Diverge(w, first, again, false, explorationOf(w).found)
		}
	}
	if ignored != nil {
		t.Logf("operatortest: %s differ between two runs of one plan (the fault-free run with no workload) only in what the oracles ignore (the order of a keyed list, a declared field): trace hashes differ, and a replay is judged modulo it", ignored)
	}
	return nil
}

// learn takes d, where two runs of one plan (what) differ beyond what the
// oracles ignore, as the operator's own nondeterminism when the operator
// wrote it: its fields join those a replay is judged modulo, and the first
// such difference is what the exploration says (once). It reports whether
// d was the operator's.
func learn(w *world.World, d *rundiff.Divergence, what string) bool {
	e := explorationOf(w)
	if !w.Operators[d.Process] {
		if e.nondeterminism == "" {
			e.nondeterminism = fmt.Sprintf("%s differ between two runs of one plan (%s), and no process of the operator's wrote them: a determinism bug of ctrlsim, or a difference of the operator's before them that left no write", d, what)
		}
		return false
	}
	kind, _, _ := strings.Cut(d.Object, " ")
	if e.found == nil {
		e.found = canon.Nondeterministic{}
	}
	for _, f := range d.Fields {
		path := strings.Split(strings.TrimSuffix(f, " (its order)"), ".")
		if !slices.ContainsFunc(e.found[kind], func(p []string) bool { return slices.Equal(p, path) }) {
			e.found[kind] = append(e.found[kind], path)
		}
	}
	if e.nondeterminism == "" {
		e.nondeterminism = fmt.Sprintf("%s differ between two runs of one plan (%s): the operator itself is nondeterministic (a value built by ranging over a Go map, an unseeded random value, a wall-clock reading), so its findings cannot replay bit for bit; sort what it renders, or declare the fields with Options.Nondeterministic: %s (this exploration's replays are judged modulo them; its verdicts are not)",
			d, what, d.Declare())
	}
	return true
}

// agreeLearning compares a finding's exploring run and its replay modulo
// what the oracles ignore and the fields found nondeterministic, learning
// (learn) from each difference in the content of one write of the
// operator's, up to maxLearned: nil when they then agree, else where they
// differ.
func agreeLearning(w *world.World, explored, replayed *world.RunResult) *rundiff.Divergence {
	for range maxLearned {
		d := rundiff.Diverge(w, explored, replayed, true, explorationOf(w).found)
		if d == nil || !d.SameWrite || !learn(w, d, "a finding's minimal plan, explored and replayed") {
			return d
		}
	}
	return rundiff.Diverge(w, explored, replayed, true, explorationOf(w).found)
}

// maxLearned bounds the differences one replay teaches: a run that differs
// in more is not the same run in another order.
const maxLearned = 4
