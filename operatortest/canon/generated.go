package canon

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Generated names, named by the object they name. The apiserver draws a
// generated name's suffix at random, so two runs of one workload give the same
// object two names; what is deterministic on a real cluster is which object a
// reference names. A generated name is therefore canonicalised by the
// identity of the object, not by when it was made:
//
//   - an object still there at the end of the run is named by its canonical
//     prefix and its place among the live objects of its kind, namespace and
//     prefix ("nightly-*", "nightly-*2"), ordered by their owners (kind, name
//     and whether the owner is still there: the same in every run of the
//     workload) and only then by creation;
//   - an object deleted by the end is named by its place among the deleted
//     ones of its prefix, in creation order ("nightly-*deleted",
//     "nightly-*deleted2"); a reference to one, wherever it appears, is a
//     reference to an object gone ("nightly-*deleted" whichever it was):
//     how many the operator made and deleted (a temporary made again
//     after a crash cut the reconcile that made it, a request retried
//     under a stale view) is its retries', and so is which of them it
//     last named.
//
// Counting every object ever made with the prefix (the place in creation
// order) would name the same live object "nightly-*3" in a run where the
// operator made two children before the user's delete and re-create landed,
// and "nightly-*2" where it made one: how many were made before it races with
// the user's steps, which one is live does not (the false alarm of
// examples/patterns' generate-name pattern).
//
// A prefix that holds another generated name (a Job's pods, "<job name>-")
// is canonicalised first: the name it holds becomes that object's canonical
// Name, so that the pods of two Jobs are told apart by their Job. Names nest
// by depth (a prefix holds only names made before it), so the names of a
// depth are decided before the prefixes of the next.

// madeObj is one object of a run's watch log: how it was made, its last
// owners and whether it is gone at the end.
type madeObj struct {
	uid                  types.UID
	kind, ns, name, gen  string
	owners               []types.UID // the owner references' uids, as last seen
	ownerKinds, ownerRef []string    // their kinds and names, alike
	gone                 bool
	order                int // place in the log's creations
	// hash: for a name a built-in controller made from a hash of what it
	// holds (hashNamed), the hash, which its labels and selectors carry too,
	// and content, a digest of what it holds.
	hash, content string
}

// hashLabels are the labels in which kube-controller-manager's controllers
// carry the hash they name an object by, with the field the hash covers: a
// Deployment's ReplicaSets ("<deployment>-<pod-template-hash>", a hash of
// spec.template) and a StatefulSet's or DaemonSet's ControllerRevisions
// ("<set>-<hash>", a hash of data). The hash also covers a collision
// count, which counts the names an earlier object of the same template
// still held: how many that was races with the garbage collector, so the
// hash is a draw as a generated suffix is. What the object holds is not: it
// is named by it (its content, below), not by the hash.
var hashLabels = []struct{ label, covers string }{
	{"pod-template-hash", "spec.template"},
	{"controller.kubernetes.io/hash", "data"},
}

// hashNamed is the prefix and hash of an object named by such a hash, and a
// digest of what the hash covers, canonical (digestOf: the hash itself cut
// out of it, a ReplicaSet's template carries its own pod-template-hash
// label; a restart time in it masked).
func hashNamed(o client.Object, d *digests) (prefix, hash, content string) {
	for _, k := range hashLabels {
		h := o.GetLabels()[k.label]
		if h == "" || !strings.HasSuffix(o.GetName(), "-"+h) {
			continue
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return "", "", ""
		}
		covered, _, _ := unstructured.NestedFieldNoCopy(u, strings.Split(k.covers, ".")...)
		digest, ok := digestOf(covered, h, d)
		if !ok {
			return "", "", ""
		}
		return strings.TrimSuffix(o.GetName(), h), h, digest
	}
	return "", "", ""
}

// generated reports whether the object's name was drawn from its
// generateName by the apiserver (or from a hash by a built-in controller:
// hashNamed). A name the client set is not, though the object carries a
// generateName too: kube-controller-manager gives a StatefulSet's pods both,
// and names each by its ordinal. The apiserver appends five characters of
// its alphabet to the generateName, cut to 58 (k8s.io/apiserver's
// names.SimpleNameGenerator), and nothing else is such a name.
func (m *madeObj) generated() bool {
	if m.hash != "" {
		return strings.HasPrefix(m.name, m.gen) && len(m.name) > len(m.gen)
	}
	const alphabet, maxBase = "bcdfghjklmnpqrstvwxz2456789", 63 - 5
	base := m.gen
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	suffix, ok := strings.CutPrefix(m.name, base)
	return m.gen != "" && ok && len(suffix) == 5 && strings.Trim(suffix, alphabet) == ""
}

// madeIn reads the objects of a watch log, in creation order.
func madeIn(log []apiserver.Event, d *digests) []*madeObj {
	var out []*madeObj
	byUID := map[types.UID]*madeObj{}
	for _, ev := range log {
		o := ev.Object
		uid := o.GetUID()
		if uid == "" {
			continue
		}
		m, ok := byUID[uid]
		if !ok {
			if ev.Type != watch.Added {
				continue
			}
			m = &madeObj{uid: uid, kind: ev.GVK.Kind, ns: o.GetNamespace(), name: o.GetName(), gen: o.GetGenerateName(), order: len(out)}
			if m.gen == "" {
				m.gen, m.hash, m.content = hashNamed(o, d)
			}
			byUID[uid] = m
			out = append(out, m)
		}
		m.owners, m.ownerKinds, m.ownerRef = nil, nil, nil
		for _, r := range o.GetOwnerReferences() {
			m.owners = append(m.owners, r.UID)
			m.ownerKinds = append(m.ownerKinds, r.Kind)
			m.ownerRef = append(m.ownerRef, r.Name)
		}
		if ev.Type == watch.Deleted {
			m.gone = true
		}
	}
	return out
}

// generatedNames names every object of made with a generated name (uid ->
// canonical name), and returns the pairs (full name, canonical name) that
// replace its name wherever it occurs.
func generatedNames(made []*madeObj) (map[types.UID]string, [][2]string) {
	byUID := map[types.UID]*madeObj{}
	var gen []*madeObj
	for _, m := range made {
		byUID[m.uid] = m
		if m.generated() {
			gen = append(gen, m)
		}
	}
	// structural is a prefix with each generated name it holds (made before
	// it) as "<its structural prefix>*": no place in it, so it can be read in
	// creation order; it gives the depth and the owners' sort key.
	structural := map[types.UID]string{}
	depth := map[types.UID]int{}
	holds := map[types.UID][]*madeObj{} // the generated names a prefix holds, longest first
	for i, m := range gen {
		var in []*madeObj
		for _, e := range gen[:i] {
			if strings.Contains(m.gen, e.name) {
				in = append(in, e)
			}
		}
		slices.SortStableFunc(in, func(a, b *madeObj) int { return len(b.name) - len(a.name) })
		holds[m.uid] = in
		s, d := m.gen, 0
		for _, e := range in {
			if strings.Contains(s, e.name) {
				s = strings.ReplaceAll(s, e.name, structural[e.uid]+"*")
				d = max(d, depth[e.uid]+1)
			}
		}
		structural[m.uid], depth[m.uid] = s, d
	}
	// ownerKey orders the live objects of one prefix by who owns them: a
	// generated owner by its structural name, a gone owner marked so.
	ownerKey := func(m *madeObj) string {
		var parts []string
		for i, u := range m.owners {
			name := m.ownerRef[i]
			o, ok := byUID[u]
			switch {
			case !ok:
				name += " (unknown)"
			case o.generated():
				name = structural[o.uid] + "*"
			}
			if ok && o.gone {
				name += " (gone)"
			}
			parts = append(parts, m.ownerKinds[i]+" "+name)
		}
		slices.Sort(parts)
		return strings.Join(parts, ",")
	}
	names := map[types.UID]string{}
	var pairs [][2]string
	maxDepth := 0
	for _, m := range gen {
		maxDepth = max(maxDepth, depth[m.uid])
	}
	for d := 0; d <= maxDepth; d++ {
		groups := map[string][]*madeObj{} // "Kind ns/canonical prefix" -> its objects
		var order []string
		for _, m := range gen {
			if depth[m.uid] != d {
				continue
			}
			prefix := m.gen
			for _, e := range holds[m.uid] {
				prefix = strings.ReplaceAll(prefix, e.name, names[e.uid])
			}
			k := m.kind + " " + m.ns + "/" + prefix
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], m)
		}
		for _, k := range order {
			members := groups[k]
			_, prefix, _ := strings.Cut(k, "/")
			var live, gone []*madeObj
			for _, m := range members {
				if m.gone {
					gone = append(gone, m)
				} else {
					live = append(live, m)
				}
			}
			// A live object named by a hash is named by what it holds
			// ("web-*[1a2b3c4d]"), and then by its owners and its place among
			// the live ones that hold the same: which templates a set's
			// controller made, and so how many objects of the prefix are
			// kept as its history, races with the user's edits (an operator
			// that saw an intermediate spec wrote one template more), while
			// the object that holds the current template does not.
			// Among those that hold the same, the newest is named first: a
			// reference at rest names the newest (a set's current
			// revision), and how many of the same content came before it
			// (a restart stamped twice, its time masked) races with the
			// user's edits as the other templates do.
			slices.SortStableFunc(live, func(a, b *madeObj) int {
				byOrder := a.order - b.order
				if a.hash != "" && b.hash != "" && a.content == b.content {
					byOrder = b.order - a.order
				}
				return cmp.Or(strings.Compare(a.content, b.content), strings.Compare(ownerKey(a), ownerKey(b)), byOrder)
			})
			for i, m := range live {
				if m.hash != "" {
					same := 0
					for _, e := range live[:i] {
						if e.content == m.content {
							same++
						}
					}
					names[m.uid] = prefix + "*[" + m.content + "]" + place(same)
					continue
				}
				names[m.uid] = prefix + "*" + place(i)
			}
			for i, m := range gone {
				names[m.uid] = prefix + "*deleted" + place(i)
			}
			// A name a live object holds names it, whatever gone object held
			// it before (a ReplicaSet of the same template and collision
			// count is named as the one the collector deleted).
			liveName := map[string]bool{}
			for _, m := range live {
				liveName[m.name] = true
			}
			for _, m := range append(live, gone...) {
				if m.gone && liveName[m.name] {
					continue
				}
				ref := names[m.uid]
				if m.gone && m.hash == "" {
					// A reference to a deleted one names an object gone,
					// not which: how many the operator made and deleted
					// (a temporary made again after a crash, a request
					// retried) is its retries', and which of them a live
					// object last named with it.
					ref = prefix + "*deleted"
				}
				pairs = append(pairs, [2]string{m.name, ref})
				if m.hash != "" {
					pairs = append(pairs, [2]string{m.hash, "<hash of " + names[m.uid] + ">"})
				}
			}
		}
	}
	return names, pairs
}

// place is the suffix of the i-th (from 0) object of a prefix: none for the
// first, then 2, 3, ...
func place(i int) string {
	if i == 0 {
		return ""
	}
	return strconv.Itoa(i + 1)
}
