package search

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// What Options can ask for that the world can never do is refused before any
// plan runs, with one line naming the field, the step or the plan file (no
// silent pass: a fault that is never drawn, a template that matches no
// request, a step on an object that never exists, a shard that owns no plan
// would each explore nothing of what the test asked and pass). The rule is
// one: every part of the options must be able to act in this world. Its
// cases:
//
//   - a fault class named in Faults.Classes must have material (classMaterial);
//   - an API fault template's verb, resource and process must each be one
//     some request of the world can carry (apiTemplate);
//   - a scripted patch or delete must name an object that exists at some
//     point: a seed object, one the script creates, or one the fault-free
//     run of the script shows (scriptTargets, checkScriptTargets);
//   - Shard is the zero Shard or i/n with 1 <= i <= n;
//   - a Property has a Check and a name of its own (not an oracle's);
//   - a plan file replayed names seed objects the test has and, when its
//     first comment names a test, this test (readPlanFile);
//   - a manager's Setup returns (validate_setup.go).

// validateWorld checks the options against the world built from them: the
// fault profile (narrowed into w.space) and the script.
func validateWorld(w *world.World) error {
	for _, c := range w.Opts.Faults.Classes {
		if why := classMaterial(w.Space, c); why != "" {
			return fmt.Errorf("Options.Faults.Classes: %q can never be drawn in this world: %s", c, why)
		}
	}
	for i, f := range w.Opts.Faults.API {
		if err := apiTemplate(w, f); err != nil {
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
func apiTemplate(w *world.World, f apiserver.Fault) error {
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
		served, byKind := resources(w)
		if !served[f.Resource] {
			hint := ""
			if r, ok := byKind[strings.ToLower(f.Resource)]; ok {
				hint = fmt.Sprintf(" (the resource of kind %s is %q: plural, lower case)", f.Resource, r)
			}
			return fmt.Errorf("resource %q is no resource this world serves%s", f.Resource, hint)
		}
	}
	if f.Agent != "" {
		procs := requestAgents(w)
		if !slices.Contains(procs, f.Agent) {
			return fmt.Errorf("process %q is no process of the world (its processes: %s)", f.Agent, strings.Join(procs, ", "))
		}
	}
	return nil
}

// resources are the resources the world serves (the scheme's kinds and the
// CRDs', plural and lower case), and each kind's resource by its lower-case
// kind.
func resources(w *world.World) (served map[string]bool, byKind map[string]string) {
	served, byKind = map[string]bool{}, map[string]string{}
	add := func(gvk schema.GroupVersionKind, plural string) {
		if plural == "" {
			r, _ := meta.UnsafeGuessKindToResource(gvk)
			plural = r.Resource
		}
		served[plural] = true
		byKind[strings.ToLower(gvk.Kind)] = plural
	}
	for gvk := range w.Opts.Scheme.AllKnownTypes() { // lint:order-independent a set
		if !strings.HasSuffix(gvk.Kind, "List") {
			add(gvk, "")
		}
	}
	for _, c := range w.CRDs {
		add(c.GVK, c.Plural)
	}
	return served, byKind
}

// requestAgents are the processes whose requests an API fault's process=
// can name: the operator's and the built-in ones that run.
func requestAgents(w *world.World) []string {
	out := w.OperatorProcesses()
	if !w.Opts.NoBuiltinControllers || !w.Opts.NoWorkloadModels {
		out = append(out, world.KubeControllerManager)
	}
	if !w.Opts.NoWorkloadModels {
		out = append(out, kubeworld.KubeletProcess)
	}
	return out
}

// ScriptTargets are the scripted patches and deletes whose object is
// neither a seed object nor created by the script: an object of the
// operator's, or none (checkScriptTargets runs the script to tell).
func ScriptTargets(w *world.World) []int {
	type key struct{ group, kind, namespace, name string }
	keyOf := func(s world.Step) (key, bool) {
		if s.Obj == nil {
			return key{}, false
		}
		gvk, err := apiutil.GVKForObject(s.Obj, w.Opts.Scheme)
		if err != nil {
			return key{}, false
		}
		return key{gvk.Group, gvk.Kind, s.Obj.GetNamespace(), s.Obj.GetName()}, true
	}
	made := map[key]bool{}
	for _, obj := range w.Opts.Objects {
		if k, ok := keyOf(world.Step{Obj: obj}); ok {
			made[k] = true
		}
	}
	for _, s := range w.Opts.Workload.Script {
		if k, ok := keyOf(s); ok && s.Action == world.ActionCreate {
			made[k] = true
		}
	}
	var out []int
	for i, s := range w.Opts.Workload.Script {
		if k, ok := keyOf(s); ok && (s.Action == world.ActionPatch || s.Action == world.ActionDelete) && !made[k] {
			out = append(out, i)
		}
	}
	return out
}

// CheckScriptTargets runs the script alone, fault-free, when a scripted
// patch or delete names an object that is neither a seed nor scripted, and
// refuses a step whose object the run never shows: it would meet NotFound
// in every plan, a line of the timeline and no test at all.
func CheckScriptTargets(w *world.World, t *testing.T) error {
	steps := ScriptTargets(w)
	if len(steps) == 0 {
		return nil
	}
	script, _, err := w.Opts.Workload.PlanSteps(w.Opts.Scheme, w.Opts.FaultPhase+w.Opts.HealBudget)
	if err != nil {
		return err
	}
	_, r, err := reference.RunOnce(w, t, &plan.Plan{Seed: w.Opts.EffectiveSeed(), Steps: script}, nil, 0)
	if err != nil {
		return err
	}
	for _, i := range steps {
		s := w.Opts.Workload.Script[i]
		gvk, _ := apiutil.GVKForObject(s.Obj, w.Opts.Scheme)
		if !slices.ContainsFunc(r.Log, func(e apiserver.Event) bool {
			return e.GVK.GroupKind() == gvk.GroupKind() && e.Object.GetNamespace() == s.Obj.GetNamespace() && e.Object.GetName() == s.Obj.GetName()
		}) {
			return fmt.Errorf("Options.Workload: Script[%d] (%s at %s): %s %s never exists: it is no seed object, the script creates no such object, and the fault-free run of the script never shows one",
				i, s.Action, s.At, gvk.Kind, nsName(s.Obj.GetNamespace(), s.Obj.GetName()))
		}
	}
	return nil
}

func nsName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// readPlanFile reads a plan file to replay in test: one saved for another
// test (its first comment names it) or one whose steps name seed objects
// the test does not have is refused, naming the file.
func readPlanFile(w *world.World, test, path string) (*plan.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if saved := planTestName(b); saved != "" && saved != test {
		return nil, fmt.Errorf("plan %s was saved for test %s, not %s (its first comment names its test): replay it with %s", path, saved, test, failure.ReplayCommand(saved, path))
	}
	p, err := plan.Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	for _, s := range p.Steps {
		v := s.Args.Get("object")
		if v == "" || !slices.Contains([]string{world.ActionMutate, world.ActionDelete, world.ActionRecreate}, s.Action) {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil {
			continue // a name: IndexObjects below resolves it
		}
		if i < 0 || i >= len(w.Opts.Objects) {
			has := "no seed object"
			if n := len(w.Opts.Objects); n > 0 {
				has = fmt.Sprintf("%d (object=0 to %d)", n, n-1)
			}
			return nil, fmt.Errorf("plan %s: step %q names seed object %s, and the test has %s", path, s.String(), v, has)
		}
	}
	// A saved plan names its seed objects (failure.PlanText); the world runs
	// their indexes.
	if p, err = plan.IndexObjects(p, failure.SeedNames(w)); err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	return p, nil
}

// planTestName is the test a saved plan's first comment names
// ("# operatortest test: <name>", planHeader), or "".
func planTestName(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			return "" // the plan starts: no header
		}
		if name, ok := strings.CutPrefix(line, "# operatortest test: "); ok {
			return strings.TrimSpace(name)
		}
	}
	return ""
}
