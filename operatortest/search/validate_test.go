package search_test

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Bad Options, tried as a new user would: each gives one line
// naming the field, the step, the plan file or the manager, before any plan
// runs. {plan} in a want is the row's plan file, {test} the row's test name.
func TestBadOptionsAreRefusedWithOneLine(t *testing.T) {
	ghost := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "ghost"}}
	for _, tc := range []struct {
		name   string
		change func(o *world.Options)
		plan   string // a plan file given with -ctrlsim.plan
		want   string
	}{
		{name: "a-stale-with-no-process", change: func(o *world.Options) {
			o.Faults = world.Faults{Classes: []plan.FaultKind{plan.Stale}, Processes: []string{}}
		}, want: `Options.Faults.Classes: "stale" can never be drawn in this world: it falls on an operator process, and Options.Faults.Processes is empty`},
		{name: "a-pod-faults-without-the-workload-models", change: func(o *world.Options) {
			o.NoWorkloadModels, o.WorkloadFaults = true, true
			o.Faults = world.Faults{Classes: []plan.FaultKind{plan.Lag, plan.CrashLoop}}
		}, want: `Options.Faults.Classes: "crashloop" can never be drawn in this world: the kubelet's faults need Options.WorkloadFaults, and the workload models (not NoWorkloadModels)`},
		{name: "a-node-lost-without-workload-faults", change: func(o *world.Options) {
			o.Faults = world.Faults{Classes: []plan.FaultKind{plan.NodeLost}}
		}, want: `Options.Faults.Classes: "nodelost" can never be drawn in this world: the kubelet's faults need Options.WorkloadFaults, and the workload models (not NoWorkloadModels)`},
		{name: "a-api-with-no-templates", change: func(o *world.Options) {
			o.Faults = world.Faults{Classes: []plan.FaultKind{plan.API}}
		}, want: `Options.Faults.Classes: "api" can never be drawn in this world: it draws among API fault templates, and the world has none (give them in Options.Faults.API)`},
		{name: "a-workers", change: func(o *world.Options) {
			o.Faults = world.Faults{Classes: []plan.FaultKind{plan.Lag, plan.Workers}}
		}, want: `Options.Faults.Classes: "workers" can never be drawn in this world: operatortest offers no controller to run more workers (a plan's text may still name a workers fault)`},
		{name: "b-api-resource-not-served", change: func(o *world.Options) {
			o.Faults.API = []apiserver.Fault{{Resource: "widgets", Code: 500}}
		}, want: `Options.Faults.API[0] (resource=widgets code=500): resource "widgets" is no resource this world serves`},
		{name: "b-api-resource-a-kind", change: func(o *world.Options) {
			o.Faults.API = []apiserver.Fault{{Verb: "create", Resource: "Secret", Code: 500}}
		}, want: `Options.Faults.API[0] (verb=create resource=Secret code=500): resource "Secret" is no resource this world serves (the resource of kind Secret is "secrets": plural, lower case)`},
		{name: "c-api-verb-not-a-verb", change: func(o *world.Options) {
			o.Faults.API = []apiserver.Fault{{Verb: "PATCH", Resource: "configmaps", Code: 422}}
		}, want: `Options.Faults.API[0] (verb=PATCH resource=configmaps code=422): verb "PATCH" is no verb of a request (get, list, create, update, patch, delete, deletecollection)`},
		{name: "c-api-verb-watch", change: func(o *world.Options) {
			o.Faults.API = []apiserver.Fault{{Verb: "watch", Code: 500}}
		}, want: `Options.Faults.API[0] (verb=watch code=500): verb "watch": a watch is never failed by an API fault (a hold or a lag is a watch's fault: Options.Faults.Classes)`},
		{name: "d-api-process-unknown", change: func(o *world.Options) {
			o.Faults.API = []apiserver.Fault{{Agent: "operator", Verb: "create", Code: 500}}
		}, want: `Options.Faults.API[0] (process=operator verb=create code=500): process "operator" is no process of the world (its processes: op, kube-controller-manager, kubelet)`},
		{name: "e-script-patch-of-an-object-that-never-exists", change: func(o *world.Options) {
			o.Workload.Script = []world.Step{world.Patch(0, ghost, `{"data":{"a":"b"}}`)}
		}, want: `Options.Workload: Script[0] (patch at 0s): ConfigMap team/ghost never exists: it is no seed object, the script creates no such object, and the fault-free run of the script never shows one`},
		{name: "e-script-delete-of-an-object-that-never-exists", change: func(o *world.Options) {
			o.Workload.Script = []world.Step{world.Delete(0, ghost)}
		}, want: `Options.Workload: Script[0] (delete at 0s): ConfigMap team/ghost never exists: it is no seed object, the script creates no such object, and the fault-free run of the script never shows one`},
		{name: "f-shard-index-past-count", change: func(o *world.Options) { o.Shard = world.Shard{Index: 3, Count: 2} },
			want: `Options.Shard is {Index: 3, Count: 2}: want 1 <= Index <= Count (the zero Shard explores every plan)`},
		{name: "f-shard-index-zero", change: func(o *world.Options) { o.Shard = world.Shard{Index: 0, Count: 2} },
			want: `Options.Shard is {Index: 0, Count: 2}: want 1 <= Index <= Count (the zero Shard explores every plan)`},
		{name: "f-shard-negative", change: func(o *world.Options) { o.Shard = world.Shard{Index: -1, Count: -1} },
			want: `Options.Shard is {Index: -1, Count: -1}: want 1 <= Index <= Count (the zero Shard explores every plan)`},
		{name: "g-property-named-like-an-oracle", change: func(o *world.Options) {
			o.Properties = []world.Property{{Name: world.Converges, Check: func(*world.History) error { return nil }}}
		}, want: `Options.Properties[0] (converges): the name of a generic oracle or kernel verdict (` + strings.Join(world.Oracles(), ", ") + `): its violations would read as the oracle's, and Options.Disable or Expect would name both; give it a name of its own`},
		{name: "h-plan-step-names-an-object-that-does-not-exist", plan: "seed 1\nat 1s delete object=7\n",
			want: `plan {plan}: step "at 1s delete object=7" names seed object 7, and the test has 1 (object=0 to 0)`},
		{name: "i-plan-of-another-test", plan: "# operatortest test: TestOther\n# replay: go test -run '^TestOther$' -ctrlsim.plan=x.plan -v\nseed 1\n",
			want: `plan {plan} was saved for test TestOther, not {test} (its first comment names its test): replay it with go test github.com/ctrlsim/ctrlsim/operatortest/search -run '^TestOther$' -ctrlsim.plan={plan} -v`},
		{name: "j-property-with-a-nil-check", change: func(o *world.Options) { o.Properties = []world.Property{{Name: "copied"}} },
			want: `Options.Properties[0] (copied): Check is nil: nothing would be judged`},
		{name: "k-setup-that-blocks-for-ever", change: func(o *world.Options) {
			o.Managers[0].Setup = func(manager.Manager) error { select {} }
		}, want: `manager op (process op) cannot start: its Setup did not return within 1m0s of virtual time: it waits for something nothing in the world will send or release (a channel, the manager's caches, which start only after Setup)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := optest.AppOptions(optest.Child())
			o.Checks = 5
			if tc.change != nil {
				tc.change(&o)
			}
			path := ""
			if tc.plan != "" {
				path = filepath.Join(t.TempDir(), "p.plan")
				if err := os.WriteFile(path, []byte(tc.plan), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := flag.Set("ctrlsim.plan", path); err != nil {
					t.Fatal(err)
				}
				defer flag.Set("ctrlsim.plan", "")
			}
			judged := 0
			o.Properties = append(o.Properties, world.Property{Name: "counted", Check: func(*world.History) error { judged++; return nil }})
			res, err := search.Explore(t, o)
			want := strings.NewReplacer("{plan}", path, "{test}", t.Name()).Replace(tc.want)
			switch {
			case err == nil:
				t.Fatalf("explored %d plans and passed; want the error %q", res.Checks, want)
			case err.Error() != want:
				t.Errorf("got  %s\nwant %s", err, want)
			case strings.Contains(err.Error(), "\n"):
				t.Errorf("the error is not one line: %q", err)
			}
			if res.Checks != 0 || res.Caught {
				t.Errorf("plans ran: %+v", res)
			}
			// The preflight and the script's run (e) are no plans of the
			// exploration: each runs once, or twice when the run meets a
			// kind whose built-in controllers it held back (package builtins).
			if judged > 4 {
				t.Errorf("the test's property was judged %d times: plans ran", judged)
			}
		})
	}
}

// A scripted patch of an object the operator makes (not a seed, not
// scripted) is no error: the fault-free run of the script shows it.
func TestAScriptedPatchOfTheOperatorsObjectIsAccepted(t *testing.T) {
	o := optest.AppOptions(optest.Child()).WithDefaults()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app-child"}}
	o.Workload.Script = []world.Step{world.Patch(30e9, secret, `{"metadata":{"labels":{"edited":"yes"}}}`)}
	w, err := search.NewWorld(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := search.ScriptTargets(w); len(got) != 1 {
		t.Fatalf("scriptTargets: %v, want the patch of the operator's Secret", got)
	}
	if err := search.CheckScriptTargets(w, t); err != nil {
		t.Errorf("a patch of the operator's own Secret is refused: %v", err)
	}
}

// Run, given a Setup that never returns, fails the test with one line
// naming the manager, and the test binary goes on (no bubble deadlock dump).
func TestASetupThatBlocksFailsTheTestNamingTheManager(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildSetupBlocks$", "-test.v", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), optest.ChildEnv+"=TestChildSetupBlocks")
	cmd.Dir = t.TempDir()
	b, err := cmd.CombinedOutput()
	out := string(b)
	var exit *exec.ExitError
	if err == nil || !errors.As(err, &exit) {
		t.Fatalf("the child passed or did not run (%v):\n%s", err, out)
	}
	want := "operatortest: manager op (process op) cannot start: its Setup did not return within 1m0s of virtual time"
	if !strings.Contains(out, want) || !strings.Contains(out, "--- FAIL: TestChildSetupBlocks") || !strings.Contains(out, "after the run") {
		t.Errorf("the child's output lacks %q, its FAIL line or its last log line:\n%s", want, out)
	}
	if strings.Contains(out, "deadlock") || strings.Contains(out, "goroutine ") {
		t.Errorf("the child printed a deadlock or a stack dump:\n%s", out)
	}
}

func TestChildSetupBlocks(t *testing.T) {
	optest.ChildOnly(t)
	o := optest.AppOptions(optest.Child())
	o.Managers[0].Setup = func(manager.Manager) error { select {} }
	t.Cleanup(func() { t.Log("after the run") })
	search.Run(t, o)
}
