package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Verb is what an operation does.
type Verb string

// The verbs. Patches and updates change the object by their Mutation.
const (
	Create         Verb = "create"
	Get            Verb = "get"
	List           Verb = "list"
	Update         Verb = "update"
	UpdateStatus   Verb = "update-status"
	MergePatch     Verb = "merge-patch"
	StrategicPatch Verb = "strategic-patch"
	JSONPatch      Verb = "json-patch"
	StatusPatch    Verb = "status-merge-patch"
	Delete         Verb = "delete"
)

// Mutation is the change an update or patch makes.
type Mutation string

// The mutations. V (the operation's version number) picks the new value.
const (
	NoChange         Mutation = "none"
	SetLabel         Mutation = "label"      // labels[app] = a or b
	SetAnnotation    Mutation = "annotation" // annotations[note] = V
	SetContent       Mutation = "content"    // data, spec, rules or subjects of version V
	SetStatus        Mutation = "status"     // the status of version V
	AddFinalizer     Mutation = "add-finalizer"
	RemoveFinalizers Mutation = "remove-finalizers"
)

// RVMode is the resourceVersion an update, patch or delete precondition carries.
type RVMode string

// The resourceVersion modes.
const (
	RVLatest RVMode = ""      // the latest version the client has seen (none for a patch or delete)
	RVStale  RVMode = "stale" // the first version the client saw of the object (and, for an update, its uid)
	RVNone   RVMode = "none"  // no resourceVersion (an unconditional update)
	RVSet    RVMode = "set"   // patches and deletes: the latest seen, as a precondition
)

// Finalizers the operations add.
var Finalizers = []string{"ctrlsim.dev/hold", "ctrlsim.dev/other"}

// An Op is one API request, described as data so that both sides run the same one.
// Names are slots: namespace "a" or "b" of the run, object names as given, and the
// empty name is the name the server generated for the kind in that namespace most
// recently (generateName), on each side.
type Op struct {
	Verb Verb
	Kind string
	// AsSA makes the request as the run's ServiceAccount instead of a cluster admin.
	AsSA      bool
	Namespace string // slot "a" or "b"; for Kind Namespace, the namespace the op is about
	Name      string
	// GenerateName creates with metadata.generateName "gen-" and no name.
	GenerateName bool
	V            int
	Mutation     Mutation
	RV           RVMode
	// Finalizer makes Create add Finalizers[V%2].
	Finalizer   bool
	Propagation metav1.DeletionPropagation // Delete
	Selector    string                     // List: a label selector
	// UID is a Delete's uid precondition: RVSet the uid of the latest version the
	// client has seen, RVStale that of the first (another object's after a delete and
	// re-create under the same name); none when empty.
	UID RVMode
}

func (op Op) String() string {
	if op.Kind == "" {
		return string(op.Verb) // a focused test's Step
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", op.Verb, op.Kind)
	if op.Kind == Namespace {
		fmt.Fprintf(&b, " %s", op.Namespace)
	} else {
		name := op.Name
		switch {
		case op.GenerateName:
			name = "gen-*"
		case name == "" && op.Verb != List:
			name = "<generated>"
		}
		fmt.Fprintf(&b, " %s/%s", op.Namespace, name)
	}
	if op.AsSA {
		b.WriteString(" as=sa")
	}
	if op.Mutation != "" {
		fmt.Fprintf(&b, " mutation=%s", op.Mutation)
	}
	if op.Verb == Create || op.Mutation != "" {
		fmt.Fprintf(&b, " v=%d", op.V)
	}
	if op.RV != "" {
		fmt.Fprintf(&b, " rv=%s", op.RV)
	}
	if op.Finalizer {
		b.WriteString(" finalizer")
	}
	if op.Propagation != "" {
		fmt.Fprintf(&b, " propagation=%s", op.Propagation)
	}
	if op.UID != "" {
		fmt.Fprintf(&b, " uid=%s", op.UID)
	}
	if op.Selector != "" {
		fmt.Fprintf(&b, " selector=%q", op.Selector)
	}
	return b.String()
}

// GoString prints op as a Go literal, so a failing sequence pastes into a test.
func (op Op) GoString() string {
	var f []string
	add := func(k string, v any) { f = append(f, fmt.Sprintf("%s: %#v", k, v)) }
	add("Verb", op.Verb)
	add("Kind", op.Kind)
	if op.AsSA {
		add("AsSA", true)
	}
	add("Namespace", op.Namespace)
	if op.Name != "" {
		add("Name", op.Name)
	}
	if op.GenerateName {
		add("GenerateName", true)
	}
	if op.V != 0 {
		add("V", op.V)
	}
	if op.Mutation != "" {
		add("Mutation", op.Mutation)
	}
	if op.RV != "" {
		add("RV", op.RV)
	}
	if op.Finalizer {
		add("Finalizer", true)
	}
	if op.Propagation != "" {
		add("Propagation", op.Propagation)
	}
	if op.UID != "" {
		add("UID", op.UID)
	}
	if op.Selector != "" {
		add("Selector", op.Selector)
	}
	return "{" + strings.Join(f, ", ") + "}"
}

// Names are the names of one run: its namespaces, unique on the shared envtest.
type Names struct{ Run int }

// Namespace is the real name of namespace slot s.
func (n Names) Namespace(s string) string { return fmt.Sprintf("diff%d-%s", n.Run, s) }

// ServiceAccount is the identity of operations made as the ServiceAccount.
func (n Names) ServiceAccount() apiserver.User {
	return apiserver.ServiceAccount(n.Namespace("a"), ServiceAccountName)
}

type objKey struct{ kind, namespace, name string }

// side runs operations against one cluster and remembers what its client has seen:
// every version of every object (for stale updates) and the generated names.
type side struct {
	cluster   Cluster
	names     Names
	seen      map[objKey][]client.Object
	generated map[objKey]string // kind, namespace -> last generated name
	genNames  []string          // every generated name, in order
}

func newSide(c Cluster, names Names) *side {
	return &side{cluster: c, names: names, seen: map[objKey][]client.Object{}, generated: map[objKey]string{}}
}

// key resolves the op's slots to the real namespace and name.
func (s *side) key(op Op) objKey {
	k := objKey{kind: op.Kind}
	if op.Kind == Namespace {
		k.name = s.names.Namespace(op.Namespace)
		return k
	}
	k.namespace = s.names.Namespace(op.Namespace)
	k.name = op.Name
	if op.Name == "" && !op.GenerateName {
		k.name = s.generated[objKey{kind: op.Kind, namespace: k.namespace}]
	}
	return k
}

func (s *side) remember(o client.Object, kind string) {
	k := objKey{kind: kind, namespace: o.GetNamespace(), name: o.GetName()}
	s.seen[k] = append(s.seen[k], o.DeepCopyObject().(client.Object))
}

// latest returns a copy of the latest version seen, or a new object with the key's
// name and namespace when the client has seen none.
func (s *side) latest(k objKey) client.Object {
	if v := s.seen[k]; len(v) > 0 {
		return v[len(v)-1].DeepCopyObject().(client.Object)
	}
	o := kinds[k.kind].newObj()
	o.SetNamespace(k.namespace)
	o.SetName(k.name)
	return o
}

// rv is the resourceVersion an operation carries in mode m.
func (s *side) rv(k objKey, m RVMode) string {
	v := s.seen[k]
	if len(v) == 0 || m == RVNone {
		return ""
	}
	if m == RVStale {
		return v[0].GetResourceVersion()
	}
	return v[len(v)-1].GetResourceVersion()
}

// uid is the uid a Delete's precondition carries in mode m: that of the latest
// version seen (RVSet) or of the first (RVStale); "" when the client saw none.
func (s *side) uid(k objKey, m RVMode) types.UID {
	v := s.seen[k]
	if len(v) == 0 {
		return ""
	}
	if m == RVStale {
		return v[0].GetUID()
	}
	return v[len(v)-1].GetUID()
}

// raw is the result of one operation before normalisation.
type raw struct {
	err  error
	obj  client.Object     // get, create, update, patch
	list client.ObjectList // list
}

// do runs op and records what the client saw.
func (s *side) do(ctx context.Context, op Op) raw {
	u := apiserver.Admin
	if op.AsSA {
		u = s.names.ServiceAccount()
	}
	c, err := s.cluster.Client(u)
	if err != nil {
		panic(fmt.Sprintf("client for %s: %v", u.Name, err)) // a harness error
	}
	r := s.call(ctx, c, op)
	if r.err == nil && r.obj != nil {
		s.remember(r.obj, op.Kind)
		if op.GenerateName && op.Verb == Create {
			k := objKey{kind: op.Kind, namespace: r.obj.GetNamespace()}
			s.generated[k] = r.obj.GetName()
			s.genNames = append(s.genNames, r.obj.GetName())
		}
	}
	if r.err == nil && r.list != nil {
		items, _ := listItems(r.list)
		for _, o := range items {
			s.remember(o, op.Kind)
		}
	}
	if (op.Kind == Role || op.Kind == RoleBinding) && op.Verb != Get && op.Verb != List {
		if err := s.cluster.SettleRBAC(ctx); err != nil {
			panic(fmt.Sprintf("settling RBAC: %v", err))
		}
	}
	return r
}

func (s *side) call(ctx context.Context, c client.Client, op Op) raw {
	kd := kinds[op.Kind]
	k := s.key(op)
	switch op.Verb {
	case Create:
		o := kd.newObj()
		o.SetNamespace(k.namespace)
		if op.GenerateName {
			o.SetGenerateName("gen-")
		} else {
			o.SetName(k.name)
		}
		if l := []string{"a", "b", ""}[op.V%3]; l != "" {
			o.SetLabels(map[string]string{"app": l})
		}
		if op.Finalizer {
			o.SetFinalizers([]string{Finalizers[op.V%2]})
		}
		kd.content(o, op.V)
		if kd.setStatus != nil {
			kd.setStatus(o, op.V) // a status subresource's status is dropped on create
		}
		return raw{err: c.Create(ctx, o), obj: o}
	case Get:
		o := kd.newObj()
		return raw{err: c.Get(ctx, client.ObjectKey{Namespace: k.namespace, Name: k.name}, o), obj: o}
	case List:
		l := kd.newList()
		var opts []client.ListOption
		if op.Kind != Namespace {
			opts = append(opts, client.InNamespace(k.namespace))
		}
		if op.Selector != "" {
			sel, err := labels.Parse(op.Selector)
			if err != nil {
				panic(err)
			}
			opts = append(opts, client.MatchingLabelsSelector{Selector: sel})
		}
		err := c.List(ctx, l, opts...)
		if err == nil && op.Kind == Namespace {
			filterNamespaces(l, s.names)
		}
		return raw{err: err, list: l}
	case Update, UpdateStatus:
		o := s.latest(k)
		mutate(kd, o, op)
		o.SetResourceVersion(s.rv(k, op.RV))
		if op.RV == RVStale && len(s.seen[k]) > 0 {
			// A stale copy: after a delete and re-create its uid is the old one too.
			o.SetUID(s.seen[k][0].GetUID())
		}
		if op.Verb == UpdateStatus {
			return raw{err: c.Status().Update(ctx, o), obj: o}
		}
		return raw{err: c.Update(ctx, o), obj: o}
	case MergePatch, StrategicPatch, JSONPatch, StatusPatch:
		o := kd.newObj()
		o.SetNamespace(k.namespace)
		o.SetName(k.name)
		pt, body := patchBody(kd, op, k, s.rv(k, patchRV(op.RV)))
		p := client.RawPatch(pt, body)
		if op.Verb == StatusPatch {
			return raw{err: c.Status().Patch(ctx, o, p), obj: o}
		}
		return raw{err: c.Patch(ctx, o, p), obj: o}
	case Delete:
		o := kd.newObj()
		o.SetNamespace(k.namespace)
		o.SetName(k.name)
		var opts []client.DeleteOption
		if op.Propagation != "" {
			opts = append(opts, client.PropagationPolicy(op.Propagation))
		}
		var pre client.Preconditions
		if op.RV == RVSet || op.RV == RVStale {
			rv := s.rv(k, patchRV(op.RV))
			pre.ResourceVersion = &rv
		}
		if op.UID == RVSet || op.UID == RVStale {
			uid := s.uid(k, op.UID)
			pre.UID = &uid
		}
		if pre.ResourceVersion != nil || pre.UID != nil {
			opts = append(opts, pre)
		}
		return raw{err: c.Delete(ctx, o, opts...)}
	}
	panic(fmt.Sprintf("unknown verb %q", op.Verb))
}

// patchRV maps a patch's mode to the version it carries: none unless asked.
func patchRV(m RVMode) RVMode {
	switch m {
	case RVSet:
		return RVLatest
	case RVStale:
		return RVStale
	}
	return RVNone
}

// mutate applies op's mutation to o, as a client would before an update.
func mutate(kd *kind, o client.Object, op Op) {
	switch op.Mutation {
	case SetLabel:
		l := o.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		l["app"] = []string{"a", "b"}[op.V%2]
		o.SetLabels(l)
	case SetAnnotation:
		a := o.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a["note"] = value(op.V)
		o.SetAnnotations(a)
	case SetContent:
		kd.content(o, op.V)
	case SetStatus:
		if kd.setStatus != nil {
			kd.setStatus(o, op.V)
		}
	case AddFinalizer:
		if f := Finalizers[op.V%2]; !slices.Contains(o.GetFinalizers(), f) {
			o.SetFinalizers(append(o.GetFinalizers(), f))
		}
	case RemoveFinalizers:
		o.SetFinalizers(nil)
	}
}

// patchBody is the patch for op's mutation; rv, when set, is a resourceVersion
// precondition in the patch.
func patchBody(kd *kind, op Op, k objKey, rv string) (types.PatchType, []byte) {
	if op.Verb == JSONPatch {
		var ops []map[string]any
		if rv != "" {
			ops = append(ops, map[string]any{"op": "replace", "path": "/metadata/resourceVersion", "value": rv})
		}
		switch op.Mutation {
		case SetLabel:
			ops = append(ops, map[string]any{"op": "add", "path": "/metadata/labels/app", "value": []string{"a", "b"}[op.V%2]})
		case SetAnnotation:
			ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations/note", "value": value(op.V)})
		case SetContent:
			if kd.contentJSON != nil {
				ops = append(ops, kd.contentJSON(k.namespace, op.V)...)
			}
		case SetStatus:
			if kd.statusMerge != nil {
				ops = append(ops, map[string]any{"op": "add", "path": "/status", "value": kd.statusMerge(op.V)["status"]})
			}
		case AddFinalizer:
			ops = append(ops, map[string]any{"op": "add", "path": "/metadata/finalizers/-", "value": Finalizers[op.V%2]})
		case RemoveFinalizers:
			ops = append(ops, map[string]any{"op": "remove", "path": "/metadata/finalizers"})
		}
		if ops == nil {
			ops = []map[string]any{}
		}
		return types.JSONPatchType, mustJSON(ops)
	}
	pt := types.MergePatchType
	if op.Verb == StrategicPatch {
		pt = types.StrategicMergePatchType
	}
	body := map[string]any{}
	meta := map[string]any{}
	switch op.Mutation {
	case SetLabel:
		meta["labels"] = map[string]any{"app": []string{"a", "b"}[op.V%2]}
	case SetAnnotation:
		meta["annotations"] = map[string]any{"note": value(op.V)}
	case SetContent:
		if kd.contentMerge != nil {
			body = kd.contentMerge(k.namespace, op.V)
		}
	case SetStatus:
		if kd.statusMerge != nil {
			body = kd.statusMerge(op.V)
		}
	case AddFinalizer:
		// A merge patch replaces the list; a strategic merge patch merges into it
		// (ObjectMeta.Finalizers has patchStrategy merge).
		meta["finalizers"] = []string{Finalizers[op.V%2]}
	case RemoveFinalizers:
		if pt == types.StrategicMergePatchType {
			meta["$deleteFromPrimitiveList/finalizers"] = Finalizers
		} else {
			meta["finalizers"] = nil
		}
	}
	if rv != "" {
		meta["resourceVersion"] = rv
	}
	if len(meta) > 0 {
		body["metadata"] = meta
	}
	return pt, mustJSON(body)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// filterNamespaces keeps the run's own namespaces in a namespace list: the shared
// envtest has every earlier run's, the model the default ones.
func filterNamespaces(l client.ObjectList, n Names) {
	nl := l.(*corev1.NamespaceList)
	prefix := n.Namespace("") // "diff<run>-"
	out := nl.Items[:0]
	for _, ns := range nl.Items {
		if strings.HasPrefix(ns.Name, prefix) {
			out = append(out, ns)
		}
	}
	nl.Items = out
}

func listItems(l client.ObjectList) ([]client.Object, error) {
	objs, err := meta.ExtractList(l)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, len(objs))
	for i, o := range objs {
		out[i] = o.(client.Object)
	}
	return out, nil
}
