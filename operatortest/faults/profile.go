package faults

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Profile is a test's fault profile (world.Options.Faults; operatortest's
// Faults): which faults its plans draw, and where. The zero Profile draws
// every class the world has material for, over every operator process and
// every kind the world collects; a profile narrows that to the faults a bug
// needs (the informer of one kind of one process, say) or adds API faults
// of the author's own (a 422 on one field of one PATCH, as a too-large
// annotation gets), so that the plans an exploration spends go where the
// bug can be. A plan's text still names its faults one by one: a plan
// replays as written whatever the profile.
type Profile struct {
	// Classes are the fault classes drawn (plan.Lag, plan.Hold, plan.Crash,
	// plan.API, plan.Latency, plan.Workers, plan.Stale, plan.Unobserved; the kubelet's
	// plan.NotReady, plan.CrashLoop, plan.PodFail and plan.NodeLost with
	// WorkloadFaults). Nil: every class.
	Classes []plan.FaultKind
	// Processes are the operator processes faults fall on, by process name
	// (a Manager's Name, or "<Name>-<i>" for its replicas). Nil: every one.
	Processes []string
	// Kinds are the kinds whose caches may lag or be held (then no lag is
	// drawn for every kind at once): any kind the apiserver serves (a CRD's
	// or one of the scheme's, Pod and PersistentVolumeClaim included). Nil:
	// every kind the world collects.
	Kinds []schema.GroupVersionKind
	// Objects are the objects whose changes aimed faults aim at (a stale
	// view frozen at one of their changes, one of them unobserved by a
	// process): the reference run's changes of other objects are not
	// targets. A cluster-scoped object has no Namespace; a name matches
	// every kind's object of that name (Kinds narrows the kinds). Nil:
	// every object.
	Objects []types.NamespacedName
	// API narrows and extends the API errors drawn. With no template, a
	// plan may draw one error aimed at one write request that an operator
	// process made in the fault-free run of the same plan (its process,
	// verb, resource, namespace and name; Leases and Events aside): a 500
	// (an etcd leader change), a 429 with Retry-After (API priority and
	// fairness), or an ambiguous write (it commits, and the client gets a
	// 504 timeout instead of its response, so that its retry meets
	// AlreadyExists or a 409 conflict); Processes and Objects narrow
	// the requests aimed at. A template without a Code (nor Ambiguous)
	// selects: only the requests one such template matches are aimed at
	// ({Verb: "update", Resource: "widgets"}). A template with a Code (or
	// Ambiguous) adds a fault of the author's, drawn in a window of its own
	// (every matching request in it fails, up to Count), the templates as
	// often as the drawn errors, whatever their numbers: Agent, Verb,
	// Resource, Subresource, Namespace, Name, Code (and Field and Message
	// for a 422), Ambiguous and Count as sim/apiserver.Fault says. Classes
	// without plan.API draws neither.
	API []apiserver.Fault
	// MaxLag bounds informer lag and API latency (0: 5s).
	MaxLag time.Duration
}

// World is the world a profile is narrowed in, checked against and aimed
// in, as package world gives it (World.FaultWorld): the profile, the plan
// space it narrows, what the apiserver serves and the fault phase.
type World struct {
	// Profile is the test's (Options.Faults).
	Profile Profile
	// Space is the world's plan space: Narrow narrows it, and the API
	// errors are aimed at the requests of its Processes.
	Space *plan.Space
	// Scheme and CRDs are what the apiserver serves; Collected the kinds
	// the world collects (a kind of several groups is aimed at in the
	// one collected).
	Scheme    *runtime.Scheme
	CRDs      []apiserver.CRD
	Collected []schema.GroupVersionKind
	// FaultPhase is how long faults are drawn over (Options.FaultPhase).
	FaultPhase time.Duration
	// Agents are the processes whose requests an API fault template's
	// process may name: the operator's and the built-in ones that run.
	Agents func() []string
}

// drawnClasses are the classes a generator draws; Stop (and any class a
// reference run replays) is the harness's, not a test's to ask for.
var drawnClasses = []plan.FaultKind{plan.Lag, plan.Hold, plan.Crash, plan.API, plan.Latency, plan.Workers, plan.Stale, plan.Unobserved,
	plan.NotReady, plan.CrashLoop, plan.PodFail, plan.NodeLost}

// serves reports whether the apiserver serves gvk: a CRD's kind, or a
// kind of the scheme (a list is no kind a cache holds).
func (w World) serves(gvk schema.GroupVersionKind) bool {
	for _, c := range w.CRDs {
		if c.GVK == gvk {
			return true
		}
	}
	return gvk.Kind != "" && !strings.HasSuffix(gvk.Kind, "List") && w.Scheme.Recognizes(gvk)
}

// Narrow applies the profile to w's plan space, or says in one line what
// in it names nothing of the world.
func (w World) Narrow() error {
	f := w.Profile
	for _, c := range f.Classes {
		if !slices.Contains(drawnClasses, c) {
			return fmt.Errorf("Options.Faults.Classes: unknown fault class %q (valid: %s)", c, joinKinds(drawnClasses))
		}
	}
	if f.Classes != nil {
		w.Space.Classes = slices.Clone(f.Classes)
	}
	if f.Processes != nil {
		for _, p := range f.Processes {
			if !slices.Contains(w.Space.Processes, p) {
				return fmt.Errorf("Options.Faults.Processes: %q is no operator process (the processes: %s)", p, strings.Join(w.Space.Processes, ", "))
			}
		}
		w.Space.Processes = slices.Clone(f.Processes)
	}
	if f.Kinds != nil {
		var kinds []string
		for _, gvk := range f.Kinds {
			k := gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
			if !w.serves(gvk) {
				return fmt.Errorf("Options.Faults.Kinds: %s is no kind the apiserver serves (a CRD's, or a kind of Options.Scheme; the world's: %s)", k, strings.Join(w.Space.Kinds, ", "))
			}
			kinds = append(kinds, k)
		}
		w.Space.Kinds, w.Space.KindsOnly = kinds, true
	}
	for i, o := range f.Objects {
		if o.Name == "" || strings.Contains(o.Name, "/") || strings.Contains(o.Namespace, "/") {
			return fmt.Errorf("Options.Faults.Objects[%d] (%q): want a Name (and the Namespace of a namespaced object), without slashes", i, o.String())
		}
	}
	for i, a := range f.API {
		switch {
		case a.Code == 0 && !a.Ambiguous:
			continue // a selector of the drawn faults (aim.go)
		case a.Ambiguous:
		case !slices.Contains([]int{403, 409, 422, 429, 500, 503, 504}, a.Code):
			return fmt.Errorf("Options.Faults.API[%d] (%s): Code %d is none the apiserver answers with here (403, 409, 422, 429, 500, 503 or 504; 0 selects the drawn faults)", i, a, a.Code)
		}
		w.Space.APIFaults = append(w.Space.APIFaults, a)
	}
	if f.MaxLag < 0 {
		return fmt.Errorf("Options.Faults.MaxLag is negative (%s)", f.MaxLag)
	}
	if f.MaxLag > 0 {
		w.Space.MaxLag = f.MaxLag
	}
	return nil
}

func joinKinds(ks []plan.FaultKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
