package story

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// RunEnd is what the blame rule reads of one run: a name for it ("the
// fault-free run with seed 2048") and the server's log of every committed
// version.
type RunEnd struct {
	Name string
	Log  []apiserver.Event
}

// ShowsTheBug picks, of two runs of one workload whose end states differ on
// the object key (ObjectKey's "Kind namespace/name"), the one that shows the
// bug, by one rule: a child follows its owner. The objects of key's kind that
// key's owner owns are made once per incarnation of the owner, and exist at
// the end exactly while the owner does. A run breaks the rule when it made
// more of them for one incarnation of the owner than the other run did (a
// second Job for one owner, after a stale read), or when at its end key
// exists with its owner gone, or is missing with its owner there while the
// other run has it (a child not made again for a re-created owner). Counting
// creations alone would blame the run that handled a re-created owner
// correctly: it made the child twice, once per incarnation.
//
// It returns the index of the run that shows the bug (0 or 1) and why, or -1
// and "" when the rule does not tell them apart (key has no owner in either
// run, or both runs break it alike).
func ShowsTheBug(key string, runs [2]RunEnd) (int, string) {
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
		child, parent := existsAtEnd(run.Log, key), existsAtEnd(run.Log, ownerKey) || existsAtEnd(run.Log, owner.Kind+" "+owner.Name)
		switch {
		case child && !parent:
			why[r] = fmt.Sprintf("%s left %s behind after its owner %s was deleted", run.Name, key, ownerKey)
		case !child && parent && existsAtEnd(runs[1-r].Log, key):
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
			if ObjectKey(ev) != key {
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

// existsAtEnd reports whether the log's last version of key is not a deletion.
func existsAtEnd(log []apiserver.Event, key string) bool {
	exists := false
	for _, ev := range log {
		if ObjectKey(ev) == key {
			exists = ev.Type != watch.Deleted
		}
	}
	return exists
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
