package faults

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Check checks the profile against the world built from the options
// (narrowed into w.Space): a fault class with no material, an API fault
// template that matches no request. The script's targets need a run, and
// search checks them (CheckScriptTargets).
func (w World) Check() error {
	for _, c := range w.Profile.Classes {
		if why := classMaterial(*w.Space, c); why != "" {
			return fmt.Errorf("Options.Faults.Classes: %q can never be drawn in this world: %s", c, why)
		}
	}
	for i, f := range w.Profile.API {
		if err := w.apiTemplate(f); err != nil {
			return fmt.Errorf("Options.Faults.API[%d] (%s): %w", i, f, err)
		}
	}
	return nil
}

// classMaterial says why the generator never draws a fault of class k from sp
// ("" when it can): the material each class needs (sim/plan's Generator).
func classMaterial(sp plan.Space, k plan.FaultKind) string {
	noProcess := "it falls on an operator process, and Options.Faults.Processes is empty"
	switch k {
	case plan.Lag, plan.Hold:
		switch {
		case len(sp.Processes) == 0:
			return noProcess
		case len(sp.Kinds) == 0:
			return "it lags or holds a kind's cache, and the world collects no kind"
		}
	case plan.Crash, plan.Latency:
		if len(sp.Processes) == 0 {
			return noProcess
		}
	case plan.Stale:
		switch {
		case len(sp.Processes) == 0:
			return noProcess
		case sp.MaxStale <= 0:
			return "the fault phase is too short for an apiserver to lag behind"
		}
	case plan.API:
		if len(sp.APIFaults) == 0 {
			return "it draws among API fault templates, and the world has none (give them in Options.Faults.API)"
		}
	case plan.Workers:
		if len(sp.Controllers) == 0 {
			return "operatortest offers no controller to run more workers (a plan's text may still name a workers fault)"
		}
	case plan.NotReady, plan.CrashLoop, plan.PodFail, plan.NodeLost:
		if sp.Pods == 0 || len(sp.Nodes) == 0 && k == plan.NodeLost {
			return "the kubelet's faults need Options.WorkloadFaults, and the workload models (not NoWorkloadModels)"
		}
	}
	return ""
}

// requestVerbs are the verbs of the apiserver's requests, which an API
// fault's Verb matches (sim/apiserver).
var requestVerbs = []string{"get", "list", "create", "update", "patch", "delete", "deletecollection"}

// apiTemplate checks that each field of f that narrows it names something
// a request of the world can carry.
func (w World) apiTemplate(f apiserver.Fault) error {
	switch {
	case f.Verb == "":
	case f.Verb == "watch":
		return fmt.Errorf("verb %q: a watch is never failed by an API fault (a hold or a lag is a watch's fault: Options.Faults.Classes)", f.Verb)
	case f.Verb == "apply":
		return fmt.Errorf("verb %q: server-side apply is a request of verb patch", f.Verb)
	case !slices.Contains(requestVerbs, f.Verb):
		return fmt.Errorf("verb %q is no verb of a request (%s)", f.Verb, strings.Join(requestVerbs, ", "))
	}
	if f.Resource != "" {
		served, byKind := w.resources()
		if !served[f.Resource] {
			hint := ""
			if r, ok := byKind[strings.ToLower(f.Resource)]; ok {
				hint = fmt.Sprintf(" (the resource of kind %s is %q: plural, lower case)", f.Resource, r)
			}
			return fmt.Errorf("resource %q is no resource this world serves%s", f.Resource, hint)
		}
	}
	if f.Agent != "" {
		procs := w.Agents()
		if !slices.Contains(procs, f.Agent) {
			return fmt.Errorf("process %q is no process of the world (its processes: %s)", f.Agent, strings.Join(procs, ", "))
		}
	}
	return nil
}

// resources are the resources the world serves (the scheme's kinds and the
// CRDs', plural and lower case), and each kind's resource by its lower-case
// kind.
func (w World) resources() (served map[string]bool, byKind map[string]string) {
	served, byKind = map[string]bool{}, map[string]string{}
	add := func(gvk schema.GroupVersionKind, plural string) {
		if plural == "" {
			r, _ := meta.UnsafeGuessKindToResource(gvk)
			plural = r.Resource
		}
		served[plural] = true
		byKind[strings.ToLower(gvk.Kind)] = plural
	}
	for gvk := range w.Scheme.AllKnownTypes() { // lint:order-independent a set
		if !strings.HasSuffix(gvk.Kind, "List") {
			add(gvk, "")
		}
	}
	for _, c := range w.CRDs {
		add(c.GVK, c.Plural)
	}
	return served, byKind
}
