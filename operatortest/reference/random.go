package reference

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Randomness. Each run seeds the randomness that code in the process draws
// (crypto/rand, math/rand's global functions, google/uuid,
// k8s.io/apimachinery/pkg/util/rand: wallclock.SeedRandom) from its plan's
// seed, so that every run of a plan draws the same values, and every start of
// an operator's process (a restart after a crash, a stale restart) starts
// them over: a new incarnation draws what the first one drew, in the same
// order. A correct operator that drew a password and crashed before it wrote
// it draws the same password again after its restart, as the fault-free run
// drew it: its end state is then comparable with the reference's (on a real
// cluster it would draw another; which one cannot matter to a correct
// operator). What that gives up: a bug whose only symptom is that a restarted
// process draws a value other than its predecessor's (a password regenerated
// at every start), which no generic oracle could tell from a correct
// operator's fresh draw anyway.
//
// Random-derived fields. Seeding makes a run repeatable, not two runs alike:
// two schedules of one workload (interleavings-agree's) or a faulted run and
// its reference (converges') may draw a different number of values before the
// one that ends in an object (a password drawn once more because a Secret's
// create raced the user's re-creation of its owner). On a real cluster a
// value drawn at random differs between every two runs by principle, so what
// differs with the randomness alone is learned, as Sieve learns
// nondeterministic fields from two reference runs: the fault-free run of the
// plan's seed and workload, its operator's randomness drawn from another seed
// (otherDraws), is compared with the plan's own fault-free run, and the
// fields in which they differ are not held against a run by converges or
// interleavings-agree (a report says "differs with the randomness alone").
// That run is made only when one of those two oracles finds a difference
// (most plans never need it), and kept with the other references. Only the
// operator's own draws change in it: the environment (generated names'
// suffixes, the kubelet's durations) and the schedule's seed stay the plan's.
// What it does not learn: a field that differs with the draws only in some
// schedules (the other run is one more sample, not every draw).

// DrawsReference runs (or recalls) the fault-free run of seed and steps with
// the operator's randomness from another seed.
func DrawsReference(w *world.World, t *testing.T, seed uint64, steps []plan.Step) (*verdict.Reference, error) {
	p := &plan.Plan{Seed: seed, Steps: steps}
	key := "other draws\n" + p.String()
	if r, ok := refsOf(w).Runs[key]; ok {
		return r, nil
	}
	w.OtherDraws = true
	snap, res, err := RunOnce(w, t, p, nil, 0)
	w.OtherDraws = false
	if err != nil {
		return nil, err
	}
	r := &verdict.Reference{Seed: seed, Draws: true, Snap: snap, Targets: TargetsOf(w, res)}
	keep(w, key, r)
	return r, nil
}

// againReference runs (or recalls) the fault-free run of seed and steps a
// second time, with the same draws: where it differs from the first, the
// operator is nondeterministic beyond its seeded randomness.
func againReference(w *world.World, t *testing.T, seed uint64, steps []plan.Step) (*verdict.Reference, error) {
	p := &plan.Plan{Seed: seed, Steps: steps}
	key := "same draws again\n" + p.String()
	if r, ok := refsOf(w).Runs[key]; ok {
		return r, nil
	}
	snap, _, err := RunOnce(w, t, p, nil, 0)
	if err != nil {
		return nil, err
	}
	r := &verdict.Reference{Seed: seed, Snap: snap}
	keep(w, key, r)
	return r, nil
}

// randomDerived are the fields (object key -> leaf paths) in which ref, a
// fault-free run of p's workload, differs from its run with other random
// draws, and a note naming them for a report.
func randomDerived(w *world.World, t *testing.T, p *plan.Plan, ref *verdict.Reference) (map[string]map[string]bool, string, error) {
	other, err := DrawsReference(w, t, ref.Seed, p.Steps)
	if err != nil {
		return nil, "", err
	}
	free, names := FieldsDiffering(w, ref.Snap, other.Snap)
	if len(free) == 0 {
		return nil, "", nil
	}
	// A field that differs between two runs with the same draws is not the
	// seeded randomness's (a value in Go map order, say): the operator is
	// nondeterministic there, which the replay of the violation then
	// reports (no silent pass).
	again, err := againReference(w, t, ref.Seed, p.Steps)
	if err != nil {
		return nil, "", err
	}
	unseeded, _ := FieldsDiffering(w, ref.Snap, again.Snap)
	names = slices.DeleteFunc(names, func(n string) bool {
		for key, paths := range unseeded { // lint:order-independent a lookup
			if rest, ok := strings.CutPrefix(n, key+" "); ok && paths[rest] {
				return true
			}
		}
		return false
	})
	for key, paths := range unseeded { // lint:order-independent deletes from sets
		for path := range paths { // lint:order-independent deletes from a set
			delete(free[key], path)
		}
		if len(free[key]) == 0 {
			delete(free, key)
		}
	}
	if len(free) == 0 {
		return nil, "", nil
	}
	return free, fmt.Sprintf("not compared, differs with the randomness alone (the fault-free run of seed %d with the operator's random draws from another seed): %s", ref.Seed, strings.Join(names, "; ")), nil
}

// FieldsDiffering are the leaf paths of each object that x and y both have
// and differ in, and their names ("Secret db/app-credentials data.password").
func FieldsDiffering(w *world.World, x, y *verdict.Snapshot) (map[string]map[string]bool, []string) {
	out := map[string]map[string]bool{}
	var names []string
	for _, gvk := range verdict.Judged(w, x, y) {
		xs, ys := x.Of(gvk), y.Of(gvk)
		sh := w.Shapes.For(gvk)
		for _, k := range xs.Keys {
			yt, ok := ys.Text[k]
			if !ok || yt == xs.Text[k] {
				continue
			}
			fx, fy := verdict.Flatten(sh, xs.Value[k]), verdict.Flatten(sh, ys.Value[k])
			var paths []string
			for p, v := range fx { // lint:order-independent sorted below
				if ov, ok := fy[p]; !ok || ov != v {
					paths = append(paths, p)
				}
			}
			for p := range fy { // lint:order-independent sorted below
				if _, ok := fx[p]; !ok {
					paths = append(paths, p)
				}
			}
			slices.Sort(paths)
			out[k] = map[string]bool{}
			for _, p := range paths {
				out[k][p] = true
				names = append(names, k+" "+p)
			}
		}
	}
	return out, names
}

// agreeBut reports whether two canonical values of one object are equal but
// in the leaf paths of free.
func agreeBut(sh canon.Shape, x, y any, free map[string]bool) bool {
	if len(free) == 0 {
		return false
	}
	fx, fy := verdict.Flatten(sh, x), verdict.Flatten(sh, y)
	for p, v := range fx { // lint:order-independent a check of each
		if ov, ok := fy[p]; !free[p] && (!ok || ov != v) {
			return false
		}
	}
	for p := range fy { // lint:order-independent a check of each
		if _, ok := fx[p]; !free[p] && !ok {
			return false
		}
	}
	return true
}

// ConvergesWithDraws judges converges again with the run of the plan's seed
// with other random draws among the references (refs gains it): what
// differs between it and the plan's own fault-free run is learned as
// nondeterministic (converges' learned fields), and it is one more candidate
// end state. When that makes converges hold, the verdict's note names the
// fields.
func ConvergesWithDraws(w *world.World, t *testing.T, p *plan.Plan, refs []*verdict.Reference, got *verdict.Snapshot, v check.Verdict) ([]*verdict.Reference, check.Verdict, error) {
	if slices.ContainsFunc(refs, func(r *verdict.Reference) bool { return r.Draws }) {
		return refs, verdict.Converges(w, refs, got, v.At), nil
	}
	other, err := DrawsReference(w, t, refs[0].Seed, p.Steps)
	if err != nil {
		return refs, v, err
	}
	refs = append(slices.Clip(refs), other)
	nv := verdict.Converges(w, refs, got, v.At)
	if nv.Holds {
		if _, names := FieldsDiffering(w, refs[0].Snap, other.Snap); len(names) > 0 {
			note := fmt.Sprintf("not compared, differs with the randomness alone (the fault-free run of seed %d with the operator's random draws from another seed): %s", refs[0].Seed, strings.Join(names, "; "))
			nv.Detail = strings.TrimPrefix(nv.Detail+"; "+note, "; ")
		}
	}
	return refs, nv, nil
}
