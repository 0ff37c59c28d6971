package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	"github.com/ctrlsim/ctrlsim/operatortest/schemadraw"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
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

// The ways a mutation changes its field (op=; set when absent, as in plans
// saved before op= existed).
const (
	OpSet    = "set"    // field=PATH value=JSON: the value at PATH (a property, a list's item by index, a map's key)
	OpAppend = "append" // field=PATH value=JSON: one more item at the end of the list at PATH
	OpRemove = "remove" // field=PATH: the list item or map key at PATH taken out
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

// Target is a place of a seed custom resource, as the test gave it (with its
// schema's defaults), that a mutation may change.
type Target struct {
	Path   []string // from the object's root: "spec", ...
	prop   *apiextensionsv1.JSONSchemaProps
	Kind   targetKind
	cur    any  // the seed's value at path; nil when absent
	unsure bool // something above path that the drawing does not model may refuse a valid value (CEL rules, maxProperties)
}

// Targets lists the places under spec that mutations may change, in path
// order: every drawable field (scalars, nested objects as a whole, lists,
// maps), and for lists and maps present in the seed their items and keys;
// fields under an object the seed lacks are set with the object as a whole.
func Targets(s *apiextensionsv1.JSONSchemaProps, seed map[string]any) []Target {
	if s == nil {
		return nil
	}
	spec, ok := s.Properties["spec"]
	if !ok {
		return nil
	}
	var out []Target
	var walk func(path []string, p *apiextensionsv1.JSONSchemaProps, cur any, present, unsure bool)
	walk = func(path []string, p *apiextensionsv1.JSONSchemaProps, cur any, present, unsure bool) {
		if !schemadraw.Drawable(p) {
			return
		}
		under := unsure || schemadraw.Unmodelled(p) // for what lies inside p
		switch {
		case p.Type == "object" && !p.XIntOrString:
			if len(path) > 1 || !present {
				out = append(out, Target{Path: path, prop: p, Kind: setValue, cur: cur, unsure: unsure})
			}
			m, isMap := cur.(map[string]any)
			if !isMap || len(path) >= schemadraw.MaxDepth {
				return
			}
			if schemadraw.MapValues(p) != nil {
				out = append(out, Target{Path: path, prop: p, Kind: setKey, cur: cur, unsure: under})
				if len(m) > 0 {
					out = append(out, Target{Path: path, prop: p, Kind: removeKey, cur: cur, unsure: under})
				}
				return
			}
			for _, n := range schemadraw.SortedProps(p) {
				child := p.Properties[n]
				v, has := m[n]
				// A field the seed lacks adds a property: maxProperties may refuse it.
				walk(append(slices.Clone(path), n), &child, v, has, under || (!has && p.MaxProperties != nil))
			}
		case p.Type == "array":
			out = append(out, Target{Path: path, prop: p, Kind: setValue, cur: cur, unsure: unsure},
				Target{Path: path, prop: p, Kind: appendItem, cur: cur, unsure: under})
			if l, ok := cur.([]any); ok && len(l) > 0 {
				out = append(out, Target{Path: path, prop: p, Kind: setItem, cur: cur, unsure: under},
					Target{Path: path, prop: p, Kind: removeItem, cur: cur, unsure: under})
			}
		default:
			out = append(out, Target{Path: path, prop: p, Kind: setValue, cur: cur, unsure: unsure})
		}
	}
	cur, present := seed["spec"]
	walk([]string{"spec"}, &spec, cur, present && cur != nil, schemadraw.Unmodelled(s))
	return out
}

// draw draws a mutation of t's place: the arguments after object=, with the
// label (expect=) of what the API answers when it is applied to the seed.
// invalid asks for a value outside the schema where t has one to break.
func (tg Target) DrawTarget(t *rapid.T, invalid bool) plan.Args {
	field := strings.Join(tg.Path, ".")
	p := tg.prop
	var d schemadraw.Drawn
	op := OpSet
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
	switch tg.Kind {
	case setValue:
		d = schemadraw.DrawValue(t, p, invalid, 0)
	case appendItem, setItem:
		d = schemadraw.DrawValue(t, p.Items.Schema, invalid, 1)
		i := len(list) // the item changed
		if tg.Kind == appendItem {
			op = OpAppend
		} else {
			i = rapid.IntRange(0, len(list)-1).Draw(t, "item")
			field += "." + strconv.Itoa(i)
		}
		if others := slices.Delete(slices.Clone(list), min(i, len(list)), min(i+1, len(list))); invalid && schemadraw.ListType(p) == "set" && len(others) > 0 && rapid.Bool().Draw(t, "duplicate") {
			d = schemadraw.Drawn{V: rapid.SampledFrom(others).Draw(t, "duplicate-of"), Invalid: true} // a duplicate in a set
		}
		after := append(slices.Clone(list), d.V)
		if tg.Kind == setItem {
			after = slices.Clone(list)
			after[i] = d.V
		}
		if !schemadraw.DistinctItems(p, after) || (maxI >= 0 && int64(len(after)) > maxI) {
			d.Invalid = true // a duplicate in a set or map list, or one item too many
		}
		d.Sure = d.Sure && !schemadraw.Unmodelled(p.Items.Schema)
	case removeItem:
		op = OpRemove
		field += "." + strconv.Itoa(rapid.IntRange(0, len(list)-1).Draw(t, "item"))
		d = schemadraw.Drawn{Invalid: int64(len(list))-1 < minI, Sure: true}
	case setKey:
		keys := sortedKeys(m)
		key := "k" + schemadraw.Word(t, 4)
		if len(keys) > 0 && rapid.Bool().Draw(t, "existing-key") {
			key = rapid.SampledFrom(keys).Draw(t, "key")
		}
		field += "." + key
		d = schemadraw.DrawValue(t, schemadraw.MapValues(p), invalid, 1)
		if _, has := m[key]; !has && maxP >= 0 && int64(len(m))+1 > maxP {
			d.Invalid = true
		}
	case removeKey:
		op = OpRemove
		field += "." + rapid.SampledFrom(sortedKeys(m)).Draw(t, "key")
		d = schemadraw.Drawn{Invalid: int64(len(m))-1 < minP, Sure: true}
	}
	args := plan.Args{{Key: "field", Value: field}}
	if op != OpSet {
		args = append(args, plan.Arg{Key: "op", Value: op})
	}
	if op != OpRemove {
		b, _ := json.Marshal(d.V)
		args = append(args, plan.Arg{Key: "value", Value: string(b)})
	}
	expect := schemadraw.ExpectInvalid
	if !d.Invalid {
		expect = schemadraw.ExpectUnknown
		if d.Sure && !tg.unsure {
			expect = schemadraw.ExpectValid
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

// SeedContent is obj as the apiserver stores it when the test's world is set
// up: its wire form with the schema's defaults.
func SeedContent(obj client.Object, s *apiextensionsv1.JSONSchemaProps) map[string]any {
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

// workload is the generator of a plan's steps: the script's (Options.Workload),
// then those drawn over the seed objects; nil when a plan has no steps. It also
// returns the kinds of the objects the script creates (judged and collected
// as the seed objects' are).
func Draw(w *world.World) (*rapid.Generator[[]plan.Step], []schema.GroupVersionKind, error) {
	wl := w.Opts.Workload
	script, kinds, err := wl.PlanSteps(w.Opts.Scheme, w.Opts.FaultPhase+w.Opts.HealBudget)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range wl.Steps {
		if !slices.Contains(world.StepKinds, k) {
			return nil, nil, fmt.Errorf("Steps: unknown kind %q (want %v)", k, world.StepKinds)
		}
	}
	if err := world.ValidateSystems(w.Opts.Systems, wl.Domain); err != nil { // systems.go
		return nil, nil, err
	}
	allow := func(k world.StepKind) bool { return wl.Steps == nil || slices.Contains(wl.Steps, k) }
	sp, err := seedPlaces(w)
	if err != nil {
		return nil, nil, err
	}
	drawable, actions, fields := sp.drawable, sp.actions, sp.fields
	if len(drawable) == 0 && (wl.Objects != nil || len(wl.Steps) > 0) && !w.Opts.NoWorkload {
		return nil, nil, fmt.Errorf("Steps %v over Objects: no seed object can draw any of them (a mutation needs a seed custom resource whose CRD has a schema under spec)", wl.Steps)
	}
	var drawn *rapid.Generator[[]plan.Step]
	if len(drawable) > 0 && !w.Opts.NoWorkload {
		step := rapid.Custom(func(t *rapid.T) plan.Step {
			i := drawable[rapid.IntRange(0, len(drawable)-1).Draw(t, "object")]
			at := time.Duration(rapid.Int64Range(0, int64(w.Opts.FaultPhase/time.Millisecond)).Draw(t, "at")) * time.Millisecond
			s := plan.Step{At: at, Action: rapid.SampledFrom(actions[i]).Draw(t, "action"), Args: plan.Args{{Key: "object", Value: strconv.Itoa(i)}}}
			if s.Action == world.ActionMutate {
				tg := fields[i][rapid.IntRange(0, len(fields[i])-1).Draw(t, "field")]
				invalid := rapid.IntRange(0, 3).Draw(t, "invalid") == 0
				switch {
				case !allow(world.InvalidMutations):
					invalid = false
				case !allow(world.Mutations):
					// A breakable place drawn invalid may still draw a valid
					// value (a set's item that happens to be new): drawn again.
					s.Args = append(s.Args, rapid.Custom(func(t *rapid.T) plan.Args { return tg.DrawTarget(t, true) }).
						Filter(func(a plan.Args) bool { return a.Get("expect") == schemadraw.ExpectInvalid }).Draw(t, "invalid-mutation")...)
					return s
				}
				s.Args = append(s.Args, tg.DrawTarget(t, invalid)...)
			}
			return s
		})
		drawn = rapid.SliceOfN(step, 0, world.MaxSteps)
	}
	drawn = join(drawn, domainGenerator(w)) // steps.go
	if len(script) == 0 {
		return drawn, kinds, nil
	}
	return rapid.Custom(func(t *rapid.T) []plan.Step {
		steps := slices.Clone(script)
		if drawn != nil {
			steps = append(steps, drawn.Draw(t, "drawn")...)
		} else {
			_ = rapid.Bool().Draw(t, "script-only") // rapid wants a draw from every generator
		}
		return steps
	}), kinds, nil
}

// places are the seed objects a workload may change: those that can draw a
// step (drawable, in index order), the actions each may draw (in the
// weights of the full workload) and the places of each a mutation may set.
type places struct {
	drawable []int
	actions  [][]string
	fields   [][]Target
}

// seedPlaces are w's places (Options.Workload's Objects and Steps).
func seedPlaces(w *world.World) (places, error) {
	wl := w.Opts.Workload
	allow := func(k world.StepKind) bool { return wl.Steps == nil || slices.Contains(wl.Steps, k) }
	touched := make([]bool, len(w.Opts.Objects))
	if wl.Objects == nil {
		touched = theOperators(w)
	}
	for _, obj := range wl.Objects {
		i := seedIndex(w, obj)
		if i < 0 {
			return places{}, fmt.Errorf("Objects: %T %s is not one of Options.Objects (matched by kind, namespace and name)", obj, client.ObjectKeyFromObject(obj))
		}
		touched[i] = true
	}
	fields := make([][]Target, len(w.Opts.Objects))
	for i, obj := range w.Opts.Objects {
		gvk, _ := apiutil.GVKForObject(obj, w.Opts.Scheme)
		for _, c := range w.CRDs {
			if c.GVK == gvk && c.Schema != nil {
				fields[i] = Targets(c.Schema, SeedContent(obj, c.Schema))
			}
		}
	}
	if !allow(world.Mutations) && allow(world.InvalidMutations) {
		// Invalid values only: the places that have a constraint to break.
		for i := range fields {
			fields[i] = slices.DeleteFunc(fields[i], func(tg Target) bool { return !breakable(tg) })
		}
	}
	// The actions each seed object may draw, in the weights of the full
	// workload (three mutations to one deletion and one re-creation), and
	// the objects that have any.
	actions := make([][]string, len(w.Opts.Objects))
	var drawable []int
	for i := range w.Opts.Objects {
		if !touched[i] {
			continue
		}
		if len(fields[i]) > 0 && (allow(world.Mutations) || allow(world.InvalidMutations)) {
			actions[i] = append(actions[i], world.ActionMutate, world.ActionMutate, world.ActionMutate)
		}
		if allow(world.Deletions) {
			actions[i] = append(actions[i], world.ActionDelete)
		}
		if allow(world.Recreations) {
			actions[i] = append(actions[i], world.ActionRecreate)
		}
		if len(actions[i]) > 0 {
			drawable = append(drawable, i)
		}
	}
	return places{drawable: drawable, actions: actions, fields: fields}, nil
}

// theOperators are the seed objects the default workload (Workload.Objects
// nil) changes: the operator's own, its inputs, which a user edits and
// deletes. Those are the seed custom resources and the seeds they own (a
// seed whose ownerReferences name a seed custom resource); the seeds of
// built-in kinds besides are the cluster's set-up (a Namespace, a registry
// ConfigMap in a system namespace), as an install made them, which no user
// of the operator deletes. An operator of built-in kinds alone (no seed
// custom resource) takes its seeds as its inputs: every seed.
func theOperators(w *world.World) []bool {
	out := make([]bool, len(w.Opts.Objects))
	custom := map[string]bool{} // the seed custom resources, by kind and name
	for i, obj := range w.Opts.Objects {
		gvk, err := apiutil.GVKForObject(obj, w.Opts.Scheme)
		if err == nil && !clientgoscheme.Scheme.Recognizes(gvk) && gvk.Group != apiextensionsv1.GroupName {
			out[i] = true
			custom[gvk.Kind+"/"+obj.GetName()] = true
		}
	}
	if len(custom) == 0 {
		for i := range out {
			out[i] = true
		}
		return out
	}
	for i, obj := range w.Opts.Objects {
		for _, ref := range obj.GetOwnerReferences() {
			if custom[ref.Kind+"/"+ref.Name] {
				out[i] = true
			}
		}
	}
	return out
}

// Lifecycle are the user's workloads a sweep adds to the script, one each
// (the search's sweep): one step on one seed object, a third of the way
// into the fault phase, when a correct operator has long settled. For each
// seed object that may draw a step, in index order: its deletion, then a
// valid change of its first place that can take one (drawn by the schema,
// the same value every time). The faults of the sweep are then aimed at
// what the user's step changed: the past of the object a process restarts
// onto, the crash after the operator's answer to it. None when the test has
// no workload (NoWorkload) or its Steps allow neither.
func Lifecycle(w *world.World) ([][]plan.Step, error) {
	first, _, err := lifecycles(w)
	return first, err
}

// Recreations are the workloads a sweep adds after Lifecycle's: for each
// seed object that may draw a step, in index order, the object deleted and
// created again under its name at once (1 ms later: the create is retried
// while the old one is still being deleted, as a user's or a GitOps tool's
// is), deleted and created again after its deletion has completed (Settle
// later), and its first numeric place that can take a valid change changed
// and changed back Settle later (a scale down and up): what the stale-view
// bugs of stateful operators need (a view frozen at the deletion, after the
// re-creation; a replica count undone). Each kind of step only when the
// test allows it (a re-creation needs deletions and re-creations); none
// without a workload.
func Recreations(w *world.World) ([][]plan.Step, error) {
	_, again, err := lifecycles(w)
	return again, err
}

// lifecycles are Lifecycle's workloads and Recreations'.
func lifecycles(w *world.World) (first, again [][]plan.Step, err error) {
	if w.Opts.NoWorkload {
		return nil, nil, nil
	}
	sp, err := seedPlaces(w)
	if err != nil {
		return nil, nil, err
	}
	at := (w.Opts.FaultPhase / 3).Truncate(time.Millisecond)
	later := at + Settle(w)
	for _, i := range sp.drawable {
		object := plan.Args{{Key: "object", Value: strconv.Itoa(i)}}
		del := plan.Step{At: at, Action: world.ActionDelete, Args: object}
		if slices.Contains(sp.actions[i], world.ActionDelete) {
			first = append(first, []plan.Step{del})
			if slices.Contains(sp.actions[i], world.ActionRecreate) {
				again = append(again,
					[]plan.Step{del, {At: at + time.Millisecond, Action: world.ActionRecreate, Args: object}},
					[]plan.Step{del, {At: later, Action: world.ActionRecreate, Args: object}})
			}
		}
		if !slices.Contains(sp.actions[i], world.ActionMutate) {
			continue
		}
		for _, tg := range sp.fields[i] {
			if args, ok := tg.validChange(); ok {
				first = append(first, []plan.Step{{At: at, Action: world.ActionMutate, Args: append(slices.Clone(object), args...)}})
				break
			}
		}
		for _, tg := range sp.fields[i] {
			if _, numeric := tg.cur.(float64); !numeric {
				if _, numeric = tg.cur.(int64); !numeric {
					continue
				}
			}
			if args, ok := tg.validChange(); ok {
				cur, _ := json.Marshal(tg.cur)
				back := slices.Clone(args)
				for k := range back {
					if back[k].Key == "value" {
						back[k].Value = string(cur)
					}
				}
				again = append(again, []plan.Step{
					{At: at, Action: world.ActionMutate, Args: append(slices.Clone(object), args...)},
					{At: later, Action: world.ActionMutate, Args: append(slices.Clone(object), back...)}})
				break
			}
		}
	}
	return first, again, nil
}

// Settle is how long after a lifecycle's first step its second comes when
// it waits for the operator's answer (a deletion completed, a scale-down
// done): a sixth of the fault phase, which leaves the second step a third of
// it before the heal.
func Settle(w *world.World) time.Duration {
	return (w.Opts.FaultPhase / 6).Truncate(time.Millisecond)
}

// validChange is a valid value for tg's place that is not the seed's, drawn
// the same every time; false when a few drawings find none.
func (tg Target) validChange() (plan.Args, bool) {
	if tg.Kind != setValue || tg.unsure {
		return nil, false
	}
	cur, _ := json.Marshal(tg.cur)
	for seed := range 8 {
		if args := tg.example(seed, false); args.Get("expect") == schemadraw.ExpectValid && args.Get("value") != string(cur) {
			return args, true
		}
	}
	return nil, false
}

// breakable reports whether tg has a constraint a drawn value can break: one
// of a few drawings asked for an invalid value is labelled invalid.
func breakable(tg Target) bool {
	for seed := range 8 {
		if tg.example(seed, true).Get("expect") == schemadraw.ExpectInvalid {
			return true
		}
	}
	return false
}

// example is a mutation of tg's place drawn outside a rapid check, the same
// for the same seed.
func (tg Target) example(seed int, invalid bool) plan.Args {
	return rapid.Custom(func(t *rapid.T) plan.Args {
		_ = rapid.Bool().Draw(t, "draw") // some draws take no data; rapid wants some
		return tg.DrawTarget(t, invalid)
	}).Example(seed)
}

// seedIndex is the index of the seed object with obj's kind, namespace and
// name, or -1.
func seedIndex(w *world.World, obj client.Object) int {
	gvk, err := apiutil.GVKForObject(obj, w.Opts.Scheme)
	if err != nil {
		return -1
	}
	for i, o := range w.Opts.Objects {
		if g, _ := apiutil.GVKForObject(o, w.Opts.Scheme); g == gvk && client.ObjectKeyFromObject(o) == client.ObjectKeyFromObject(obj) {
			return i
		}
	}
	return -1
}

// The user's retries: a step that did not land is tried again after
// retryFirst, then twice as long each time up to retryMax.
const (
	retryFirst = time.Second
	retryMax   = 10 * time.Second
)

// user runs the workload's steps as a user (or a GitOps tool) does: the
// steps on one object in their order, each until it has landed. A step that
// meets a passing condition (a create that meets the old object still being
// deleted; for scripted steps, a transient error) is retried, with back-off,
// until it lands or the heal budget ends; a later step on the same object
// waits for it and runs right after it. A real user does not drop a
// re-creation because a finalizer was still running, nor run a deletion
// before the creation it follows. One user per run.
type user struct {
	c    *cluster.Cluster
	end  time.Duration              // the end of the heal budget
	busy map[string]*waitingForStep // by object: a step being retried, and the steps behind it
}

type userStep struct {
	action string
	try    func() error // a *retry: not landed yet
}

type waitingForStep struct {
	action string
	behind []userStep
}

// retry is a step's failure that passes: the user tries again.
type retry struct{ why string }

func (r *retry) Error() string { return r.why }

// run runs a step on the object key now, or queues it behind the step on key
// that is being retried, or behind the creation of a seed object whose kind
// is not served yet (the user applied it and it waits for its CRD, as an
// applier retries it: crds.go). Its error is the step's timeline line.
func (u *user) run(key, action string, try func() error) error {
	if v, ok := world.SeedsPending.Load(u.c); ok && u.busy[key] == nil && v.(*world.PendingSeeds).Holds(key) {
		p := v.(*world.PendingSeeds)
		u.busy[key] = &waitingForStep{action: "create"}
		p.Created = append(p.Created, func(created string) {
			if created == key {
				u.release(key)
			}
		})
	}
	if q, ok := u.busy[key]; ok {
		q.behind = append(q.behind, userStep{action, try})
		return &cluster.Pending{Reason: fmt.Sprintf("waits for the %s of %s, which is being retried; runs right after it", q.action, key)}
	}
	err, _ := u.attempt(key, userStep{action, try}, 0)
	return err
}

// attempt tries s (its n-th retry); done is false while it is being retried.
func (u *user) attempt(key string, s userStep, n int) (err error, done bool) {
	err = s.try()
	var r *retry
	if !errors.As(err, &r) {
		return err, true
	}
	delay := min(retryFirst<<min(n, 8), retryMax)
	if u.c.Now()+delay >= u.end {
		return fmt.Errorf("given up, the heal budget ends before the next try: %s", r.why), true
	}
	if u.busy[key] == nil {
		u.busy[key] = &waitingForStep{action: s.action}
	}
	u.c.Clock.AfterFunc(delay, func() {
		err, done := u.attempt(key, s, n+1)
		u.c.RecordAction(s.action, err)
		if done {
			u.release(key)
		}
	})
	return &cluster.Pending{Reason: fmt.Sprintf("%s; tried again in %s, as a user or a GitOps tool retries", r.why, delay)}, false
}

// release runs the steps that waited behind key's retried step, in order,
// until one of them is retried in its turn.
func (u *user) release(key string) {
	q := u.busy[key]
	delete(u.busy, key)
	if q == nil {
		return
	}
	for i, s := range q.behind {
		err, done := u.attempt(key, s, 0)
		u.c.RecordAction(s.action, err)
		if !done {
			u.busy[key].behind = append(u.busy[key].behind, q.behind[i+1:]...)
			return
		}
	}
}

// createOrRetry creates obj; an AlreadyExists while the object of that name is
// being deleted is a *retry. exists is what an AlreadyExists of a live object
// returns.
func createOrRetry(c *cluster.Cluster, obj client.Object, exists func(error) error) error {
	err := c.Admin().Create(context.Background(), obj)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	if gerr := c.Get(client.ObjectKeyFromObject(obj), old); gerr == nil && old.GetDeletionTimestamp() == nil {
		return exists(err)
	} else if gerr == nil {
		return &retry{fmt.Sprintf("AlreadyExists: %s is still being deleted (finalizers %v)", objectName(obj), old.GetFinalizers())}
	}
	return &retry{"AlreadyExists: " + objectName(obj) + " (gone by now)"}
}

// transient makes a transient error of a scripted step (429, 500, 503, 504,
// a timeout) a *retry, as a user's client retries it.
func transient(err error) error {
	if apierrors.IsTooManyRequests(err) || apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) ||
		apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) {
		return &retry{err.Error()}
	}
	return err
}

func objectName(obj client.Object) string {
	return canon.ObjectKey(obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName())
}

// Actions interpret the workload's steps: the drawn ones (mutate, delete and
// recreate a seed object by its index) and the scripted ones (create, patch,
// delete an object named by kind=, namespace= and name=), all run by one
// user.
func Actions(w *world.World) map[string]cluster.Action {
	var u *user
	userOf := func(c *cluster.Cluster) *user {
		if u == nil || u.c != c {
			u = &user{c: c, end: w.Opts.FaultPhase + w.Opts.HealBudget, busy: map[string]*waitingForStep{}}
		}
		return u
	}
	seed := func(args plan.Args) (client.Object, string, error) {
		i, err := strconv.Atoi(args.Get("object"))
		if err != nil || i < 0 || i >= len(w.Opts.Objects) {
			return nil, "", fmt.Errorf("object=%q: want 0..%d, the index of a seed object", args.Get("object"), len(w.Opts.Objects)-1)
		}
		obj := w.Opts.Objects[i].DeepCopyObject().(client.Object)
		gvk, err := apiutil.GVKForObject(obj, w.Opts.Scheme)
		if err != nil {
			return nil, "", err
		}
		return obj, world.UserKey(gvk, obj.GetNamespace(), obj.GetName()), nil
	}
	named := func(args plan.Args) (*unstructured.Unstructured, string, error) {
		parts := strings.Split(args.Get("kind"), "/")
		if len(parts) != 3 || parts[1] == "" || parts[2] == "" || args.Get("name") == "" {
			return nil, "", fmt.Errorf("kind=%q name=%q: want kind=group/version/Kind and a name", args.Get("kind"), args.Get("name"))
		}
		gvk := schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(gvk)
		obj.SetNamespace(args.Get("namespace"))
		obj.SetName(args.Get("name"))
		return obj, world.UserKey(gvk, obj.GetNamespace(), obj.GetName()), nil
	}
	actions := map[string]cluster.Action{
		// Example: at 10s mutate object=0 field=spec.replicas value=3 expect=valid
		// Example: at 10s mutate object=0 field=spec.ports op=append value=8080 expect=valid
		// Example: at 10s mutate object=0 field=spec.labels.team op=remove expect=valid
		//
		// expect= is the label of the drawing (what the API answers when the
		// step meets the seed as the test gave it); the step does not read it.
		world.ActionMutate: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj, key, err := seed(args)
			if err != nil {
				return err
			}
			op := args.Get("op")
			var v any
			switch op {
			case "", OpSet, OpAppend:
				if v = schemadraw.JSONContent([]byte(args.Get("value"))); v == nil && strings.TrimSpace(args.Get("value")) != "null" {
					return fmt.Errorf("value=%q: not JSON", args.Get("value"))
				}
			case OpRemove:
			default:
				return fmt.Errorf("op=%q: want %s, %s or %s", op, OpSet, OpAppend, OpRemove)
			}
			return userOf(c).run(key, world.ActionMutate, func() error {
				u := &unstructured.Unstructured{}
				gvk, err := apiutil.GVKForObject(obj, w.Opts.Scheme)
				if err != nil {
					return err
				}
				u.SetGroupVersionKind(gvk)
				if err := c.Admin().Get(context.Background(), client.ObjectKeyFromObject(obj), u); err != nil {
					return err
				}
				if err := Change(u.Object, strings.Split(args.Get("field"), "."), op, v); err != nil {
					return fmt.Errorf("field=%s: %w", args.Get("field"), err)
				}
				return c.Admin().Update(context.Background(), u)
			})
		}, "object", "field", "op", "value", "expect"),
		// Example: at 20s delete object=0 (a seed object)
		// Example: script at 20s delete kind=apps/v1/Deployment namespace=default name=web
		world.ActionDelete: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			if args.Get("object") != "" {
				obj, key, err := seed(args)
				if err != nil {
					return err
				}
				return userOf(c).run(key, world.ActionDelete, func() error {
					return client.IgnoreNotFound(c.Admin().Delete(context.Background(), obj))
				})
			}
			obj, key, err := named(args)
			if err != nil {
				return err
			}
			return userOf(c).run(key, world.ActionDelete, func() error {
				return transient(c.Admin().Delete(context.Background(), obj))
			})
		}, "object", "kind", "namespace", "name"),
		// Example: at 30s recreate object=0
		world.ActionRecreate: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj, key, err := seed(args)
			if err != nil {
				return err
			}
			if gvk, err := apiutil.GVKForObject(obj, w.Opts.Scheme); err == nil {
				obj.GetObjectKind().SetGroupVersionKind(gvk)
			}
			return userOf(c).run(key, world.ActionRecreate, func() error {
				// A seed that exists (it was not deleted) is there: done.
				return createOrRetry(c, obj.DeepCopyObject().(client.Object), func(error) error { return nil })
			})
		}, "object"),
		// Example: script at 0s create content={"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"default"}}
		world.ActionCreate: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON([]byte(args.Get("content"))); err != nil {
				return fmt.Errorf("content=: %v", err)
			}
			if obj.GetName() == "" {
				return fmt.Errorf("content=: the object has no name")
			}
			key := world.UserKey(obj.GroupVersionKind(), obj.GetNamespace(), obj.GetName())
			return userOf(c).run(key, world.ActionCreate, func() error {
				if err := ensureNamespace(c, obj.GetNamespace()); err != nil {
					return transient(err)
				}
				return transient(createOrRetry(c, obj.DeepCopy(), func(err error) error { return err }))
			})
		}, "content"),
		// Example: script at 5s patch kind=apps/v1/Deployment namespace=default name=web patch={"spec":{"replicas":3}}
		world.ActionPatch: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj, key, err := named(args)
			if err != nil {
				return err
			}
			patch := []byte(args.Get("patch"))
			return userOf(c).run(key, world.ActionPatch, func() error {
				return transient(c.Admin().Patch(context.Background(), obj.DeepCopy(), client.RawPatch(types.MergePatchType, patch)))
			})
		}, "kind", "namespace", "name", "patch"),
	}
	domainActions(w, actions, userOf) // steps.go
	return actions
}

// ensureNamespace creates namespace (as a GitOps tool with its
// create-namespace option does) unless it exists.
func ensureNamespace(c *cluster.Cluster, namespace string) error {
	if namespace == "" {
		return nil
	}
	ns := &unstructured.Unstructured{}
	ns.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	if err := c.Get(client.ObjectKey{Name: namespace}, ns); !apierrors.IsNotFound(err) {
		return err
	}
	ns.SetName(namespace)
	return client.IgnoreAlreadyExists(c.Admin().Create(context.Background(), ns))
}

// Change does op at path of content: set v there (creating the objects on
// the way that are absent), append v to the list there, or remove the list
// item or map key there. A list item is named by its index.
func Change(content map[string]any, path []string, op string, v any) error {
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
			if op == OpRemove {
				return fmt.Errorf("%s is absent", strings.Join(path[:i+1], "."))
			}
			next = map[string]any{}
			if err := put(holder, seg, next); err != nil {
				return err
			}
		}
		if op == OpRemove && i == len(path)-2 {
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
	case OpAppend:
		cur, err := get(holder, last)
		if err != nil {
			return err
		}
		l, ok := cur.([]any)
		if cur != nil && !ok {
			return fmt.Errorf("not a list")
		}
		return put(holder, last, append(slices.Clone(l), v))
	case OpRemove:
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

// domainGenerator draws the domain steps of a plan (nil: there are none).
func domainGenerator(w *world.World) *rapid.Generator[[]plan.Step] {
	steps := world.DomainSteps(w.Opts.Workload.Domain, w.Opts.Systems, int64(w.Opts.FaultPhase))
	if len(steps) == 0 {
		return nil
	}
	return rapid.Custom(func(t *rapid.T) []plan.Step {
		var out []plan.Step
		first := map[string]time.Duration{} // each name's first step's time
		for _, d := range steps {
			within, max := cmpOr(d.Within, w.Opts.FaultPhase), d.Max
			if max == 0 {
				max = world.MaxSteps
			}
			base, ok := time.Duration(0), true
			if d.After != "" {
				base, ok = first[d.After]
			}
			if !ok {
				continue // After's step is not in this plan
			}
			n := rapid.IntRange(d.Min, max).Draw(t, d.Name+"-count")
			for range n {
				from := min(d.From, within)
				at := base + from + time.Duration(rapid.Int64Range(0, int64((within-from)/time.Millisecond)).Draw(t, d.Name+"-at"))*time.Millisecond
				if f, seen := first[d.Name]; !seen || at < f {
					first[d.Name] = at
				}
				var args world.Args
				if d.Draw != nil {
					args = d.Draw(t)
				} else {
					for _, p := range d.Params {
						if v := rapid.SampledFrom(p.Values).Draw(t, d.Name+"-"+p.Key); v != "" {
							args = append(args, plan.Arg{Key: p.Key, Value: v})
						}
					}
				}
				out = append(out, plan.Step{At: at, Action: d.Name, Args: args})
			}
		}
		return out
	})
}

// Required are the domain steps every plan draws (Min 1 or more), each
// drawn as simply as a plan can draw it (what rapid shrinks a draw to): Min
// of them, at the earliest time the step allows (From, after the first
// step of its After), each parameter at its first value (a Draw's
// parameters as it draws them from rapid's example of seed 0). They are
// what every run of the world starts from (a version published, the
// user's broken objects applied): the sweep's workloads and plan 0 run
// them too, so that no targeted plan aims at a world no drawn plan
// reaches.
func Required(w *world.World) []plan.Step {
	var out []plan.Step
	first := map[string]time.Duration{}
	for _, d := range world.DomainSteps(w.Opts.Workload.Domain, w.Opts.Systems, int64(w.Opts.FaultPhase)) {
		if d.Min < 1 {
			continue
		}
		base, ok := time.Duration(0), true
		if d.After != "" {
			base, ok = first[d.After]
		}
		if !ok {
			continue // its After's step is drawn in no plan
		}
		at := base + min(d.From, cmpOr(d.Within, w.Opts.FaultPhase))
		if _, seen := first[d.Name]; !seen {
			first[d.Name] = at
		}
		var args world.Args
		if d.Draw != nil {
			args = rapid.Custom(func(t *rapid.T) world.Args { return d.Draw(t) }).Example(0)
		} else {
			for _, p := range d.Params {
				if len(p.Values) > 0 && p.Values[0] != "" {
					args = append(args, plan.Arg{Key: p.Key, Value: p.Values[0]})
				}
			}
		}
		for range d.Min {
			out = append(out, plan.Step{At: at, Action: d.Name, Args: args})
		}
	}
	return out
}

// domainActions interpret the domain steps, run by the workload's user
// (userOf): the steps of one name in their order.
func domainActions(w *world.World, actions map[string]cluster.Action, userOf func(*cluster.Cluster) *user) {
	for _, d := range world.DomainSteps(w.Opts.Workload.Domain, w.Opts.Systems, 0) {
		actions[d.Name] = cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			return userOf(c).run("domain "+d.Name, d.Name, func() error {
				return d.Do(context.Background(), world.StepEnv{Client: c.Admin(), Now: c.Now(), Clock: c.Clock}, args)
			})
		}, d.ParamKeys()...)
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// join draws the steps of both generators (either may be nil).
func join(a, b *rapid.Generator[[]plan.Step]) *rapid.Generator[[]plan.Step] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return rapid.Custom(func(t *rapid.T) []plan.Step {
		return append(a.Draw(t, "seed-steps"), b.Draw(t, "domain-steps")...)
	})
}

// Source is Draw and Actions as a world's WorkloadSource (world.Build).
type Source struct{}

// Draw is the package's Draw.
func (Source) Draw(w *world.World) (*rapid.Generator[[]plan.Step], []schema.GroupVersionKind, error) {
	return Draw(w)
}

// Actions is the package's Actions.
func (Source) Actions(w *world.World) map[string]cluster.Action { return Actions(w) }
