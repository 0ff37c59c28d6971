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

	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// What Options can ask for that the world can never do is refused before any
// plan runs, with one line naming the field, the step or the plan file (no
// silent pass). The world checks what it can tell from itself
// (world.Build: fault classes with material, API fault templates, shards,
// properties); search checks what needs a run or a file:
//
//   - a scripted patch or delete must name an object that exists at some
//     point: a seed object, one the script creates, or one the fault-free
//     run of the script shows (scriptTargets, checkScriptTargets);
//   - a plan file replayed names seed objects the test has and, when its
//     first comment names a test, this test (readPlanFile);
//   - a manager's Setup returns (validate_setup.go).

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
