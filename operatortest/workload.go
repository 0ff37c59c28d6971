package operatortest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The workload a plan draws, Acto's way: changes to the seed objects, from the
// CRD schemas. A step mutates a seed custom resource under spec (schemadraw.go
// draws the value): it sets a field (a scalar, a nested object as a whole, a
// list, a map), appends, replaces or removes a list's item, or sets or removes
// a map's key, with a value valid by the schema or invalid (outside one of its
// constraints: the API must refuse it with 422, and the controllers must
// survive it); it deletes a seed object; or creates it again as the test gave
// it. Each mutation carries the drawing's label, expect=valid, invalid or
// unknown (a CEL rule or another validation the drawing does not model
// decides), for the seed as the test gave it: a step that meets another state
// (after other steps, or an operator's own writes to spec) may be answered
// otherwise. Whatever the API answers, a refused step is a line of the
// timeline (an action's error), never a violation. Steps happen during the
// fault phase; a workload shrinks to few steps.
const (
	actionMutate   = "mutate"
	actionDelete   = "delete"
	actionRecreate = "recreate"
)

// MaxSteps bounds the workload steps of a plan.
const MaxSteps = 4

// The ways a mutation changes its field (op=; set when absent, as in plans
// saved before op= existed).
const (
	opSet    = "set"    // field=PATH value=JSON: the value at PATH (a property, a list's item by index, a map's key)
	opAppend = "append" // field=PATH value=JSON: one more item at the end of the list at PATH
	opRemove = "remove" // field=PATH: the list item or map key at PATH taken out
)

// targetKind is what a target changes.
type targetKind int

const (
	setValue   targetKind = iota // the whole value at path
	appendItem                   // an item appended to the list at path
	setItem                      // an item of the list at path replaced
	removeItem                   // an item of the list at path removed
	setKey                       // a key of the map at path set (an existing one or a new one)
	removeKey                    // a key of the map at path removed
)

// target is a place of a seed custom resource, as the test gave it (with its
// schema's defaults), that a mutation may change.
type target struct {
	path   []string // from the object's root: "spec", ...
	prop   *apiextensionsv1.JSONSchemaProps
	kind   targetKind
	cur    any  // the seed's value at path; nil when absent
	unsure bool // something above path that the drawing does not model may refuse a valid value (CEL rules, maxProperties)
}

// targets lists the places under spec that mutations may change, in path
// order: every drawable field (scalars, nested objects as a whole, lists,
// maps), and for lists and maps present in the seed their items and keys;
// fields under an object the seed lacks are set with the object as a whole.
func targets(s *apiextensionsv1.JSONSchemaProps, seed map[string]any) []target {
	if s == nil {
		return nil
	}
	spec, ok := s.Properties["spec"]
	if !ok {
		return nil
	}
	var out []target
	var walk func(path []string, p *apiextensionsv1.JSONSchemaProps, cur any, present, unsure bool)
	walk = func(path []string, p *apiextensionsv1.JSONSchemaProps, cur any, present, unsure bool) {
		if !drawable(p) {
			return
		}
		under := unsure || unmodelled(p) // for what lies inside p
		switch {
		case p.Type == "object" && !p.XIntOrString:
			if len(path) > 1 || !present {
				out = append(out, target{path: path, prop: p, kind: setValue, cur: cur, unsure: unsure})
			}
			m, isMap := cur.(map[string]any)
			if !isMap || len(path) >= maxDepth {
				return
			}
			if mapValues(p) != nil {
				out = append(out, target{path: path, prop: p, kind: setKey, cur: cur, unsure: under})
				if len(m) > 0 {
					out = append(out, target{path: path, prop: p, kind: removeKey, cur: cur, unsure: under})
				}
				return
			}
			for _, n := range sortedProps(p) {
				child := p.Properties[n]
				v, has := m[n]
				// A field the seed lacks adds a property: maxProperties may refuse it.
				walk(append(slices.Clone(path), n), &child, v, has, under || (!has && p.MaxProperties != nil))
			}
		case p.Type == "array":
			out = append(out, target{path: path, prop: p, kind: setValue, cur: cur, unsure: unsure},
				target{path: path, prop: p, kind: appendItem, cur: cur, unsure: under})
			if l, ok := cur.([]any); ok && len(l) > 0 {
				out = append(out, target{path: path, prop: p, kind: setItem, cur: cur, unsure: under},
					target{path: path, prop: p, kind: removeItem, cur: cur, unsure: under})
			}
		default:
			out = append(out, target{path: path, prop: p, kind: setValue, cur: cur, unsure: unsure})
		}
	}
	cur, present := seed["spec"]
	walk([]string{"spec"}, &spec, cur, present && cur != nil, unmodelled(s))
	return out
}

// draw draws a mutation of t's place: the arguments after object=, with the
// label (expect=) of what the API answers when it is applied to the seed.
// invalid asks for a value outside the schema where t has one to break.
func (tg target) draw(t *rapid.T, invalid bool) plan.Args {
	field := strings.Join(tg.path, ".")
	p := tg.prop
	var d drawn
	op := opSet
	list, _ := tg.cur.([]any)
	m, _ := tg.cur.(map[string]any)
	minI, maxI, minP, maxP := int64(0), int64(-1), int64(0), int64(-1)
	if p.MinItems != nil {
		minI = *p.MinItems
	}
	if p.MaxItems != nil {
		maxI = *p.MaxItems
	}
	if p.MinProperties != nil {
		minP = *p.MinProperties
	}
	if p.MaxProperties != nil {
		maxP = *p.MaxProperties
	}
	switch tg.kind {
	case setValue:
		d = drawValue(t, p, invalid, 0)
	case appendItem, setItem:
		d = drawValue(t, p.Items.Schema, invalid, 1)
		i := len(list) // the item changed
		if tg.kind == appendItem {
			op = opAppend
		} else {
			i = rapid.IntRange(0, len(list)-1).Draw(t, "item")
			field += "." + strconv.Itoa(i)
		}
		if others := slices.Delete(slices.Clone(list), min(i, len(list)), min(i+1, len(list))); invalid && listType(p) == "set" && len(others) > 0 && rapid.Bool().Draw(t, "duplicate") {
			d = drawn{v: rapid.SampledFrom(others).Draw(t, "duplicate-of"), invalid: true} // a duplicate in a set
		}
		after := append(slices.Clone(list), d.v)
		if tg.kind == setItem {
			after = slices.Clone(list)
			after[i] = d.v
		}
		if !distinctItems(p, after) || (maxI >= 0 && int64(len(after)) > maxI) {
			d.invalid = true // a duplicate in a set or map list, or one item too many
		}
		d.sure = d.sure && !unmodelled(p.Items.Schema)
	case removeItem:
		op = opRemove
		field += "." + strconv.Itoa(rapid.IntRange(0, len(list)-1).Draw(t, "item"))
		d = drawn{invalid: int64(len(list))-1 < minI, sure: true}
	case setKey:
		keys := sortedKeys(m)
		key := "k" + word(t, 4)
		if len(keys) > 0 && rapid.Bool().Draw(t, "existing-key") {
			key = rapid.SampledFrom(keys).Draw(t, "key")
		}
		field += "." + key
		d = drawValue(t, mapValues(p), invalid, 1)
		if _, has := m[key]; !has && maxP >= 0 && int64(len(m))+1 > maxP {
			d.invalid = true
		}
	case removeKey:
		op = opRemove
		field += "." + rapid.SampledFrom(sortedKeys(m)).Draw(t, "key")
		d = drawn{invalid: int64(len(m))-1 < minP, sure: true}
	}
	args := plan.Args{{Key: "field", Value: field}}
	if op != opSet {
		args = append(args, plan.Arg{Key: "op", Value: op})
	}
	if op != opRemove {
		b, _ := json.Marshal(d.v)
		args = append(args, plan.Arg{Key: "value", Value: string(b)})
	}
	expect := expectInvalid
	if !d.invalid {
		expect = expectUnknown
		if d.sure && !tg.unsure {
			expect = expectValid
		}
	}
	return append(args, plan.Arg{Key: "expect", Value: expect})
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m { // lint:order-independent sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// seedContent is obj as the apiserver stores it when the test's world is set
// up: its wire form with the schema's defaults.
func seedContent(obj client.Object, s *apiextensionsv1.JSONSchemaProps) map[string]any {
	var u map[string]any
	if uo, ok := obj.(*unstructured.Unstructured); ok {
		u = runtime.DeepCopyJSON(uo.Object)
	} else {
		var err error
		if u, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return nil
		}
	}
	var props apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, &props, nil); err != nil {
		return u
	}
	if st, err := structuralschema.NewStructural(&props); err == nil {
		structuraldefaulting.Default(u, st)
	}
	return u
}

// workload is the generator of a plan's steps over the test's seed objects.
func (w *world) workload() *rapid.Generator[[]plan.Step] {
	fields := make([][]target, len(w.o.Objects))
	for i, obj := range w.o.Objects {
		gvk, _ := apiutil.GVKForObject(obj, w.o.Scheme)
		for _, c := range w.crds {
			if c.GVK == gvk && c.Schema != nil {
				fields[i] = targets(c.Schema, seedContent(obj, c.Schema))
			}
		}
	}
	step := rapid.Custom(func(t *rapid.T) plan.Step {
		i := rapid.IntRange(0, len(w.o.Objects)-1).Draw(t, "object")
		at := time.Duration(rapid.Int64Range(0, int64(w.o.FaultPhase/time.Millisecond)).Draw(t, "at")) * time.Millisecond
		actions := []string{actionDelete, actionRecreate}
		if len(fields[i]) > 0 {
			actions = []string{actionMutate, actionMutate, actionMutate, actionDelete, actionRecreate}
		}
		s := plan.Step{At: at, Action: rapid.SampledFrom(actions).Draw(t, "action"), Args: plan.Args{{Key: "object", Value: strconv.Itoa(i)}}}
		if s.Action == actionMutate {
			tg := fields[i][rapid.IntRange(0, len(fields[i])-1).Draw(t, "field")]
			s.Args = append(s.Args, tg.draw(t, rapid.IntRange(0, 3).Draw(t, "invalid") == 0)...)
		}
		return s
	})
	return rapid.SliceOfN(step, 0, MaxSteps)
}

// actions interpret the workload's steps.
func (w *world) actions() map[string]cluster.Action {
	object := func(args plan.Args) (client.Object, error) {
		i, err := strconv.Atoi(args.Get("object"))
		if err != nil || i < 0 || i >= len(w.o.Objects) {
			return nil, fmt.Errorf("object=%q: want 0..%d, the index of a seed object", args.Get("object"), len(w.o.Objects)-1)
		}
		return w.o.Objects[i].DeepCopyObject().(client.Object), nil
	}
	return map[string]cluster.Action{
		// Example: at 10s mutate object=0 field=spec.replicas value=3 expect=valid
		// Example: at 10s mutate object=0 field=spec.ports op=append value=8080 expect=valid
		// Example: at 10s mutate object=0 field=spec.labels.team op=remove expect=valid
		//
		// expect= is the label of the drawing (what the API answers when the
		// step meets the seed as the test gave it); the step does not read it.
		actionMutate: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj, err := object(args)
			if err != nil {
				return err
			}
			op := args.Get("op")
			var v any
			switch op {
			case "", opSet, opAppend:
				if v = jsonContent([]byte(args.Get("value"))); v == nil && strings.TrimSpace(args.Get("value")) != "null" {
					return fmt.Errorf("value=%q: not JSON", args.Get("value"))
				}
			case opRemove:
			default:
				return fmt.Errorf("op=%q: want %s, %s or %s", op, opSet, opAppend, opRemove)
			}
			u := &unstructured.Unstructured{}
			gvk, err := apiutil.GVKForObject(obj, w.o.Scheme)
			if err != nil {
				return err
			}
			u.SetGroupVersionKind(gvk)
			if err := c.Admin().Get(context.Background(), client.ObjectKeyFromObject(obj), u); err != nil {
				return err
			}
			if err := change(u.Object, strings.Split(args.Get("field"), "."), op, v); err != nil {
				return fmt.Errorf("field=%s: %w", args.Get("field"), err)
			}
			return c.Admin().Update(context.Background(), u)
		}, "object", "field", "op", "value", "expect"),
		// Example: at 20s delete object=0
		actionDelete: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj, err := object(args)
			if err != nil {
				return err
			}
			return client.IgnoreNotFound(c.Admin().Delete(context.Background(), obj))
		}, "object"),
		// Example: at 30s recreate object=0
		actionRecreate: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj, err := object(args)
			if err != nil {
				return err
			}
			if err := c.Admin().Create(context.Background(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
			return nil
		}, "object"),
	}
}

// change does op at path of content: set v there (creating the objects on
// the way that are absent), append v to the list there, or remove the list
// item or map key there. A list item is named by its index.
func change(content map[string]any, path []string, op string, v any) error {
	if len(path) == 0 || path[0] == "" {
		return fmt.Errorf("no field")
	}
	// holder is the object or list that holds path[:n]'s last element.
	var holder any = content
	for i, seg := range path[:len(path)-1] {
		next, err := get(holder, seg)
		if err != nil {
			return err
		}
		if next == nil {
			if op == opRemove {
				return fmt.Errorf("%s is absent", strings.Join(path[:i+1], "."))
			}
			next = map[string]any{}
			if err := put(holder, seg, next); err != nil {
				return err
			}
		}
		if op == opRemove && i == len(path)-2 {
			// Removing from a list replaces the list in its holder.
			if l, ok := next.([]any); ok {
				idx, err := index(l, path[len(path)-1])
				if err != nil {
					return err
				}
				return put(holder, seg, slices.Delete(slices.Clone(l), idx, idx+1))
			}
		}
		holder = next
	}
	last := path[len(path)-1]
	switch op {
	case opAppend:
		cur, err := get(holder, last)
		if err != nil {
			return err
		}
		l, ok := cur.([]any)
		if cur != nil && !ok {
			return fmt.Errorf("not a list")
		}
		return put(holder, last, append(slices.Clone(l), v))
	case opRemove:
		m, ok := holder.(map[string]any)
		if !ok {
			return fmt.Errorf("not in an object or a list")
		}
		if _, has := m[last]; !has {
			return fmt.Errorf("%s is absent", strings.Join(path, "."))
		}
		delete(m, last)
		return nil
	}
	return put(holder, last, v)
}

// get reads key of an object, or the item at index key of a list; absent
// keys read nil.
func get(holder any, key string) (any, error) {
	switch h := holder.(type) {
	case map[string]any:
		return h[key], nil
	case []any:
		i, err := index(h, key)
		if err != nil {
			return nil, err
		}
		return h[i], nil
	}
	return nil, fmt.Errorf("%s: not in an object or a list", key)
}

// put sets key of an object, or the item at index key of a list.
func put(holder any, key string, v any) error {
	switch h := holder.(type) {
	case map[string]any:
		h[key] = v
		return nil
	case []any:
		i, err := index(h, key)
		if err != nil {
			return err
		}
		h[i] = v
		return nil
	}
	return fmt.Errorf("%s: not in an object or a list", key)
}

func index(l []any, key string) (int, error) {
	i, err := strconv.Atoi(key)
	if err != nil || i < 0 || i >= len(l) {
		return 0, fmt.Errorf("item %s: the list has %d", key, len(l))
	}
	return i, nil
}
