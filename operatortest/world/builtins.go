package world

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/builtins"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The built-in controllers a world starts are package builtins's: only
// those of the kinds a run may hold (Holding), a run in which another kind
// appears run again with it held (RunPlan). The kinds held at first are the
// world's own and those the probe's objects had (startingKinds).

// Holding are the kinds a run's built-in controllers start for
// (builtins.Holding; nil: every kind).
type Holding = builtins.Holding

// triggers are the kinds that make some built-in controller of w act: the
// workload models' and the kubelet's watched kinds, and the collected kinds.
func (w *World) triggers() builtins.KindSet {
	out := builtins.KindSet{}
	if !w.Opts.NoWorkloadModels {
		for _, m := range kubeworld.Models() {
			out = out.With(m.Triggers...)
		}
		out = out.With(kubeworld.KubeletTriggers...)
	}
	if !w.Opts.NoBuiltinControllers {
		for _, gvk := range w.Collected {
			out = out.With(gvk.GroupKind())
		}
	}
	return out
}

// startingKinds are the kinds a run holds at first (package builtins's
// doc): computed once per world, with one probe run.
func (w *World) startingKinds(t *testing.T) (*Holding, error) {
	if w.Held != nil {
		return w.Held, nil
	}
	held := &Holding{Kinds: builtins.KindSet{}, Owned: builtins.KindSet{}, Content: builtins.KindSet{}}
	for _, gvk := range w.Kinds {
		held.Kinds = held.Kinds.With(gvk.GroupKind())
	}
	for _, c := range w.CRDs {
		held.Kinds = held.Kinds.With(c.GVK.GroupKind())
	}
	if !w.Opts.NoBuiltinControllers { // every namespace's content, which the probe does not make
		held.Kinds = held.Kinds.With(builtins.NamespaceContent...)
	}
	other := w.OtherDraws // the probe draws as every run does by default, whichever run first needs it
	w.OtherDraws = false
	_, seen, err := w.RunHeld(t, &plan.Plan{Seed: 1}, Judging{}, 0, nil)
	w.OtherDraws = other
	if err != nil {
		return nil, err
	}
	w.Held = held.With(seen)
	// The namespace controller deletes every kind the world holds from the
	// start, as upstream lists every kind at each pass: a plan that deletes
	// a namespace runs once, not twice (its lists of empty kinds are cheap).
	w.Held.Content = w.Held.Content.With(w.Held.Kinds...)
	return w.Held, nil
}
