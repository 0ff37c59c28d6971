package verdict

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// RunEnd is what the blame rule reads of one run: a name for it ("the
// fault-free run with seed 2048") and the server's log of every committed
// version (only the events' kind, type and metadata are read: a log of
// metav1.PartialObjectMetadata does). Key names an object of the log as the
// key given ShowsTheBug names it (nil: as the trace names it, "Kind
// namespace/name", canon.ObjectKey of its own name); two runs that name their
// generated objects apart (a Job's generateName) pass the canonical name by
// which their end states were compared.
type RunEnd struct {
	Name string
	Log  []apiserver.Event
	Key  func(apiserver.Event) string
}

// key is ev's name in the run, as ShowsTheBug's key names objects.
func (r RunEnd) key(ev apiserver.Event) string {
	if r.Key != nil {
		return r.Key(ev)
	}
	return canon.ObjectKey(ev.GVK.Kind, ev.Object.GetNamespace(), ev.Object.GetName())
}

// ShowsTheBug picks, of two runs of one workload whose end states differ on
// the object key ("Kind namespace/name", canon.ObjectKey), the one that shows the
// bug, by the rules the verdicts judge a run by. A deletion completes
// (terminates): a run that ends with key still being deleted while the other
// deleted it shows the bug. A child follows its owner: the objects of key's
// kind that key's owner owns are made once per incarnation of the owner, and
// exist at the end exactly while the owner does. A run breaks that rule when
// it made more of them for one incarnation of the owner than the other run
// did (a second Job for one owner, after a stale read), or when at its end
// key exists with its owner gone, or is missing with its owner there while
// the other run has it (a child not made again for a re-created owner).
// Counting creations alone would blame the run that handled a re-created
// owner correctly: it made the child twice, once per incarnation.
//
// It returns the index of the run that shows the bug (0 or 1) and why, or -1
// and "" when the rules do not tell them apart (key is not being deleted at
// either end and has no owner in either run, or both runs break them alike).
func ShowsTheBug(key string, runs [2]RunEnd) (int, string) {
	var stuck [2]bool
	for r, run := range runs {
		stuck[r] = deletingAtEnd(run, key)
	}
	for r, run := range runs {
		if stuck[r] && !stuck[1-r] && !existsAtEnd(runs[1-r], key) {
			return r, fmt.Sprintf("%s ends with %s still being deleted, which %s deleted: a deletion completes", run.Name, key, runs[1-r].Name)
		}
	}
	owner, ok := ownerOf(key, runs)
	if !ok {
		return -1, ""
	}
	kind, _, _ := strings.Cut(key, " ")
	ns := namespaceOf(key)
	// (a) More children of the kind for one incarnation of the owner.
	var most [2]int
	for r, run := range runs {
		per := map[string]int{} // owner uid -> children made
		for _, ev := range run.Log {
			if ev.Type != watch.Added || ev.GVK.Kind != kind || ev.Object.GetNamespace() != ns {
				continue
			}
			for _, ref := range ev.Object.GetOwnerReferences() {
				if ref.Kind == owner.Kind && ref.Name == owner.Name {
					per[string(ref.UID)]++
					most[r] = max(most[r], per[string(ref.UID)])
				}
			}
		}
	}
	ownerKey := owner.Kind + " " + joinName(ns, owner.Name)
	if !ownerNamespaced(owner, runs) {
		ownerKey = owner.Kind + " " + owner.Name
	}
	if most[0] != most[1] && max(most[0], most[1]) > 1 {
		r := 0
		if most[1] > most[0] {
			r = 1
		}
		return r, fmt.Sprintf("%s made %d %ss for one incarnation of %s, %s %d: a child is made once per incarnation of its owner",
			runs[r].Name, most[r], kind, ownerKey, runs[1-r].Name, most[1-r])
	}
	// (b) At the end: key exists exactly while its owner does.
	var why [2]string
	for r, run := range runs {
		child, parent := existsAtEnd(run, key), ownerAtEnd(run.Log, owner, ns)
		switch {
		case child && !parent:
			why[r] = fmt.Sprintf("%s left %s behind after its owner %s was deleted", run.Name, key, ownerKey)
		case !child && parent && existsAtEnd(runs[1-r], key):
			why[r] = fmt.Sprintf("%s ends with %s there and %s missing, which %s made for it", run.Name, ownerKey, key, runs[1-r].Name)
		}
	}
	switch {
	case why[0] != "" && why[1] == "":
		return 0, why[0]
	case why[1] != "" && why[0] == "":
		return 1, why[1]
	}
	return -1, ""
}

// ownerOf is key's owner as a version of key in either run names it: its
// controller reference, else its first owner reference.
func ownerOf(key string, runs [2]RunEnd) (metav1.OwnerReference, bool) {
	var first *metav1.OwnerReference
	for _, run := range runs {
		for _, ev := range run.Log {
			if run.key(ev) != key {
				continue
			}
			for _, ref := range ev.Object.GetOwnerReferences() {
				if ref.Controller != nil && *ref.Controller {
					return ref, true
				}
				if first == nil {
					first = &ref
				}
			}
		}
	}
	if first == nil {
		return metav1.OwnerReference{}, false
	}
	return *first, true
}

// existsAtEnd reports whether the run's last version of key is not a deletion.
func existsAtEnd(run RunEnd, key string) bool {
	exists := false
	for _, ev := range run.Log {
		if run.key(ev) == key {
			exists = ev.Type != watch.Deleted
		}
	}
	return exists
}

// deletingAtEnd reports whether the run's last version of key exists with a
// deletionTimestamp: a deletion that never completed.
func deletingAtEnd(run RunEnd, key string) bool {
	deleting := false
	for _, ev := range run.Log {
		if run.key(ev) == key {
			deleting = ev.Type != watch.Deleted && ev.Object.GetDeletionTimestamp() != nil
		}
	}
	return deleting
}

// ownerAtEnd reports whether the log's last version of owner (by its kind
// and name, in namespace ns or cluster-scoped: an owner's name is its own,
// not generated by the run) is not a deletion.
func ownerAtEnd(log []apiserver.Event, owner metav1.OwnerReference, ns string) bool {
	exists := false
	for _, ev := range log {
		if ev.GVK.Kind == owner.Kind && ev.Object.GetName() == owner.Name && (ev.Object.GetNamespace() == ns || ev.Object.GetNamespace() == "") {
			exists = ev.Type != watch.Deleted
		}
	}
	return exists
}

// ownerNamespaced reports whether owner is in either run's log in a
// namespace (else it is cluster-scoped, or in neither log).
func ownerNamespaced(owner metav1.OwnerReference, runs [2]RunEnd) bool {
	for _, run := range runs {
		for _, ev := range run.Log {
			if ev.GVK.Kind == owner.Kind && ev.Object.GetName() == owner.Name {
				return ev.Object.GetNamespace() != ""
			}
		}
	}
	return true
}

func namespaceOf(key string) string {
	_, obj, _ := strings.Cut(key, " ")
	if ns, _, ok := strings.Cut(obj, "/"); ok {
		return ns
	}
	return ""
}

func joinName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
