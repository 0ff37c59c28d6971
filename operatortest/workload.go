package operatortest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The workload a plan draws, Acto's way: changes to the seed objects, from the
// CRD schemas. A step mutates one spec field of a seed custom resource to a
// value drawn from its schema, valid (within enum, minimum, maximum) or
// invalid (outside them: the API must refuse it with 422, and the controllers
// must survive it); deletes a seed object; or creates it again as the test gave
// it. Steps happen during the fault phase; a workload shrinks to few steps.
const (
	actionMutate   = "mutate"
	actionDelete   = "delete"
	actionRecreate = "recreate"
)

// MaxSteps bounds the workload steps of a plan.
const MaxSteps = 4

// leaf is a spec field of a custom resource's schema that a mutation may set.
type leaf struct {
	path []string // from the object's root: "spec", ...
	prop apiextensionsv1.JSONSchemaProps
}

// leaves lists the scalar fields under spec, in path order.
func leaves(s *apiextensionsv1.JSONSchemaProps) []leaf {
	if s == nil {
		return nil
	}
	spec, ok := s.Properties["spec"]
	if !ok {
		return nil
	}
	var out []leaf
	var walk func(path []string, p apiextensionsv1.JSONSchemaProps)
	walk = func(path []string, p apiextensionsv1.JSONSchemaProps) {
		switch p.Type {
		case "string", "integer", "number", "boolean":
			out = append(out, leaf{path: path, prop: p})
		case "object":
			names := make([]string, 0, len(p.Properties))
			for n := range p.Properties { // lint:order-independent sorted below
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				walk(append(slices.Clone(path), n), p.Properties[n])
			}
		}
	}
	walk([]string{"spec"}, spec)
	return out
}

// value draws a JSON value for l: valid, or outside the schema when invalid is
// true and the schema has a bound to break (else it is valid too).
func (l leaf) value(t *rapid.T, invalid bool) string {
	p := l.prop
	if len(p.Enum) > 0 {
		if invalid {
			return strconv.Quote("not-" + strings.Trim(string(p.Enum[0].Raw), `"`))
		}
		return string(rapid.SampledFrom(p.Enum).Draw(t, "enum").Raw)
	}
	switch p.Type {
	case "boolean":
		return strconv.FormatBool(rapid.Bool().Draw(t, "bool"))
	case "integer", "number":
		lo, hi := int64(0), int64(10)
		if p.Minimum != nil {
			lo = int64(*p.Minimum)
		}
		if p.Maximum != nil {
			hi = int64(*p.Maximum)
		} else if hi < lo {
			hi = lo + 10
		}
		switch {
		case invalid && p.Minimum != nil:
			return strconv.FormatInt(lo-1, 10)
		case invalid && p.Maximum != nil:
			return strconv.FormatInt(hi+1, 10)
		}
		return strconv.FormatInt(rapid.Int64Range(lo, max(lo, hi)).Draw(t, "int"), 10)
	}
	// A string: a small label-like word (patterns and formats are not drawn).
	return strconv.Quote(rapid.StringMatching(`[a-z][a-z0-9]{0,5}`).Draw(t, "string"))
}

// workload is the generator of a plan's steps over the test's seed objects.
func (w *world) workload() *rapid.Generator[[]plan.Step] {
	fields := make([][]leaf, len(w.o.Objects))
	for i, obj := range w.o.Objects {
		gvk, _ := apiutil.GVKForObject(obj, w.o.Scheme)
		for _, c := range w.crds {
			if c.GVK == gvk {
				fields[i] = leaves(c.Schema)
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
			l := rapid.SampledFrom(fields[i]).Draw(t, "field")
			s.Args = append(s.Args, plan.Arg{Key: "field", Value: strings.Join(l.path, ".")},
				plan.Arg{Key: "value", Value: l.value(t, rapid.IntRange(0, 3).Draw(t, "invalid") == 0)})
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
		// Example: at 10s mutate object=0 field=spec.replicas value=3
		actionMutate: cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
			obj, err := object(args)
			if err != nil {
				return err
			}
			var v any
			if err := json.Unmarshal([]byte(args.Get("value")), &v); err != nil {
				return fmt.Errorf("value=%q: not JSON: %v", args.Get("value"), err)
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
			if err := unstructured.SetNestedField(u.Object, jsonValue(v), strings.Split(args.Get("field"), ".")...); err != nil {
				return err
			}
			return c.Admin().Update(context.Background(), u)
		}, "object", "field", "value"),
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

// jsonValue is v as unstructured content holds it (integers as int64).
func jsonValue(v any) any {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}
