package world

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The built-in controllers a world starts. A real kube-controller-manager
// runs every controller, but a controller none of whose watched kinds ever
// has an object never reconciles anything: its informers stay empty, its
// workers wait. Starting it only costs start-up (a builder, sources,
// informers, workers: most of a small operator's plan). So a run starts the
// workload models, the kubelet and the garbage collector's controllers only
// for the kinds the world may hold (held), and checks afterwards that it was
// so: a run in which an object of another kind appeared, or an object named
// an owner of another kind (the collector of that kind would have queued it),
// is run again with those kinds held, until none is missing. A run's result
// is thus the run with every controller that acts in it, a function of its
// plan alone; it differs from the run with every controller only in the
// start-up lines of the idle ones and in the schedule's draws that picking
// among their starting workers took.
//
// The kinds held at first are the world's own (its CRDs', its objects' and its
// script's) and those of every object the probe, the fault-free run of the
// seed objects alone with every controller, made: the kinds the operator
// makes with no workload, so that most runs need no second run.

// kindSet is a set of kinds by group and kind; nil holds every kind.
type kindSet []schema.GroupKind

func (s kindSet) Holds(gk schema.GroupKind) bool { return s == nil || slices.Contains(s, gk) }

func (s kindSet) with(gks ...schema.GroupKind) kindSet {
	out := slices.Clone(s)
	for _, gk := range gks {
		if !slices.Contains(out, gk) {
			out = append(out, gk)
		}
	}
	return out
}

// seenKinds are the kinds of every object in log and of every owner its
// objects named, in the order they first appear.
func seenKinds(log []apiserver.Event) kindSet {
	out := kindSet{}
	for _, e := range log {
		out = out.with(e.GVK.GroupKind())
		for _, ref := range e.Object.GetOwnerReferences() {
			out = out.with(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).GroupKind())
		}
	}
	return out
}

// triggers are the kinds that make some built-in controller of w act: the
// workload models' and the kubelet's watched kinds, and the collected kinds.
func (w *World) triggers() kindSet {
	out := kindSet{}
	if !w.Opts.NoWorkloadModels {
		for _, m := range kubeworld.Models() {
			out = out.with(m.Triggers...)
		}
		out = out.with(kubeworld.KubeletTriggers...)
	}
	if !w.Opts.NoBuiltinControllers {
		for _, gvk := range w.Collected {
			out = out.with(gvk.GroupKind())
		}
	}
	return out
}

// missing are the kinds of seen that trigger a built-in controller the run
// of held did not start.
func (w *World) missing(held, seen kindSet) kindSet {
	var out kindSet
	trig := w.triggers()
	for _, gk := range seen {
		if !held.Holds(gk) && slices.Contains(trig, gk) {
			out = append(out, gk)
		}
	}
	return out
}

// startingKinds are the kinds a run holds at first (see above): computed
// once per world, with one probe run.
func (w *World) startingKinds(t *testing.T) (kindSet, error) {
	if w.Held != nil {
		return w.Held, nil
	}
	held := kindSet{}
	for _, gvk := range w.Kinds {
		held = held.with(gvk.GroupKind())
	}
	for _, c := range w.CRDs {
		held = held.with(c.GVK.GroupKind())
	}
	other := w.OtherDraws // the probe draws as every run does by default, whichever run first needs it
	w.OtherDraws = false
	_, seen, err := w.RunHeld(t, &plan.Plan{Seed: 1}, Judging{}, 0, nil)
	w.OtherDraws = other
	if err != nil {
		return nil, err
	}
	w.Held = held.with(seen...)
	return w.Held, nil
}
