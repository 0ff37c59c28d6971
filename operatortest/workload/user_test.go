package workload_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/schemadraw"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// runPlan runs the plan text in o's world: its violations (by property), its
// action lines and the end state of one object.
func runPlan(t *testing.T, o world.Options, text string, key client.ObjectKey, obj client.Object) (map[string]string, []trace.Step, bool) {
	t.Helper()
	w, p, r := optest.RunText(t, o, text)
	violated := map[string]string{}
	for _, v := range r.Violated() {
		violated[v.Property] = v.Detail
	}
	var actions []trace.Step
	for _, s := range r.Steps {
		if s.Op == "action" {
			actions = append(actions, s)
		}
	}
	exists := false
	if obj != nil {
		exists = endState(t, w, p, key, obj)
	}
	return violated, actions, exists
}

// endState runs p once more and reads key at the end.
func endState(t *testing.T, w *world.World, p *plan.Plan, key client.ObjectKey, obj client.Object) bool {
	t.Helper()
	found := false
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		opts := w.Options(p, &world.SetupFailures{}, nil) // every built-in controller
		opts.Wall = wall
		c, err := cluster.New(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.RunPhases(cluster.Phases{Fault: w.Opts.FaultPhase, Heal: w.Opts.HealBudget})
		found = c.Get(key, obj) == nil && obj.GetDeletionTimestamp() == nil
	})
	return found
}

func lines(steps []trace.Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// A re-creation that meets the old object still being finalized
// (AlreadyExists while the operator's cleanup runs) is retried, as a user or
// a GitOps tool retries it, until it lands; the timeline says so; and a
// correct operator with a finalizer violates nothing. A later step on the
// same object waits for the retried one, so that every run applies the
// steps on an object in their order.
func TestARecreationThatMeetsAFinalizingObjectIsRetriedUntilItLands(t *testing.T) {
	key := client.ObjectKey{Namespace: "team", Name: "app"}
	violated, actions, exists := runPlan(t, optest.FinalizerOptions(), "seed 1\nat 1s delete object=0\nat 1500ms recreate object=0\n", key, &corev1.ConfigMap{})
	if len(violated) != 0 {
		t.Errorf("a correct finalizer operator violated %v", violated)
	}
	if !exists {
		t.Errorf("the re-created ConfigMap is not there at the end")
	}
	var pending, landed bool
	for _, s := range actions {
		switch {
		case s.Object == world.ActionRecreate && strings.HasPrefix(s.Result, "pending: AlreadyExists: ConfigMap team/app is still being deleted (finalizers ["+optest.CleanupFinalizer+"])"):
			pending = true
		case s.Object == world.ActionRecreate && s.Result == "ok" && pending:
			landed = s.At > 3*time.Second // after the two seconds of cleanup
		}
	}
	if !pending || !landed {
		t.Errorf("want a pending re-creation, then one that lands after the cleanup; the workload's lines:\n%s", lines(actions))
	}

	// With a cleanup that takes no time, whether the re-creation 4ms after
	// the deletion meets the old object depends on the schedule: it was
	// dropped in the schedule of seed 3 and landed in that of seed 2051
	// (interleavings-agree fired). Retried, it lands in both.
	for _, text := range []string{"seed 3\nat 1s delete object=0\nat 1004ms recreate object=0\n", "seed 3\nat 1s delete object=0\nat 1001ms recreate object=0\n"} {
		if violated, actions, exists := runPlan(t, optest.FinalizerOptionsCleaningUpIn(0), text, key, &corev1.ConfigMap{}); len(violated) != 0 || !exists {
			t.Errorf("%s: violated %v, the ConfigMap there at the end: %v; the workload's lines:\n%s", text, violated, exists, lines(actions))
		}
	}

	// A deletion after the retried re-creation waits for it: it deletes the
	// re-created object, in every schedule.
	violated, actions, exists = runPlan(t, optest.FinalizerOptions(), "seed 1\nat 1s delete object=0\nat 1500ms recreate object=0\nat 2s delete object=0\n", key, &corev1.ConfigMap{})
	if len(violated) != 0 {
		t.Errorf("violated %v", violated)
	}
	if exists {
		t.Errorf("the ConfigMap is there at the end: the deletion after the re-creation did not wait for it")
	}
	waited := slices.ContainsFunc(actions, func(s trace.Step) bool {
		return s.Object == world.ActionDelete && s.At == 2*time.Second && strings.HasPrefix(s.Result, "pending: waits for the recreate of ConfigMap team/app")
	})
	if !waited {
		t.Errorf("the deletion at 2s did not wait for the re-creation; the workload's lines:\n%s", lines(actions))
	}
}

// A re-creation whose old object stays for ever (a finalizer nobody
// removes) is given up when the heal budget ends, and the timeline says so.
func TestARecreationIsGivenUpWhenTheHealBudgetEnds(t *testing.T) {
	o := optest.FinalizerOptions()
	o.Managers[0].Setup = func(manager.Manager) error { return nil } // nobody removes the finalizer
	o.Objects[0].SetFinalizers([]string{optest.CleanupFinalizer})
	o.FaultPhase, o.HealBudget = 10*time.Second, 20*time.Second
	_, actions, _ := runPlan(t, o, "seed 1\nat 1s delete object=0\nat 2s recreate object=0\n", client.ObjectKey{}, nil)
	last := actions[len(actions)-1]
	if last.Object != world.ActionRecreate || !strings.HasPrefix(last.Result, "error: given up, the heal budget ends before the next try: AlreadyExists") {
		t.Fatalf("the last line is not the re-creation given up; the workload's lines:\n%s", lines(actions))
	}
}

// The author's script runs at its times, as written (create at 0, scale
// 1 to 3 then 3 to 2, delete at 10s, re-create at 25s), with generated steps
// around it; it is in every plan's text, marked as the script, and reads
// back as it was.
func TestAScriptRunsAtItsTimesAndIsWrittenInThePlan(t *testing.T) {
	one := int32(1)
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}},
	}}
	o := optest.FinalizerOptions()
	o.Workload.Script = []world.Step{
		world.Create(0, web),
		world.Patch(2*time.Second, web, `{"spec":{"replicas":3}}`),
		world.Patch(5*time.Second, web, `{"spec":{"replicas":2}}`),
		world.Delete(10*time.Second, web),
		world.Create(25*time.Second, web),
		world.Patch(30*time.Second, web, `{"spec":{"replicas":2}}`),
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(w.Kinds, appsv1.SchemeGroupVersion.WithKind("Deployment")) {
		t.Errorf("the script's Deployment is not a judged kind: %v", w.Kinds)
	}
	drew := false
	for seed := range 20 {
		p := plan.Generator(w.Space).Example(seed)
		var script []string
		for _, s := range p.Steps {
			if s.Script {
				script = append(script, s.String())
			} else {
				drew = true
			}
		}
		if len(script) != 6 || !strings.HasPrefix(script[0], `script at 0s create content="{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"`) ||
			script[1] != `script at 2s patch kind=apps/v1/Deployment namespace=shop name=web patch="{\"spec\":{\"replicas\":3}}"` ||
			script[3] != "script at 10s delete kind=apps/v1/Deployment namespace=shop name=web" {
			t.Fatalf("plan %d's script:\n%s", seed, strings.Join(script, "\n"))
		}
		back, err := plan.Parse(p.String())
		if err != nil || back.String() != p.String() {
			t.Fatalf("plan %d does not read back (%v):\n%s", seed, err, p)
		}
	}
	if !drew {
		t.Errorf("no generated step around the script in 20 plans")
	}

	text := "seed 1\n"
	for _, s := range w.Space.Workload.Example(0) {
		if s.Script {
			text += s.String() + "\n"
		}
	}
	var got appsv1.Deployment
	violated, actions, exists := runPlan(t, o, text, client.ObjectKey{Namespace: "shop", Name: "web"}, &got)
	if len(violated) != 0 {
		t.Errorf("violated %v", violated)
	}
	var when []string
	for _, s := range actions {
		when = append(when, s.At.String()+" "+s.Object+" "+s.Result)
	}
	want := []string{"0s create ok", "2s patch ok", "5s patch ok", "10s delete ok", "25s create ok", "30s patch ok"}
	if !slices.Equal(when, want) {
		t.Errorf("the script ran as\n%s\nwant\n%s", strings.Join(when, "\n"), strings.Join(want, "\n"))
	}
	if !exists || *got.Spec.Replicas != 2 {
		t.Errorf("the Deployment at the end: exists %v, replicas %v; want 2", exists, got.Spec.Replicas)
	}
}

// A scripted step is never faulted away: one that meets a transient API
// error (an api fault of a hand-written plan that hits every client) is
// retried until it lands, and the steps after it on the same object wait.
func TestAScriptedStepRetriesTransientErrorsUntilItLands(t *testing.T) {
	cfg := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "cfg"}}
	o := optest.FinalizerOptions()
	o.Workload.Script = []world.Step{world.Create(time.Second, cfg), world.Patch(1500*time.Millisecond, cfg, `{"data":{"k":"v"}}`)}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	text := "seed 1\n"
	for _, s := range w.Space.Workload.Example(0) {
		if s.Script {
			text += s.String() + "\n"
		}
	}
	text += "api verb=create resource=configmaps code=503 from=0s until=3s\n"
	var got corev1.ConfigMap
	_, actions, exists := runPlan(t, o, text, client.ObjectKey{Namespace: "team", Name: "cfg"}, &got)
	if !exists || got.Data["k"] != "v" {
		t.Fatalf("the scripted ConfigMap at the end: exists %v, data %v; the workload's lines:\n%s", exists, got.Data, lines(actions))
	}
	if !strings.HasPrefix(actions[0].Result, "pending: ") || !strings.HasPrefix(actions[1].Result, "pending: waits for the create of ConfigMap team/cfg") {
		t.Errorf("the workload's lines:\n%s", lines(actions))
	}
}

// The workload draws only the kinds of step and the seed objects the author
// chose: mutations of the Gadget without invalid values or deletions, say;
// an empty list of kinds draws nothing, and the script alone runs.
func TestTheWorkloadDrawsOnlyTheStepsAndObjectsTheAuthorChose(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "other"}}
	for _, tc := range []struct {
		name   string
		wl     world.Workload
		allows func(s plan.Step) bool
	}{
		{"valid mutations of the gadget", world.Workload{Objects: []client.Object{optest.Gadget()}, Steps: []world.StepKind{world.Mutations}}, func(s plan.Step) bool {
			return s.Action == world.ActionMutate && s.Args.Get("object") == "0" && s.Args.Get("expect") != schemadraw.ExpectInvalid
		}},
		{"invalid mutations only", world.Workload{Steps: []world.StepKind{world.InvalidMutations}}, func(s plan.Step) bool {
			return s.Action == world.ActionMutate && s.Args.Get("expect") == schemadraw.ExpectInvalid
		}},
		{"deletions of the ConfigMap", world.Workload{Objects: []client.Object{cm}, Steps: []world.StepKind{world.Deletions}}, func(s plan.Step) bool {
			return s.Action == world.ActionDelete && s.Args.Get("object") == "1"
		}},
		{"the script alone", world.Workload{Steps: []world.StepKind{}, Script: []world.Step{world.Delete(time.Second, cm)}}, func(s plan.Step) bool {
			return s.Script && s.Action == world.ActionDelete
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := optest.GadgetOptions()
			o.Objects = append(o.Objects, cm)
			o.Workload = tc.wl
			w, err := search.NewWorld(o.WithDefaults())
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for seed := range 60 {
				for _, s := range w.Space.Workload.Example(seed) {
					n++
					if !tc.allows(s) {
						t.Fatalf("plan %d drew %s", seed, s)
					}
				}
			}
			if n == 0 {
				t.Fatal("nothing drawn in 60 plans")
			}
		})
	}
}

// A workload the harness cannot run as asked is refused before anything
// runs, with an error naming what is wrong.
func TestABadWorkloadIsRefused(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}}
	for _, tc := range []struct {
		wl   world.Workload
		want string
	}{
		{world.Workload{Steps: []world.StepKind{"mutations"}}, `Options.Workload: Steps: unknown kind "mutations"`},
		{world.Workload{Objects: []client.Object{cm}}, "Options.Workload: Objects: *v1.ConfigMap default/cm is not one of Options.Objects"},
		{world.Workload{Objects: []client.Object{optest.FinalizerOptions().Objects[0]}, Steps: []world.StepKind{world.Mutations}}, "no seed object can draw any of them"},
		{world.Workload{Script: []world.Step{{}}}, "Script[0]: the zero Step"},
		{world.Workload{Script: []world.Step{world.Create(time.Second, &corev1.ConfigMap{})}}, "Script[0] (create at 1s): the object needs a name"},
		{world.Workload{Script: []world.Step{world.Delete(time.Hour, cm)}}, "Script[0] (delete at 1h0m0s): the time must be from 0 to the end of the heal budget (3m0s)"},
		{world.Workload{Script: []world.Step{world.Patch(0, cm, `[{"op":"add"}]`)}}, "Script[0] (patch at 0s): the patch is not a JSON object"},
	} {
		o := optest.FinalizerOptions()
		o.Workload = tc.wl
		_, err := search.NewWorld(o.WithDefaults())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error with %q", tc.wl, err, tc.want)
		}
	}
}

// A correct operator with a finalizer passes the default workload
// (deletions and re-creations of its object among the faults) with every
// oracle on: the re-creations that meet its cleanup land in every schedule.
func TestAFinalizerOperatorPassesTheDefaultWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("explores plans")
	}
	o := optest.FinalizerOptions()
	o.Checks, o.Seed = 60, 1
	start := time.Now()
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Fatalf("violated %v in\n%s", res.Violations, res.Minimal)
	}
	t.Logf("%d plans, no violation, in %s", res.Checks, time.Since(start).Round(time.Millisecond))
}

// The script is the author's, not a draw: a violation's minimal plan keeps
// every scripted step (and only the drawn steps and faults the violation
// needs), so that its replay runs the script as written.
func TestTheScriptSurvivesShrinking(t *testing.T) {
	defer optest.RandomPassOnly()() // the shrinker's; a targeted plan keeps its one fault (sweep.go)
	if testing.Short() {
		t.Skip("explores and shrinks")
	}
	cfg := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "cfg"}}
	o := optest.AppOptions(func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if app.Data["mode"] == "boom" {
			panic("boom") // the bug: a mode the operator does not know
		}
		return nil
	})
	o.Objects = append(o.Objects, cfg)
	o.Workload.Script = []world.Step{world.Create(time.Second, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "extra"}}),
		world.Patch(5*time.Second, cfg, `{"data":{"mode":"boom"}}`)}
	o.Checks, o.Seed, o.ShrinkRuns = 20, 1, 40
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("the panic at the scripted patch not caught in %d plans", res.Checks)
	}
	var script []string
	for _, s := range res.Minimal.Steps {
		if s.Script {
			script = append(script, s.String())
		} else {
			t.Errorf("the minimal plan keeps a drawn step the panic does not need: %s", s)
		}
	}
	if len(script) != 2 || !strings.HasPrefix(script[1], "script at 5s patch kind=/v1/ConfigMap namespace=team name=cfg") {
		t.Errorf("the minimal plan's script:\n%s", res.Minimal)
	}
	if len(res.Minimal.Faults) != 0 {
		t.Errorf("the minimal plan keeps faults:\n%s", res.Minimal)
	}
}

// A step on a seed object whose kind no CRD serves yet (the operator
// installs its CRD at run time) waits for the object's creation, which comes
// when the kind is served, and runs right after it: the user applied the
// object before they deleted it, as an applier that retries an unserved kind
// does. Run at once, the deletion met no object, and the object was created
// after it, in one schedule and not the other.
func TestAStepOnASeedObjectWhoseKindIsNotServedYetWaitsForItsCreation(t *testing.T) {
	s := runtimeScheme(t)
	gadget := &unstructured.Unstructured{}
	gadget.SetGroupVersionKind(schema.GroupVersionKind{Group: "late.example.com", Version: "v1", Kind: "Gadget"})
	gadget.SetNamespace("team")
	gadget.SetName("mine")
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.late.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "late.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}}}}},
	}
	o := world.Options{
		Scheme: s,
		Managers: []world.Manager{{Name: "installer", Setup: func(mgr manager.Manager) error {
			return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
				select { // the CRD comes 2s after the start (virtual time)
				case <-time.After(2 * time.Second):
				case <-ctx.Done():
					return nil
				}
				if err := mgr.GetClient().Create(ctx, crd.DeepCopy()); err != nil {
					return err
				}
				<-ctx.Done()
				return nil
			}))
		}}},
		Objects: []client.Object{gadget},
	}
	key := client.ObjectKeyFromObject(gadget)
	violated, actions, exists := runPlan(t, o, "seed 1\nat 500ms delete object=0\n", key, gadget.DeepCopy())
	if len(violated) != 0 {
		t.Errorf("violated %v", violated)
	}
	if exists {
		t.Errorf("the Gadget is there at the end: the deletion did not wait for its creation; the workload's lines:\n%s", lines(actions))
	}
	if len(actions) == 0 || !strings.HasPrefix(actions[0].Result, "pending: waits for the create of Gadget.late.example.com team/mine") {
		t.Errorf("the deletion at 500ms does not say it waits for the creation; the workload's lines:\n%s", lines(actions))
	}
}

func runtimeScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func ptrTo[T any](v T) *T { return &v }
