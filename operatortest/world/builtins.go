package world

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

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

// The collector and the namespace controller are lazy in the same way, by
// what a kind's objects do rather than by their existence alone: a real
// kube-controller-manager collects every kind discovery lists and deletes
// every namespaced kind with its namespace, but the collector of a kind none
// of whose objects names an owner, carries the orphan or foregroundDeletion
// finalizer or is named as an owner never writes anything, and the namespace
// controller's list of a kind none of whose objects is in a deleting
// namespace finds nothing to delete. So a run collects, besides the world's
// own kinds (Collected), the kinds held for an owner relation (owned), and
// deletes with a namespace, besides Collected's namespaced kinds, the kinds
// held for an object in a deleting namespace (content): a run in which an
// object of another kind does either is run again with it held. The
// content held at first is every kind the world holds at first; the owned,
// those the probe saw in an owner relation: Events and leader-election
// Leases, which most operators write, start no collector of their own.

// kindSet is a set of kinds by group and kind; nil holds every kind.
type kindSet []schema.GroupKind

func (s kindSet) Holds(gk schema.GroupKind) bool { return s == nil || slices.Contains(s, gk) }

func (s kindSet) with(gks ...schema.GroupKind) kindSet {
	out := slices.Clone(s)
	if out == nil {
		out = kindSet{}
	}
	for _, gk := range gks {
		if !slices.Contains(out, gk) {
			out = append(out, gk)
		}
	}
	return out
}

// Holding are the kinds a run's built-in controllers start for: Kinds, the
// kinds of the objects the world may hold (the workload models, the kubelet,
// the collector of Collected's kinds); Owned, the kinds whose objects may
// name owners or be named as owners, or carry the collector's finalizers
// (the collector of every kind); Content, the kinds whose objects may be in
// a deleting namespace (the namespace controller's content). A nil Holding
// holds every kind: every controller, the collector and the namespace
// controller over Collected's kinds (and every CRD's).
type Holding struct{ Kinds, Owned, Content kindSet }

// Holds reports whether the run holds objects of gk.
func (h *Holding) Holds(gk schema.GroupKind) bool { return h == nil || h.Kinds.Holds(gk) }

// with is h holding the kinds of more too.
func (h *Holding) with(more *Holding) *Holding {
	return &Holding{Kinds: h.Kinds.with(more.Kinds...), Owned: h.Owned.with(more.Owned...), Content: h.Content.with(more.Content...)}
}

func (h *Holding) String() string {
	if h == nil {
		return "every kind"
	}
	return fmt.Sprintf("kinds %v, owned %v, content %v", h.Kinds, h.Owned, h.Content)
}

// seenKinds are the kinds of every object in log and of every owner its
// objects named, in the order they first appear (Kinds); the kinds of the
// objects that named an owner or carried the orphan or foregroundDeletion
// finalizer, and the owners' kinds (Owned); and the kinds of the namespaced
// objects written in a namespace at or after its deletion began, or there
// when it began (Content).
func seenKinds(log []apiserver.Event) *Holding {
	out := &Holding{Kinds: kindSet{}, Owned: kindSet{}, Content: kindSet{}}
	nsGK := schema.GroupKind{Kind: "Namespace"}
	deleting := map[string]bool{}
	live := map[string]map[schema.GroupKind]bool{} // the kinds with an object in each namespace, until its deletion began
	for _, e := range log {
		gk := e.GVK.GroupKind()
		obj := e.Object
		out.Kinds = out.Kinds.with(gk)
		refs := obj.GetOwnerReferences()
		if len(refs) > 0 || slices.Contains(obj.GetFinalizers(), metav1.FinalizerOrphanDependents) ||
			slices.Contains(obj.GetFinalizers(), metav1.FinalizerDeleteDependents) {
			out.Owned = out.Owned.with(gk)
		}
		for _, ref := range refs {
			owner := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).GroupKind()
			out.Kinds = out.Kinds.with(owner)
			out.Owned = out.Owned.with(owner)
		}
		if gk == nsGK && obj.GetDeletionTimestamp() != nil && !deleting[obj.GetName()] {
			deleting[obj.GetName()] = true
			for _, k := range sortedKinds(live[obj.GetName()]) {
				out.Content = out.Content.with(k)
			}
		}
		if ns := obj.GetNamespace(); ns != "" {
			if deleting[ns] {
				out.Content = out.Content.with(gk)
			} else if e.Type != watch.Deleted {
				if live[ns] == nil {
					live[ns] = map[schema.GroupKind]bool{}
				}
				live[ns][gk] = true
			}
		}
	}
	return out
}

// sortedKinds are the kinds of set, by group and kind.
func sortedKinds(set map[schema.GroupKind]bool) []schema.GroupKind {
	out := make([]schema.GroupKind, 0, len(set))
	for gk := range set { // lint:order-independent sorted below
		out = append(out, gk)
	}
	slices.SortFunc(out, func(a, b schema.GroupKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind))
	})
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

// missing are the kinds of seen that the run of held did not start a
// built-in controller for and that one would act on: an object's kind that
// triggers a workload model, the kubelet or the collector of Collected's
// kinds, a kind with an owner relation (the collector), a kind in a deleting
// namespace (the namespace controller). Nil: none.
func (w *World) missing(held, seen *Holding) *Holding {
	if held == nil || seen == nil {
		return nil
	}
	out := &Holding{}
	trig := w.triggers()
	for _, gk := range seen.Kinds {
		if !held.Kinds.Holds(gk) && slices.Contains(trig, gk) {
			out.Kinds = append(out.Kinds, gk)
		}
	}
	if !w.Opts.NoBuiltinControllers {
		for _, gk := range seen.Owned {
			if !held.Owned.Holds(gk) {
				out.Owned = append(out.Owned, gk)
			}
		}
		for _, gk := range seen.Content {
			if !held.Content.Holds(gk) {
				out.Content = append(out.Content, gk)
			}
		}
	}
	if len(out.Kinds)+len(out.Owned)+len(out.Content) == 0 {
		return nil
	}
	return out
}

// startingKinds are the kinds a run holds at first (see above): computed
// once per world, with one probe run.
func (w *World) startingKinds(t *testing.T) (*Holding, error) {
	if w.Held != nil {
		return w.Held, nil
	}
	held := &Holding{Kinds: kindSet{}, Owned: kindSet{}, Content: kindSet{}}
	for _, gvk := range w.Kinds {
		held.Kinds = held.Kinds.with(gvk.GroupKind())
	}
	for _, c := range w.CRDs {
		held.Kinds = held.Kinds.with(c.GVK.GroupKind())
	}
	other := w.OtherDraws // the probe draws as every run does by default, whichever run first needs it
	w.OtherDraws = false
	_, seen, err := w.RunHeld(t, &plan.Plan{Seed: 1}, Judging{}, 0, nil)
	w.OtherDraws = other
	if err != nil {
		return nil, err
	}
	w.Held = held.with(seen)
	// The namespace controller deletes every kind the world holds from the
	// start, as upstream lists every kind at each pass: a plan that deletes
	// a namespace runs once, not twice (its lists of empty kinds are cheap).
	w.Held.Content = w.Held.Content.with(w.Held.Kinds...)
	return w.Held, nil
}
