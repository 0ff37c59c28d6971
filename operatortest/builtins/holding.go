package builtins

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// KindSet is a set of kinds by group and kind; nil holds every kind.
type KindSet []schema.GroupKind

// Holds reports whether s holds gk.
func (s KindSet) Holds(gk schema.GroupKind) bool { return s == nil || slices.Contains(s, gk) }

// With is s holding gks too.
func (s KindSet) With(gks ...schema.GroupKind) KindSet {
	out := slices.Clone(s)
	if out == nil {
		out = KindSet{}
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
type Holding struct{ Kinds, Owned, Content KindSet }

// Holds reports whether the run holds objects of gk.
func (h *Holding) Holds(gk schema.GroupKind) bool { return h == nil || h.Kinds.Holds(gk) }

// With is h holding the kinds of more too.
func (h *Holding) With(more *Holding) *Holding {
	return &Holding{Kinds: h.Kinds.With(more.Kinds...), Owned: h.Owned.With(more.Owned...), Content: h.Content.With(more.Content...)}
}

func (h *Holding) String() string {
	if h == nil {
		return "every kind"
	}
	return fmt.Sprintf("kinds %v, owned %v, content %v", h.Kinds, h.Owned, h.Content)
}

// Seen are the kinds of every object in log and of every owner its
// objects named, in the order they first appear (Kinds); the kinds of the
// objects that named an owner or carried the orphan or foregroundDeletion
// finalizer, and the owners' kinds (Owned); and the kinds of the namespaced
// objects written in a namespace at or after its deletion began, or there
// when it began (Content).
func Seen(log []apiserver.Event) *Holding {
	out := &Holding{Kinds: KindSet{}, Owned: KindSet{}, Content: KindSet{}}
	nsGK := schema.GroupKind{Kind: "Namespace"}
	deleting := map[string]bool{}
	live := map[string]map[schema.GroupKind]bool{} // the kinds with an object in each namespace, until its deletion began
	for _, e := range log {
		gk := e.GVK.GroupKind()
		obj := e.Object
		out.Kinds = out.Kinds.With(gk)
		refs := obj.GetOwnerReferences()
		if len(refs) > 0 || slices.Contains(obj.GetFinalizers(), metav1.FinalizerOrphanDependents) ||
			slices.Contains(obj.GetFinalizers(), metav1.FinalizerDeleteDependents) {
			out.Owned = out.Owned.With(gk)
		}
		for _, ref := range refs {
			owner := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).GroupKind()
			out.Kinds = out.Kinds.With(owner)
			out.Owned = out.Owned.With(owner)
		}
		if gk == nsGK && obj.GetDeletionTimestamp() != nil && !deleting[obj.GetName()] {
			deleting[obj.GetName()] = true
			for _, k := range sortedKinds(live[obj.GetName()]) {
				out.Content = out.Content.With(k)
			}
		}
		if ns := obj.GetNamespace(); ns != "" {
			if deleting[ns] {
				out.Content = out.Content.With(gk)
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

// Missing are the kinds of seen that the run of held did not start a
// built-in controller for and that one would act on: an object's kind that
// triggers a workload model, the kubelet or the collector of the world's
// collected kinds (triggers), a kind with an owner relation (the collector),
// a kind in a deleting namespace (the namespace controller); the last two
// only when the collector and the namespace controller run (collectors).
// Nil: none.
func Missing(held, seen *Holding, triggers func() KindSet, collectors bool) *Holding {
	if held == nil || seen == nil {
		return nil
	}
	out := &Holding{}
	trig := triggers()
	for _, gk := range seen.Kinds {
		if !held.Kinds.Holds(gk) && slices.Contains(trig, gk) {
			out.Kinds = append(out.Kinds, gk)
		}
	}
	if collectors {
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
