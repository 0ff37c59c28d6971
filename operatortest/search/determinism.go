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
//   - A difference is laid where it starts (blame). A write of a built-in
//     controller's (kube-controller-manager's, the kubelet's) is never
//     the operator's nor ctrlsim's on its own: where the operator's own
//     writes differ beyond the equivalence, that is the difference said;
//     where they differ only in what it ignores (a keyed list's order, a
//     declared field: rundiff.Origin finds the first write of either run
//     that differs as stored, and it is the operator's), the cluster's
//     controllers carried it on (an EndpointSlice's ports copied from the
//     Service, Events named and versioned after the writes before them):
//     said once as the operator's in a log line (Result.Carried), and the
//     runs agree. A write of the operator's own that differs beyond the
//     equivalence is its own nondeterminism only where the reconcile that
//     made it is the one where the runs first differ as stored
//     (rundiff.Divergence.InOneReconcileWith: it began from runs that
//     agreed); made in a later reconcile, after the runs first differed in
//     what the oracles ignore, it is carried on from there too (an extra
//     write of the ports' order moves the operator in time, and a race with
//     the garbage collector comes out the other way: the Service's owner
//     reference differs), said so, not learned as a field to declare.
//     Only a difference no write of the operator's precedes is ctrlsim's,
//     a determinism bug, said once, failing the test.

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
			judgeDifference(w, d, "the fault-free run with no workload", first, again)
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

// blame says whose d is, a difference of two runs of one plan (a, b)
// beyond what the oracles ignore: op is where the operator's own writes
// differ beyond it (d itself when the operator wrote d), when the
// reconcile that wrote it is where the runs first differ as stored; else
// carried is where a difference of the operator's in what the oracles
// ignore starts (the order of a keyed list, a declared field), which the
// cluster's controllers or the operator's later reconciles carried on to
// d; both nil: no write of the operator's differs before d, ctrlsim's.
func blame(w *world.World, d *rundiff.Divergence, a, b *world.RunResult) (op, carried *rundiff.Divergence) {
	found := explorationOf(w).found
	op = d
	if !w.Operators[d.Process] {
		operators := func(p string) bool { return w.Operators[p] }
		op = rundiff.Diverge(w, rundiff.WrittenBy(a, operators), rundiff.WrittenBy(b, operators), true, found)
	}
	o := rundiff.Origin(w, a, b, found)
	ours := o != nil && w.Operators[o.Process]
	switch {
	case op != nil && ours && o.Ignored && !op.InOneReconcileWith(o):
		return nil, o // the operator's reconcile began where the runs already differed
	case op != nil:
		return op, nil
	case ours:
		return nil, o
	}
	return nil, nil
}

// judgeDifference takes d, where two runs a and b of one plan (what) differ
// beyond what the oracles ignore (the rule above): the operator's own
// difference is learned (learn), one the cluster carried on from it is said
// once as the operator's and the runs agree, and one no write of the
// operator's explains is ctrlsim's, said once. It returns where the runs
// still differ: the operator's (learned), or ctrlsim's; nil when carried.
func judgeDifference(w *world.World, d *rundiff.Divergence, what string, a, b *world.RunResult) *rundiff.Divergence {
	e := explorationOf(w)
	op, carried := blame(w, d, a, b)
	switch {
	case op != nil:
		if op.SameWrite {
			learn(w, op, what)
		}
		return op
	case carried != nil:
		if e.carried == "" {
			e.carried = fmt.Sprintf("%s differ between two runs of one plan (%s): they follow from the operator's own writes, which differ first in what the oracles ignore (%s: the order of a keyed list, a declared field), carried on by the cluster's controllers and the operator's own later reconciles; the operator's nondeterminism, not ctrlsim's, and its runs are judged alike", d, what, carried)
		}
		return nil
	}
	if e.nondeterminism == "" {
		e.nondeterminism = fmt.Sprintf("%s differ between two runs of one plan (%s), and no write of the operator's differs before them: a determinism bug of ctrlsim (please report it with the plan)", d, what)
	}
	return d
}

// learn takes d, a write of the operator's whose content differs between
// two runs of one plan (what), as its own nondeterminism: its fields join
// those a replay is judged modulo, and the first such difference is what
// the exploration says (once).
func learn(w *world.World, d *rundiff.Divergence, what string) {
	e := explorationOf(w)
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
}

// agreeLearning compares a finding's exploring run and its replay modulo
// what the oracles ignore and the fields found nondeterministic, learning
// (learn) from each difference in the content of one write of the
// operator's, up to maxLearned: nil when they then agree, else where they
// differ.
func agreeLearning(w *world.World, explored, replayed *world.RunResult) *rundiff.Divergence {
	for range maxLearned {
		d := rundiff.Diverge(w, explored, replayed, true, explorationOf(w).found)
		if d == nil {
			return nil
		}
		if d = judgeDifference(w, d, "a finding's minimal plan, explored and replayed", explored, replayed); d == nil || !d.SameWrite || !w.Operators[d.Process] {
			return d
		}
	}
	return rundiff.Diverge(w, explored, replayed, true, explorationOf(w).found)
}

// maxLearned bounds the differences one replay teaches: a run that differs
// in more is not the same run in another order.
const maxLearned = 4
