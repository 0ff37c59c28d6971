package world

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Workload shapes the workload of every plan: which seed objects the
// generated steps touch, which kinds of step they draw, and a script of the
// author's own steps at given times. The zero Workload draws every kind of
// step over every seed object, with no script.
//
// The script is run by the harness itself, as cluster admin (a user with
// kubectl, or a GitOps tool): never crashed, restarted or stalled as an
// operator's process is, never shrunk away, and written in each plan's text
// ("script at 25s create ..."), so that a saved plan replays it as it ran.
// The generated steps happen around it. Like a user, a scripted step that
// meets a transient error (429, 500, 503, 504, a timeout) or a create that
// meets the old object still being deleted (AlreadyExists while a finalizer
// holds it) is retried until it lands or the heal budget ends, and the
// steps on the same object after it wait for it, in their order; the
// timeline says so ("pending: ..."). Other refusals (a 422, NotFound) are a
// line of the timeline, never a violation.
//
//	Workload: operatortest.Workload{
//		Steps: []operatortest.StepKind{operatortest.Mutations}, // valid values only, no deletions
//		Script: []operatortest.Step{
//			operatortest.Create(0, app),
//			operatortest.Patch(5*time.Second, app, `{"spec":{"replicas":3}}`),
//			operatortest.Patch(15*time.Second, app, `{"spec":{"replicas":2}}`),
//			operatortest.Delete(20*time.Second, app),
//			operatortest.Create(35*time.Second, app), // re-created
//		},
//	},
type Workload struct {
	// Objects are the seed objects the generated steps touch: elements of
	// Options.Objects, matched by kind, namespace and name. Nil: the
	// operator's own, the seed custom resources and the seeds whose
	// ownerReferences name one; seeds of built-in kinds besides (a
	// Namespace, a ConfigMap in a system namespace, a Secret the operator
	// reads) are the cluster's set-up, as an install made them, and only
	// Objects naming them lets the workload edit or delete them. A test
	// with no seed custom resource (an operator of built-in kinds) has
	// every seed drawn.
	Objects []client.Object
	// Steps are the kinds of step drawn (Mutations, InvalidMutations,
	// Deletions, Recreations). Nil: all of them. Empty but not nil: none (the script
	// alone runs).
	Steps []StepKind
	// Script is the author's steps (Create, Patch, Delete), each at its
	// time from the start of the run (within the fault phase and the heal
	// budget).
	Script []Step
	// Domain are steps of the author's domain drawn beside the steps over
	// the seed objects (steps.go): publish a version, request an upgrade.
	Domain []DomainStep
}

// StepKind is a kind of step the workload draws.
type StepKind string

// The kinds of generated step.
const (
	// Mutations set, append or removes a field under spec of a seed custom
	// resource, with a value its CRD's schema allows (or one the drawing
	// cannot decide: a CEL rule's, say).
	Mutations StepKind = ActionMutate
	// InvalidMutations are mutations with a value outside the schema: the API must
	// refuse it, and the operator must survive it.
	InvalidMutations StepKind = "invalid"
	// Deletions delete a seed object.
	Deletions StepKind = ActionDelete
	// Recreations create a seed object again as the test gave it (when it was
	// deleted: it is retried while the old one is still being deleted).
	Recreations StepKind = ActionRecreate
)

var StepKinds = []StepKind{Mutations, InvalidMutations, Deletions, Recreations}

// Step is one scripted step; Create, Patch and Delete make them.
type Step struct {
	At     time.Duration
	Action string // actionCreate, actionPatch or actionDelete
	Obj    client.Object
	patch  string
}

// The scripted actions (Create and a seed's re-creation differ: a scripted
// create carries the object in the plan).
const (
	ActionCreate = "create"
	ActionPatch  = "patch"
)

// Create creates obj at time at (from the start of the run), as cluster
// admin; its namespace is created first if it does not exist. The object
// needs a name (not only a generateName): later steps name it.
func Create(at time.Duration, obj client.Object) Step {
	return Step{At: at, Action: ActionCreate, Obj: obj}
}

// Patch applies patch, a JSON merge patch (RFC 7386: {"spec":{"replicas":3}}),
// to the object named by obj's kind, namespace and name, at time at.
func Patch(at time.Duration, obj client.Object, patch string) Step {
	return Step{At: at, Action: ActionPatch, Obj: obj, patch: patch}
}

// Delete deletes the object named by obj's kind, namespace and name at time
// at (with the default propagation: the garbage collector deletes its
// dependents in the background).
func Delete(at time.Duration, obj client.Object) Step {
	return Step{At: at, Action: ActionDelete, Obj: obj}
}

// steps are the script's plan steps: each names its object by kind,
// namespace and name, and a create carries the object's JSON.
func (wl Workload) PlanSteps(scheme *runtime.Scheme, end time.Duration) ([]plan.Step, []schema.GroupVersionKind, error) {
	var out []plan.Step
	var kinds []schema.GroupVersionKind
	for i, s := range wl.Script {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("Script[%d] (%s at %s): %s", i, s.Action, s.At, fmt.Sprintf(format, args...))
		}
		if s.Action == "" {
			return nil, nil, fmt.Errorf("Script[%d]: the zero Step; make steps with Create, Patch or Delete", i)
		}
		if s.Obj == nil {
			return nil, nil, fail("no object")
		}
		if s.At < 0 || s.At >= end {
			return nil, nil, fail("the time must be from 0 to the end of the heal budget (%s)", end)
		}
		gvk, err := apiutil.GVKForObject(s.Obj, scheme)
		if err != nil {
			return nil, nil, fail("%v", err)
		}
		if s.Obj.GetName() == "" {
			return nil, nil, fail("the object needs a name (later steps name it)")
		}
		if !slices.Contains(kinds, gvk) {
			kinds = append(kinds, gvk)
		}
		st := plan.Step{At: s.At, Action: s.Action, Script: true}
		switch s.Action {
		case ActionCreate:
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s.Obj)
			if err != nil {
				return nil, nil, fail("%v", err)
			}
			u["apiVersion"], u["kind"] = gvk.GroupVersion().String(), gvk.Kind
			if md, ok := u["metadata"].(map[string]any); ok {
				delete(md, "creationTimestamp") // a zero time, written as null
				delete(md, "resourceVersion")
			}
			b, err := json.Marshal(u)
			if err != nil {
				return nil, nil, fail("%v", err)
			}
			st.Args = plan.Args{{Key: "content", Value: string(b)}}
		case ActionPatch:
			var m map[string]any
			if err := json.Unmarshal([]byte(s.patch), &m); err != nil {
				return nil, nil, fail("the patch is not a JSON object: %v", err)
			}
			st.Args = append(nameArgs(gvk, s.Obj), plan.Arg{Key: "patch", Value: s.patch})
		default:
			st.Args = nameArgs(gvk, s.Obj)
		}
		out = append(out, st)
	}
	return out, kinds, nil
}

func nameArgs(gvk schema.GroupVersionKind, obj client.Object) plan.Args {
	args := plan.Args{{Key: "kind", Value: gvk.Group + "/" + gvk.Version + "/" + gvk.Kind}}
	if obj.GetNamespace() != "" {
		args = append(args, plan.Arg{Key: "namespace", Value: obj.GetNamespace()})
	}
	return append(args, plan.Arg{Key: "name", Value: obj.GetName()})
}

// The actions of the drawn workload's steps (workload.go).
const (
	ActionMutate   = "mutate"
	ActionDelete   = "delete"
	ActionRecreate = "recreate"
)

// MaxSteps bounds the workload steps of a plan.
const MaxSteps = 4
