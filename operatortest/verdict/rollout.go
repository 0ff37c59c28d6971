package verdict

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// A rollout's race with the operator's pace: the user edits a value the
// operator writes into a pod template (a database's version), and an
// operator slowed by a fault (its cache behind the edit) writes its
// StatefulSet with the template of the old value first, as the fault-free
// run did too, and the new one only later. In the fault-free run the new
// template came before the StatefulSet controller made a pod; slowed, it
// came after, and the controller replaced the pod made from the old
// template with one of the new (a rolling update): one lifetime more of
// the pod's name, with the same templates written in the same order, the
// end the same. An operator that rolls pods for nothing (a restart that
// deletes them, a template that flips back and forth) makes a lifetime
// that is not such a replacement, or writes templates the fault-free run
// never wrote in that order, and is still counted.

// podLife is one ended lifetime of an object its controller owner made
// from its pod template: the owner (by key), the owner's template when the
// object was made and when it went (canonical; "" when the owner was not
// seen).
type podLife struct {
	owner, made, gone string
}

// rolloutsOf reads, from a run's watch log, the ended lifetimes of pods
// whose controller owner holds a pod template (by the pod's key) and the
// templates each such owner held, in order, each once where it changed.
func rolloutsOf(s *Snapshot, log []apiserver.Event) (ended map[string][]podLife, templates map[string][]string) {
	owners := map[types.UID]bool{}
	for _, ev := range log {
		if p, ok := ev.Object.(*corev1.Pod); ok {
			if ref := metav1.GetControllerOf(p); ref != nil {
				owners[ref.UID] = true
			}
		}
	}
	if len(owners) == 0 {
		return nil, nil
	}
	ended, templates = map[string][]podLife{}, map[string][]string{}
	type held struct {
		key, template string
		generation    int64
	}
	now := map[types.UID]*held{}    // each owner's template now
	made := map[types.UID]podLife{} // each live pod's owner and template at its making
	for _, ev := range log {
		o := ev.Object
		if owners[o.GetUID()] && ev.Type != watch.Deleted {
			h := now[o.GetUID()]
			if h == nil || h.generation != o.GetGeneration() {
				// A spec write: the template may have changed.
				key := s.Key(ev.GVK, o)
				t := ""
				if m, ok := s.Normalize(ev.GVK, o).(map[string]any); ok {
					if spec, ok := m["spec"].(map[string]any); ok && spec["template"] != nil {
						t = canon.Encode(spec["template"])
					}
				}
				now[o.GetUID()] = &held{key: key, template: t, generation: o.GetGeneration()}
				if seq := templates[key]; t != "" && (len(seq) == 0 || seq[len(seq)-1] != t) {
					templates[key] = append(seq, t)
				}
			}
		}
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			continue
		}
		ref := metav1.GetControllerOf(p)
		if ref == nil {
			continue
		}
		switch ev.Type {
		case watch.Added:
			l := podLife{}
			if h := now[ref.UID]; h != nil {
				l.owner, l.made = h.key, h.template
			}
			made[p.UID] = l
		case watch.Deleted:
			l, ok := made[p.UID]
			delete(made, p.UID)
			if !ok || l.owner == "" {
				continue
			}
			if h := now[ref.UID]; h != nil {
				l.gone = h.template
			}
			k := s.Key(ev.GVK, p)
			ended[k] = append(ended[k], l)
		}
	}
	return ended, templates
}

// rolled reports whether got's changes g of object k, against the most of
// any fault-free run, are one lifetime more ended by a rollout that the
// operator's pace decided: a lifetime of k made from its owner's template
// and gone when the owner held another, the last deletion at or after the
// workload's first edit, and the templates the owner held in this run held
// in that order by the owner in a fault-free run too.
func rolled(k string, g, most createsDeletes, got *Snapshot, refs []*Reference) bool {
	if g.Creates != most.Creates+1 || g.deletes != most.deletes+1 || got.userEdited < 0 || g.deleted < got.userEdited {
		return false
	}
	i := slices.IndexFunc(got.ended[k], func(l podLife) bool { return l.made != "" && l.gone != "" && l.made != l.gone })
	if i < 0 {
		return false
	}
	seq := got.templates[got.ended[k][i].owner]
	return slices.ContainsFunc(refs, func(r *Reference) bool { return subsequence(seq, r.Snap.templates[got.ended[k][i].owner]) })
}

// subsequence reports whether a's items are in b, in a's order.
func subsequence(a, b []string) bool {
	j := 0
	for _, x := range b {
		if j < len(a) && a[j] == x {
			j++
		}
	}
	return j == len(a)
}
