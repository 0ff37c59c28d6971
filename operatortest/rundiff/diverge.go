package rundiff

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// change is one commit of a run that alters an object beyond what the
// equivalence ignores: the object, who wrote it (and in which reconcile)
// and its fields.
type change struct {
	object, process, reconcile string
	task                       string // the reconcile that wrote it, one of its run (process, incarnation, worker, count); "" outside one
	leaves                     map[string]string
	modulo                     map[string]string // as the oracles compare it (Origin's, where leaves are as stored)
	changed                    []string          // the fields it altered, as paths
}

// historyOf is r's changes in commit order; modulo: compared as the
// oracles compare objects (keyed lists by key, declared fields masked),
// else as stored.
//
// With both (Origin's), leaves are as stored and each change also carries
// its content modulo the equivalence (change.modulo).
func historyOf(w *world.World, r *world.RunResult, modulo bool, found canon.Nondeterministic) []change {
	return history(w, r, modulo, false, found)
}

func history(w *world.World, r *world.RunResult, modulo, both bool, found canon.Nondeterministic) []change {
	writer := map[uint64]string{}
	within := map[uint64]string{} // the reconcile each write was made in
	task := map[uint64]string{}
	reconciling := map[string]string{}
	incarnation := map[string]int{}
	for _, s := range r.Steps {
		worker := fmt.Sprintf("%s/%s/%d", s.Process, s.Controller, s.Worker)
		if s.Op == "start" || s.Op == "restart" {
			incarnation[s.Process]++
		}
		if s.Op == "reconcile" {
			reconciling[worker] = s.Controller + " " + s.Object
		}
		if s.RVWritten > 0 {
			writer[s.RVWritten] = s.Process
			if s.Reconcile > 0 {
				within[s.RVWritten] = reconciling[worker]
				task[s.RVWritten] = fmt.Sprintf("%s#%d r%d", worker, incarnation[s.Process], s.Reconcile)
			}
		}
	}
	var tok, modTok *canon.Tokens
	if modulo {
		tok = canon.NewTokens(r.Log)
	}
	if both {
		modTok = canon.NewTokens(r.Log)
	}
	prev := map[string]map[string]string{}
	var out []change
	for _, e := range r.Log {
		name := e.Object.GetName()
		if tok != nil {
			name = tok.Name(e.Object)
		}
		key := canon.ObjectKey(e.GVK.Kind, e.Object.GetNamespace(), name)
		leaves := map[string]string{"": "deleted"}
		mod := leaves
		if e.Type != watch.Deleted {
			leaves = contentOf(w, e.GVK, e.Object, tok, found)
			if both {
				mod = contentOf(w, e.GVK, e.Object, modTok, found)
			}
		}
		before, ok := prev[key]
		if ok && maps.Equal(before, leaves) {
			continue // a write of what the equivalence ignores
		}
		prev[key] = leaves
		c := change{object: key, process: writer[e.ResourceVersion], reconcile: within[e.ResourceVersion], task: task[e.ResourceVersion], leaves: leaves, changed: differingFields(before, leaves)}
		if both {
			c.modulo = mod
		}
		out = append(out, c)
	}
	return out
}

// contentOf is o's content as leaves (canon.Leaves), less what a write
// more or less shifts; tok (nil: as stored) canonicalises it as the
// oracles do: uids and generated names as tokens (a uid is the
// apiserver's count of the objects created before it, which a write more
// or less shifts), times masked, a scheduled pod's node named by the pod;
// the fields Options.Nondeterministic declares and those found masked.
func contentOf(w *world.World, gvk schema.GroupVersionKind, o client.Object, tok *canon.Tokens, found canon.Nondeterministic) map[string]string {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return map[string]string{"": err.Error()}
	}
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "resourceVersion")
		delete(meta, "generation")
		delete(meta, "managedFields")
	}
	var sh canon.Shape
	if tok != nil {
		w.Nondet.Mask(gvk.Kind, m)
		found.Mask(gvk.Kind, m)
		tok.Binding(gvk, o, m)
		tok.Value(m)
		sh = w.Shapes.For(gvk)
	}
	out := map[string]string{}
	canon.Leaves(m, "", sh, out)
	return out
}

// itemIndex is a list item's index in a leaf's path.
var itemIndex = regexp.MustCompile(`\[[^\]]*\]`)

// differingFields are the fields (dotted paths, through a list: the field
// of every item, as Options.Nondeterministic names them) whose leaves
// differ between a and b, sorted; a list whose items are the same in
// another order is its own path with " (its order)".
func differingFields(a, b map[string]string) []string {
	var out []string
	reordered := map[string]bool{}
	add := func(leaf string) {
		f := itemIndex.ReplaceAllString(leaf, "")
		if at := itemIndex.FindStringIndex(leaf); at != nil {
			list := leaf[:at[0]]
			if _, ok := reordered[list]; !ok {
				reordered[list] = slices.Equal(itemsOf(a, list), itemsOf(b, list))
			}
			if reordered[list] {
				f = list + " (its order)"
			}
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for k, v := range a { // lint:order-independent sorted below
		if b[k] != v {
			add(k)
		}
	}
	for k := range b { // lint:order-independent sorted below
		if _, ok := a[k]; !ok {
			add(k)
		}
	}
	slices.Sort(out)
	return out
}

// itemsOf are the items of the list at path in leaves, each as its
// leaves' text, sorted: equal for two lists of the same items in any order.
func itemsOf(leaves map[string]string, path string) []string {
	items := map[string][]string{}
	for k, v := range leaves { // lint:order-independent each item's leaves are sorted below
		rest, ok := strings.CutPrefix(k, path+"[")
		if !ok {
			continue
		}
		idx, field, _ := strings.Cut(rest, "]")
		items[idx] = append(items[idx], field+"="+v)
	}
	var out []string
	for _, fs := range items { // lint:order-independent sorted below
		slices.Sort(fs)
		out = append(out, strings.Join(fs, "\x00"))
	}
	slices.Sort(out)
	return out
}

// A Divergence is where two runs of one plan first differ: an object that
// one run changed and the other did not, or not alike (Object, as
// canon.ObjectKey names it), the process that wrote it, the reconcile it
// wrote it in (Reconcile: the controller and the object it reconciled, ""
// outside a reconcile), and its Fields.
type Divergence struct {
	Object, Process, Reconcile string
	Fields                     []string
	// SameWrite: both runs changed the object there, to other content
	// (not a change one run made and the other did not).
	SameWrite bool
	// Tasks are the reconciles that wrote it in the one run and the other
	// (each one of its run: process, incarnation, worker and count; ""
	// where that run did not change the object there, or outside a
	// reconcile).
	Tasks [2]string
	// Ignored (Origin's): the two writes differ as stored but not as the
	// oracles compare them (the order of a keyed list, a declared field).
	Ignored bool
}

// InOneReconcileWith says whether d and o were written in one reconcile,
// in one run or the other: where o is where two runs start to differ (Origin)
// and d is a write of the operator's that differs beyond the equivalence,
// d's reconcile began from runs that agreed, and its difference is its own.
// Where either was written outside a reconcile (a client-go worker of the
// operator's own, a runnable), nothing says where its work began: they are
// taken as one.
func (d *Divergence) InOneReconcileWith(o *Divergence) bool {
	if d.Tasks == [2]string{} || o.Tasks == [2]string{} {
		return true
	}
	return d.Tasks[0] != "" && d.Tasks[0] == o.Tasks[0] || d.Tasks[1] != "" && d.Tasks[1] == o.Tasks[1]
}

// Diverge is where a and b, two runs of one plan of w, first differ (nil:
// they agree), compared modulo the equivalence, and the fields found
// nondeterministic (nil: none), or as stored: object by object, each
// object's states in order (how two objects' changes interleave is the
// schedule's, and a write more or less shifts it).
func Diverge(w *world.World, a, b *world.RunResult, modulo bool, found canon.Nondeterministic) *Divergence {
	sa, order := byObject(historyOf(w, a, modulo, found), nil)
	sb, order := byObject(historyOf(w, b, modulo, found), order)
	for _, key := range order {
		ca, cb := sa[key], sb[key]
		for i := 0; i < max(len(ca), len(cb)); i++ {
			switch {
			case i >= len(ca):
				return &Divergence{Object: key, Process: cb[i].process, Reconcile: cb[i].reconcile, Fields: cb[i].changed, Tasks: [2]string{"", cb[i].task}}
			case i >= len(cb):
				return &Divergence{Object: key, Process: ca[i].process, Reconcile: ca[i].reconcile, Fields: ca[i].changed, Tasks: [2]string{ca[i].task, ""}}
			case !maps.Equal(ca[i].leaves, cb[i].leaves):
				return &Divergence{Object: key, Process: cmp.Or(ca[i].process, cb[i].process), Reconcile: cmp.Or(ca[i].reconcile, cb[i].reconcile),
					Fields: differingFields(ca[i].leaves, cb[i].leaves), SameWrite: true, Tasks: [2]string{ca[i].task, cb[i].task}}
			}
		}
	}
	return nil
}

// byObject is h's changes by object, and order with the objects not in it
// yet added in their first change's order.
func byObject(h []change, order []string) (map[string][]change, []string) {
	out := map[string][]change{}
	for _, c := range h {
		if _, ok := out[c.object]; !ok && !slices.Contains(order, c.object) {
			order = append(order, c.object)
		}
		out[c.object] = append(out[c.object], c)
	}
	return out, order
}

// String says it: "the writes of ConfigMap shop/web-ports .data.ports (by
// process mapports)".
func (d *Divergence) String() string {
	by := ""
	if d.Process != "" {
		by = " by process " + d.Process
	}
	return fmt.Sprintf("the writes%s of %s .%s", by, d.Object, strings.Join(d.Fields, ", ."))
}

// Declare is the Options.Nondeterministic that would declare d's fields.
func (d *Divergence) Declare() string {
	kind, _, _ := strings.Cut(d.Object, " ")
	var fs []string
	for _, f := range d.Fields {
		fs = append(fs, fmt.Sprintf("{Kind: %q, Path: %q}", kind, strings.TrimSuffix(f, " (its order)")))
	}
	return "[]operatortest.NondeterministicField{" + strings.Join(fs, ", ") + "}"
}

// Origin is where two runs of one plan first differ as stored (nothing
// ignored), in commit order: the first change of either run whose
// counterpart in the other (the same object's change of the same rank)
// differs or is missing; nil: they agree. Where Diverge says what differs
// as the oracles see it, Origin says where a difference starts: a
// built-in controller's write that differs because it copied what an
// operator's write held (a Service's ports into an EndpointSlice, in the
// order the operator wrote them) starts at the operator's write. Whether
// the two writes there agree as the oracles compare them (found: the fields
// found nondeterministic) is its Ignored, and its Tasks are ordered a, b.
func Origin(w *world.World, a, b *world.RunResult, found canon.Nondeterministic) *Divergence {
	ha, hb := history(w, a, false, true, found), history(w, b, false, true, found)
	sa, _ := byObject(ha, nil)
	sb, _ := byObject(hb, nil)
	ia, da := firstApart(ha, sb)
	ib, db := firstApart(hb, sa)
	if da == nil || db != nil && ib < ia {
		if db != nil {
			db.Tasks[0], db.Tasks[1] = db.Tasks[1], db.Tasks[0]
		}
		return db
	}
	return da
}

// firstApart is the first change of h (its place and where it differs)
// whose counterpart in other differs or is missing.
// A change the other run did not make is Ignored where it altered only
// what the oracles ignore (its content modulo the equivalence is its
// predecessor's).
func firstApart(h []change, other map[string][]change) (int, *Divergence) {
	rank := map[string]int{}
	last := map[string]map[string]string{} // each object's content modulo the equivalence so far
	for i, c := range h {
		k := rank[c.object]
		rank[c.object]++
		before, had := last[c.object]
		last[c.object] = c.modulo
		oc := other[c.object]
		if k >= len(oc) {
			return i, &Divergence{Object: c.object, Process: c.process, Reconcile: c.reconcile, Fields: c.changed, Tasks: [2]string{c.task, ""},
				Ignored: had && c.modulo != nil && maps.Equal(before, c.modulo)}
		}
		if !maps.Equal(c.leaves, oc[k].leaves) {
			return i, &Divergence{Object: c.object, Process: c.process, Reconcile: c.reconcile, Fields: differingFields(oc[k].leaves, c.leaves), SameWrite: true,
				Tasks: [2]string{c.task, oc[k].task}, Ignored: c.modulo != nil && maps.Equal(c.modulo, oc[k].modulo)}
		}
	}
	return len(h), nil
}

// WrittenBy is r with its watch log cut to the changes that processes by
// says are of wrote (the operator's own writes, to compare two runs in
// them alone).
func WrittenBy(r *world.RunResult, by func(process string) bool) *world.RunResult {
	mine := map[uint64]bool{}
	for _, s := range r.Steps {
		if s.RVWritten > 0 && by(s.Process) {
			mine[s.RVWritten] = true
		}
	}
	out := *r
	out.Log = nil
	for _, e := range r.Log {
		if mine[e.ResourceVersion] {
			out.Log = append(out.Log, e)
		}
	}
	return &out
}
