package verdict

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// The cluster's back-off: the table's cluster-backoff (excuses.go). A key
// that a controller of the cluster holds in back-off at the end (check.Run's
// Backoffs) may be retried minutes past the heal budget (client-go's per-item
// back-off doubles to 1000 s), though the churn that failed it has gone.

// backoffFree are the objects converges does not compare at all (whole) and
// those whose status it does not compare, by key.
type backoffFree struct{ whole, status map[string]bool }

// BackoffFree reads got's Backoffs against got's end and the references'.
func BackoffFree(refs []*Reference, got *Snapshot) backoffFree {
	snaps := []*Snapshot{got}
	for _, r := range refs {
		snaps = append(snaps, r.Snap)
	}
	return backoffOf(got.Backoffs, snaps)
}

// AgreeFree is the cluster's back-off of two fault-free runs that
// interleavings-agree compares: the Backoffs of either, read against both
// ends. skip are the objects not compared (ClusterBackoff the why), free
// the status paths of the others, by key, in either run.
func AgreeFree(w *world.World, x, y *Snapshot) (skip map[string]string, free map[string]map[string]bool) {
	bf := backoffOf(append(slices.Clip(x.Backoffs), y.Backoffs...), []*Snapshot{x, y})
	skip, free = map[string]string{}, map[string]map[string]bool{}
	for k := range bf.whole { // lint:order-independent a map is filled
		skip[k] = ClusterBackoff
	}
	for _, s := range []*Snapshot{x, y} {
		for _, gvk := range s.Kinds {
			for k, v := range s.Of(gvk).Value { // lint:order-independent a set is filled
				if bf.status[k] {
					paths := map[string]string{}
					statusPaths(w.Shapes.For(gvk), paths, v)
					if free[k] == nil {
						free[k] = map[string]bool{}
					}
					for p := range paths { // lint:order-independent a set is filled
						free[k][p] = true
					}
				}
			}
		}
	}
	return skip, free
}

// backoffOf reads backoffs against the ends of snaps.
func backoffOf(backoffs []check.Backoff, snaps []*Snapshot) backoffFree {
	out := backoffFree{whole: map[string]bool{}, status: map[string]bool{}}
	for _, b := range backoffs {
		ns, name, ok := strings.Cut(b.Key, "/")
		if !ok {
			ns, name = "", b.Key
		}
		owned := func(ref metav1.OwnerReference) bool {
			gv, _, _ := strings.Cut(ref.APIVersion, "/")
			return ref.Kind == b.Kind.Kind && ref.Name == name && (gv == b.Kind.Group || b.Kind.Group == "" && ref.APIVersion == "v1")
		}
		for _, s := range snaps {
			for _, gvk := range s.Kinds {
				for _, o := range s.Raw[gvk] {
					switch {
					case o.GetNamespace() != ns:
					case gvk.GroupKind() == b.Kind && o.GetName() == name:
						for _, k := range append(ownersOf(s, o), s.Key(gvk, o)) {
							out.status[k] = true
						}
					case slices.ContainsFunc(o.GetOwnerReferences(), owned):
						out.whole[s.Key(gvk, o)] = true
					}
				}
			}
		}
	}
	return out
}

// ownersOf are the keys of o's owners in s, and of theirs, up the chain.
func ownersOf(s *Snapshot, o client.Object) []string {
	var out []string
	for next := []client.Object{o}; len(next) > 0; next = next[1:] {
		for _, ref := range next[0].GetOwnerReferences() {
			for _, gvk := range s.Kinds {
				for _, owner := range s.Raw[gvk] {
					if k := s.Key(gvk, owner); gvk.Kind == ref.Kind && owner.GetUID() == ref.UID && !slices.Contains(out, k) {
						out = append(out, k)
						next = append(next, owner)
					}
				}
			}
		}
	}
	return out
}

// statusPaths marks in free every path of v under status, and status.
func statusPaths(sh canon.Shape, free map[string]string, v any) {
	for p := range Flatten(sh, v) { // lint:order-independent a set is filled
		if p == "status" || strings.HasPrefix(p, "status.") || strings.HasPrefix(p, "status[") {
			for q := p; q != ""; q = parentPath(q) {
				free[q] = ClusterBackoff
			}
		}
	}
}
