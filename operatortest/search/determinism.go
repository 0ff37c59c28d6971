package search

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Determinism.
//
// A run is a function of its plan, up to what the oracles' equivalence
// ignores: the order of a list its schema keys (a Service's ports), the
// fields Options.Nondeterministic declares, the resourceVersions,
// generations and managedFields that a write more or less shifts, and
// what the oracles name by token (uids, generated names, times). Two
// runs of one plan are compared as histories of what each object held,
// object by object (each write that changed only what the equivalence
// ignores left out; how two objects' changes interleave is the
// schedule's, which a write more or less shifts): where they first differ
// is an object whose content one run wrote and the other did not, and its
// fields are what differs. That is the one rule; its cases follow:
//
//   - The exploration runs its preflight plan (no workload, no fault)
//     up to four times, until two differ beyond the equivalence. That is
//     the operator's own nondeterminism (a list rendered by ranging over
//     a Go map, an unseeded random value): said once, with the object and
//     the fields it touches (Result.Nondeterminism; Run fails with it),
//     and a finding's replay is judged modulo those fields too. The
//     verdicts are not: only a declaration makes the oracles ignore a
//     field (a buggy twin whose bug is a field built in map order,
//     examples/patterns/mapports, is caught by them). Runs that differ
//     only in what the equivalence ignores are logged.
//   - A finding's replay that gives another trace hash, but agrees with
//     the exploring run modulo the equivalence and shows the same
//     violation, replays: it is reported, with a line saying the hashes
//     differ and in what (report.go). A replay is two runs of one plan
//     too: where the operator wrote other content to one object at the
//     same point of both, that is its nondeterminism as the preflight's
//     is (said once, if the preflight's runs happened alike), and the
//     comparison goes on modulo those fields.

// change is one commit of a run that alters an object beyond what the
// equivalence ignores: the object, who wrote it and its fields.
type change struct {
	object, process string
	leaves          map[string]string
	changed         []string // the fields it altered, as paths
}

// historyOf is r's changes in commit order; modulo: compared as the
// oracles compare objects (keyed lists by key, declared fields masked),
// else as stored.
func historyOf(w *world.World, r *world.RunResult, modulo bool) []change {
	writer := map[uint64]string{}
	for _, s := range r.Steps {
		if s.RVWritten > 0 {
			writer[s.RVWritten] = s.Process
		}
	}
	var tok *canon.Tokens
	if modulo {
		tok = canon.NewTokens(r.Log)
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
		if e.Type != watch.Deleted {
			leaves = contentOf(w, e.GVK, e.Object, tok)
		}
		before, ok := prev[key]
		if ok && maps.Equal(before, leaves) {
			continue // a write of what the equivalence ignores
		}
		prev[key] = leaves
		out = append(out, change{object: key, process: writer[e.ResourceVersion], leaves: leaves, changed: differingFields(before, leaves)})
	}
	return out
}

// contentOf is o's content as leaves (canon.Leaves), less what a write
// more or less shifts; tok (nil: as stored) canonicalises it as the
// oracles do: uids and generated names as tokens (a uid is the
// apiserver's count of the objects created before it, which a write more
// or less shifts), times masked, a scheduled pod's node named by the pod.
func contentOf(w *world.World, gvk schema.GroupVersionKind, o client.Object, tok *canon.Tokens) map[string]string {
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
		explorationOf(w).found.Mask(gvk.Kind, m)
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

// divergence is where two runs of one plan first differ: an object that
// one run changed and the other did not, or not alike, and its fields.
type divergence struct {
	object, process string
	fields          []string
	// sameWrite: both runs changed the object there, to other content
	// (not a change one run made and the other did not).
	sameWrite bool
}

// diverge is where a and b, two runs of one plan, first differ (nil: they
// agree), compared modulo the equivalence or as stored: object by object,
// each object's states in order (how two objects' changes interleave is
// the schedule's, and a write more or less shifts it).
func diverge(w *world.World, a, b *world.RunResult, modulo bool) *divergence {
	sa, order := byObject(historyOf(w, a, modulo), nil)
	sb, order := byObject(historyOf(w, b, modulo), order)
	for _, key := range order {
		ca, cb := sa[key], sb[key]
		for i := 0; i < max(len(ca), len(cb)); i++ {
			switch {
			case i >= len(ca):
				return &divergence{object: key, process: cb[i].process, fields: cb[i].changed}
			case i >= len(cb):
				return &divergence{object: key, process: ca[i].process, fields: ca[i].changed}
			case !maps.Equal(ca[i].leaves, cb[i].leaves):
				return &divergence{object: key, process: cmp.Or(ca[i].process, cb[i].process), fields: differingFields(ca[i].leaves, cb[i].leaves), sameWrite: true}
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
func (d *divergence) String() string {
	by := ""
	if d.process != "" {
		by = " by process " + d.process
	}
	return fmt.Sprintf("the writes%s of %s .%s", by, d.object, strings.Join(d.fields, ", ."))
}

// declare is the Options.Nondeterministic that would declare d's fields.
func (d *divergence) declare() string {
	kind, _, _ := strings.Cut(d.object, " ")
	var fs []string
	for _, f := range d.fields {
		fs = append(fs, fmt.Sprintf("{Kind: %q, Path: %q}", kind, strings.TrimSuffix(f, " (its order)")))
	}
	return "[]operatortest.NondeterministicField{" + strings.Join(fs, ", ") + "}"
}

// determinismRuns are the runs of the preflight plan made again until one
// differs: a range over a small Go map is one of few orders, most often the
// same one (a map of four: one order in about five of ten ranges), so two
// runs alike prove little.
const determinismRuns = 3

// checkDeterminism runs the preflight plan again and compares the two runs
// (the rule above): the operator's own nondeterminism is said once, and
// judged from then on as if declared.
func checkDeterminism(w *world.World, t *testing.T, first *world.RunResult) error {
	var ignored *divergence // a difference only in what the oracles ignore
	for range determinismRuns {
		_, again, err := reference.RunOnce(w, t, &plan.Plan{Seed: w.Opts.EffectiveSeed()}, nil, 0)
		if err != nil || again.Hash == first.Hash {
			if err != nil {
				return err
			}
			continue
		}
		if d := diverge(w, first, again, true); d != nil {
			learn(w, d, "the fault-free run with no workload")
			return nil
		}
		if ignored == nil {
			ignored = diverge(w, first, again, false)
		}
	}
	if ignored != nil {
		t.Logf("operatortest: %s differ between two runs of one plan (the fault-free run with no workload) only in what the oracles ignore (the order of a keyed list, a declared field): trace hashes differ, and a replay is judged modulo it", ignored)
	}
	return nil
}

// learn takes d, where two runs of one plan (what) differ beyond what the
// oracles ignore, as the operator's own nondeterminism when the operator
// wrote it: its fields join those a replay is judged modulo, and the first
// such difference is what the exploration says (once). It reports whether
// d was the operator's.
func learn(w *world.World, d *divergence, what string) bool {
	e := explorationOf(w)
	if !w.Operators[d.process] {
		if e.nondeterminism == "" {
			e.nondeterminism = fmt.Sprintf("%s differ between two runs of one plan (%s), and no process of the operator's wrote them: a determinism bug of ctrlsim, or a difference of the operator's before them that left no write", d, what)
		}
		return false
	}
	kind, _, _ := strings.Cut(d.object, " ")
	if e.found == nil {
		e.found = canon.Nondeterministic{}
	}
	for _, f := range d.fields {
		path := strings.Split(strings.TrimSuffix(f, " (its order)"), ".")
		if !slices.ContainsFunc(e.found[kind], func(p []string) bool { return slices.Equal(p, path) }) {
			e.found[kind] = append(e.found[kind], path)
		}
	}
	if e.nondeterminism == "" {
		e.nondeterminism = fmt.Sprintf("%s differ between two runs of one plan (%s): the operator itself is nondeterministic (a value built by ranging over a Go map, an unseeded random value, a wall-clock reading), so its findings cannot replay bit for bit; sort what it renders, or declare the fields with Options.Nondeterministic: %s (this exploration's replays are judged modulo them; its verdicts are not)",
			d, what, d.declare())
	}
	return true
}

// agreeLearning compares a finding's exploring run and its replay modulo
// what the oracles ignore and the fields found nondeterministic, learning
// (learn) from each difference in the content of one write of the
// operator's, up to maxLearned: nil when they then agree, else where they
// differ.
func agreeLearning(w *world.World, explored, replayed *world.RunResult) *divergence {
	for range maxLearned {
		d := diverge(w, explored, replayed, true)
		if d == nil || !d.sameWrite || !learn(w, d, "a finding's minimal plan, explored and replayed") {
			return d
		}
	}
	return diverge(w, explored, replayed, true)
}

// maxLearned bounds the differences one replay teaches: a run that differs
// in more is not the same run in another order.
const maxLearned = 4
