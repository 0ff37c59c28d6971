package verdict

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
)

// The cluster's back-off: what converges does not hold a run to while one of
// the cluster's own controllers is still retrying.
//
// kube-controller-manager's controllers retry a failed sync with client-go's
// per-item back-off, 5 ms doubled at each failure in a row up to 1000 s. A
// fault that makes the cluster churn (a stale operator re-creating a
// StatefulSet the collector deletes, its pods still terminating when the set
// is made again) can leave a controller failing twenty times on one key,
// its next retry minutes past the heal budget's end, though its last failure
// (a pod name still taken by the terminating pod) has since gone. A real
// cluster converges when that retry comes; the run ends before. So in a run
// that ends with the cluster's controller holding an object in back-off
// (check.Run's Backoffs), converges does not compare what that controller
// and those who read it are still to finish: the object's status, the
// objects it owns (in this run and in the fault-free runs: their existence
// and content), and the status of its owners, up the chain (an operator
// that mirrors its StatefulSet's ready replicas in its own status). The
// object's spec and everything else are compared. An operator's own
// back-off is not this case: what it does to itself is judged.

// backoffFree are, for got's end, the objects converges does not compare at
// all (why, by key) and those whose status it does not compare.
type backoffFree struct {
	whole  map[string]string
	status map[string]bool
}

// BackoffFree reads got's Backoffs against got's end state and the
// references'.
func BackoffFree(refs []*Reference, got *Snapshot) backoffFree {
	out := backoffFree{whole: map[string]string{}, status: map[string]bool{}}
	if len(got.Backoffs) == 0 {
		return out
	}
	snaps := []*Snapshot{got}
	for _, r := range refs {
		snaps = append(snaps, r.Snap)
	}
	for _, b := range got.Backoffs {
		ns, name, ok := strings.Cut(b.Key, "/")
		if !ok {
			ns, name = "", b.Key
		}
		why := fmt.Sprintf("%s's sync of %s %s failed %d times in a row, its retry due at %v, after the run's end", b.Controller, b.Kind.Kind, b.Key, b.Requeues, b.Due)
		for _, s := range snaps {
			for _, gvk := range s.Kinds {
				for _, o := range s.Raw[gvk] {
					if o.GetNamespace() != ns {
						continue
					}
					switch {
					case gvk.GroupKind() == b.Kind && o.GetName() == name:
						out.status[s.Key(gvk, o)] = true
						for _, k := range ownersOf(s, o) {
							out.status[k] = true
						}
					case slices.ContainsFunc(o.GetOwnerReferences(), func(ref metav1.OwnerReference) bool {
						return ref.Kind == b.Kind.Kind && strings.HasPrefix(ref.APIVersion, groupPrefix(b.Kind.Group)) && ref.Name == name
					}):
						k := s.Key(gvk, o)
						if _, ok := out.whole[k]; !ok {
							out.whole[k] = fmt.Sprintf("%s (owned by %s %s: %s)", k, b.Kind.Kind, b.Key, why)
						}
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
	seen := map[string]bool{}
	next := []client.Object{o}
	for len(next) > 0 {
		o, next = next[0], next[1:]
		for _, ref := range o.GetOwnerReferences() {
			for _, gvk := range s.Kinds {
				if gvk.Kind != ref.Kind {
					continue
				}
				for _, owner := range s.Raw[gvk] {
					if owner.GetUID() != ref.UID {
						continue
					}
					if k := s.Key(gvk, owner); !seen[k] {
						seen[k] = true
						out = append(out, k)
						next = append(next, owner)
					}
				}
			}
		}
	}
	return out
}

// statusPaths adds to free every leaf path under status (and status itself)
// of the values given.
func statusPaths(sh canon.Shape, free map[string]string, vals ...any) {
	for _, v := range vals {
		for p := range Flatten(sh, v) { // lint:order-independent a set is filled
			if p == "status" || strings.HasPrefix(p, "status.") || strings.HasPrefix(p, "status[") {
				for q := p; q != ""; q = parentPath(q) {
					free[q] = ClusterBackoff
				}
			}
		}
	}
}

func groupPrefix(group string) string {
	if group == "" {
		return "v1"
	}
	return group + "/"
}
