package differential

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// genSequence draws a sequence of operations. Swarm testing: each sequence works on a
// few kinds, so that its operations meet the same objects; the run's first namespace
// is created first, the second one sometimes, and sometimes the ServiceAccount is
// given a Role and a RoleBinding early on. One sequence in four is about deletion:
// mostly creates, reads and deletes in the first namespace (which stays), with
// explicit propagation policies and preconditions that mostly carry the latest
// version read, so that a delete meets an object an earlier delete left deleting
// (with its own finalizer or a policy's) while the client is up to date.
func genSequence(t *rapid.T) []Op {
	ops := []Op{{Verb: Create, Kind: Namespace, Namespace: "a"}}
	if rapid.IntRange(0, 2).Draw(t, "create b") == 0 {
		ops = append(ops, Op{Verb: Create, Kind: Namespace, Namespace: "b"})
	}
	if rapid.IntRange(0, 2).Draw(t, "grant") == 0 {
		v := rapid.IntRange(0, 5).Draw(t, "rules")
		ops = append(ops,
			Op{Verb: Create, Kind: Role, Namespace: "a", Name: "one", V: v},
			Op{Verb: Create, Kind: RoleBinding, Namespace: "a", Name: "one"})
	}
	g := sequenceGen{
		kinds:    rapid.SliceOfNDistinct(rapid.SampledFrom(objectKinds), 1, 3, rapid.ID[string]).Draw(t, "kinds"),
		asSA:     rapid.IntRange(0, 3).Draw(t, "as sa (in 6)"),
		deletion: rapid.IntRange(0, 3).Draw(t, "about deletion (in 4)") == 0,
	}
	n := rapid.IntRange(8, 20).Draw(t, "length")
	for range n {
		ops = append(ops, g.op().Draw(t, "op"))
	}
	return ops
}

var objectKinds = []string{ConfigMap, Secret, Deployment, Widget, Role, RoleBinding}

type sequenceGen struct {
	kinds    []string
	asSA     int  // in 6 operations
	deletion bool // a sequence about deletion
}

var genVerbs = []Verb{
	Create, Create, Get, List, Update, Update, Update, UpdateStatus, UpdateStatus,
	MergePatch, MergePatch, StrategicPatch, JSONPatch, StatusPatch, Delete, Delete,
}

// deletionVerbs are the verbs of a sequence about deletion.
var deletionVerbs = []Verb{Create, Create, Get, Get, List, MergePatch, Delete, Delete, Delete}

var genMutations = []Mutation{
	NoChange, SetLabel, SetAnnotation, SetContent, SetContent, SetStatus,
	AddFinalizer, AddFinalizer, RemoveFinalizers, RemoveFinalizers,
}

func (g sequenceGen) verbs() []Verb {
	if g.deletion {
		return deletionVerbs
	}
	return genVerbs
}

func (g sequenceGen) op() *rapid.Generator[Op] {
	return rapid.Custom(func(t *rapid.T) Op {
		namespaces, names := []string{"a", "a", "a", "a", "a", "b"}, []string{"one", "one", "one", "one", "one", "two", "two", ""}
		if g.deletion {
			namespaces, names = []string{"a"}, []string{"one", "one", "one", "two"}
		}
		op := Op{
			Kind:      rapid.SampledFrom(g.kinds).Draw(t, "kind"),
			Verb:      rapid.SampledFrom(g.verbs()).Draw(t, "verb"),
			Namespace: rapid.SampledFrom(namespaces).Draw(t, "namespace"),
			Name:      rapid.SampledFrom(names).Draw(t, "name"),
			V:         rapid.IntRange(0, 5).Draw(t, "v"),
		}
		if !g.deletion && rapid.IntRange(0, 11).Draw(t, "namespace op") == 0 {
			op.Kind, op.Name = Namespace, ""
			op.Verb = rapid.SampledFrom([]Verb{Create, Get, List, Update, MergePatch, Delete}).Draw(t, "namespace verb")
		}
		// Role and RoleBinding writes are an admin's; other requests are made as the
		// ServiceAccount now and then.
		if op.Kind != Role && op.Kind != RoleBinding && op.Kind != Namespace && !g.deletion {
			op.AsSA = rapid.IntRange(0, 5).Draw(t, "as") < g.asSA
		}
		if (op.Verb == UpdateStatus || op.Verb == StatusPatch) && !kinds[op.Kind].status && rapid.IntRange(0, 3).Draw(t, "unserved status") > 0 {
			op.Verb = Update // the status subresource is mostly asked of kinds that have it
		}
		switch op.Verb {
		case Create:
			op.GenerateName = op.Name == "" && op.Kind != Namespace
			op.Finalizer = op.Kind != Namespace && rapid.IntRange(0, 2).Draw(t, "finalizer") == 0
		case List:
			op.Name = ""
			op.Selector = rapid.SampledFrom([]string{"", "", "app=a", "app!=a", "app in (a,b)", "!app"}).Draw(t, "selector")
		case Update, UpdateStatus, MergePatch, StrategicPatch, JSONPatch, StatusPatch:
			op.Mutation = rapid.SampledFrom(genMutations).Draw(t, "mutation")
			if op.Verb == UpdateStatus || op.Verb == StatusPatch {
				op.Mutation = rapid.SampledFrom([]Mutation{
					SetStatus, SetStatus, SetStatus, SetLabel, SetAnnotation, AddFinalizer, RemoveFinalizers, NoChange,
				}).Draw(t, "status mutation")
			}
			if op.Kind == Namespace {
				op.Mutation = rapid.SampledFrom([]Mutation{NoChange, SetLabel, SetAnnotation}).Draw(t, "namespace mutation")
			}
			modes := []RVMode{RVLatest, RVLatest, RVLatest, RVStale, RVNone}
			if op.Verb != Update && op.Verb != UpdateStatus {
				modes = []RVMode{RVNone, RVNone, RVSet, RVStale}
			}
			op.RV = rapid.SampledFrom(modes).Draw(t, "rv")
		case Delete:
			policies := []metav1.DeletionPropagation{
				"", "", metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan,
			}
			if g.deletion {
				policies = policies[1:]
			}
			op.Propagation = rapid.SampledFrom(policies).Draw(t, "propagation")
			rvs, uids := []RVMode{RVNone, RVNone, RVNone, RVSet, RVStale}, []RVMode{"", "", "", RVSet, RVStale}
			if g.deletion {
				rvs, uids = []RVMode{RVNone, RVSet, RVSet, RVStale}, []RVMode{"", "", RVSet, RVStale}
			}
			op.RV = rapid.SampledFrom(rvs).Draw(t, "rv")
			op.UID = rapid.SampledFrom(uids).Draw(t, "uid")
		}
		if tolerated.Avoids(op) {
			op.AsSA = false
			switch op.Verb {
			case StrategicPatch, Update:
				op.Verb = MergePatch
			case UpdateStatus:
				op.Mutation = SetStatus
			}
		}
		return op
	})
}
