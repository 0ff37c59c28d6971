package workload_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/workload"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/schemadraw"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// mutation draws one mutation of tg from seed, as the workload does.
func mutation(tg workload.Target, invalid bool, seed int) plan.Args {
	return rapid.Custom(func(t *rapid.T) plan.Args {
		_ = rapid.Bool().Draw(t, "step") // some draws (an invalid boolean) take no data; rapid wants some
		return tg.DrawTarget(t, invalid)
	}).Example(seed)
}

// apply applies a mutation to the seed in a fresh world (its apiserver
// model, nothing else) and returns the API's answer.
func apply(t *testing.T, w *world.World, args plan.Args) error {
	t.Helper()
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{Scheme: w.Opts.Scheme, CRDs: w.CRDs, Setup: w.Setup, Actions: workload.Actions(w)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return workload.Actions(w)[world.ActionMutate].Run(c, append(plan.Args{{Key: "object", Value: "0"}}, args...))
}

func describe(tg workload.Target) string {
	return strings.Join(tg.Path, ".") + " " + [...]string{"set", "append", "set item", "remove item", "set key", "remove key"}[tg.Kind]
}

// Each schema feature is drawn valid and invalid, and the apiserver model's
// verdict agrees with the label: a step labelled valid is accepted, one
// labelled invalid is refused with 422 Invalid. A field under an
// x-kubernetes-validations rule is never labelled valid (its valid draws are
// "unknown": the rule decides).
func TestWorkloadValuesAreValidOrInvalidAsLabelled(t *testing.T) {
	w, err := search.NewWorld(optest.GadgetOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	tgs := workload.Targets(w.CRDs[0].Schema, workload.SeedContent(optest.Gadget(), w.CRDs[0].Schema))
	seen := map[string]map[string]int{} // target -> label -> draws
	var refusals []string
	for _, tg := range tgs {
		name := describe(tg)
		seen[name] = map[string]int{}
		for _, invalid := range []bool{false, true} {
			for seed := 0; seed < 8; seed++ {
				args := mutation(tg, invalid, seed)
				label := args.Get("expect")
				seen[name][label]++
				err := apply(t, w, args)
				switch label {
				case schemadraw.ExpectValid:
					if err != nil {
						t.Errorf("%s: labelled valid, refused: %v", plan.Step{Action: world.ActionMutate, Args: args}, err)
					}
				case schemadraw.ExpectInvalid:
					if !apierrors.IsInvalid(err) {
						t.Errorf("%s: labelled invalid, the API answered %v", plan.Step{Action: world.ActionMutate, Args: args}, err)
					} else {
						refusals = append(refusals, err.Error())
					}
				case schemadraw.ExpectUnknown:
					if err != nil && !apierrors.IsInvalid(err) {
						t.Errorf("%s: %v", plan.Step{Action: world.ActionMutate, Args: args}, err)
					}
				default:
					t.Fatalf("%s: no label", plan.Step{Action: world.ActionMutate, Args: args})
				}
			}
		}
	}
	// Every feature is drawn both ways, but where the seed leaves no way to
	// break it (removing an item of a list above its minItems, a key of a
	// map without minProperties) or a rule the drawing does not model decides.
	onlyValid := []string{"spec.ports remove item", "spec.labels remove key", "spec.tags remove item"}
	var names []string
	for n := range seen { // lint:order-independent sorted below
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got := seen[n]
		t.Logf("%-28s valid %2d  invalid %2d  unknown %2d", n, got[schemadraw.ExpectValid], got[schemadraw.ExpectInvalid], got[schemadraw.ExpectUnknown])
		switch {
		case strings.HasPrefix(n, "spec.guarded"):
			if got[schemadraw.ExpectValid] > 0 || got[schemadraw.ExpectUnknown] == 0 {
				t.Errorf("%s (under a CEL rule): %v, want valid draws labelled unknown, none valid", n, got)
			}
		case slices.Contains(onlyValid, n):
			if got[schemadraw.ExpectValid] == 0 {
				t.Errorf("%s: %v, want valid draws", n, got)
			}
		default:
			if got[schemadraw.ExpectValid] == 0 || got[schemadraw.ExpectInvalid] == 0 {
				t.Errorf("%s: %v, want both valid and invalid draws", n, got)
			}
		}
	}
	// The invalid draws break each kind of constraint: the API's messages
	// (kube-openapi's validator, apiextensions' list types) name them all.
	for _, want := range []string{
		"in body should match '^[a-z]([-a-z0-9]*[a-z0-9])?$'", "in body should match '^[A-Z]{3}-[0-9]{2,4}$'", // pattern
		"Too long: may not be more than 12 bytes", "in body should be at least 2 chars long", // maxLength, minLength
		"in body must be of type date-time", "in body must be of type duration", "in body must be of type hostname",
		"in body must be of type ipv4", "in body must be of type uuid", // formats
		"in body should be greater than 0", "in body should be less than 1", // exclusive bounds
		"in body should be greater than or equal to 1", "in body should be less than or equal to 65535",
		"in body should be a multiple of 5", // multipleOf
		`Unsupported value: "not-fast"`,     // enum
		"in body must be of type boolean", "in body must be of type integer", "in body must be of type string",
		"in body must be of type object", "in body must be of type array", // types
		"Required value",                                            // required
		"Too many: 4: must have at most 3 items", "Duplicate value", // maxItems, list-type set
		"must have at most 3 items", // maxProperties
	} {
		found := false
		for _, r := range refusals {
			found = found || strings.Contains(r, want)
		}
		if !found {
			t.Errorf("no invalid draw refused with %q", want)
		}
	}
	for _, want := range []string{"spec.name set", "spec.code set", "spec.when set", "spec.ratio set", "spec.step set", "spec.size set",
		"spec.enabled set", "spec.limits set", "spec.limits.cpu set", "spec.nested.inner.level set", "spec.tags append", "spec.tags set item",
		"spec.ports append", "spec.ports set item", "spec.labels set key"} {
		found := false
		for _, n := range names {
			found = found || strings.HasPrefix(n, want)
		}
		if !found {
			t.Errorf("no target %q among %v", want, names)
		}
	}
}

// A CEL rule the drawing does not model refuses some values it draws as
// valid: they are labelled unknown, and the apiserver model (which evaluates
// the rule) refuses them with the rule's message.
func TestWorkloadUnderACELRuleIsNotClaimedValid(t *testing.T) {
	w, err := search.NewWorld(optest.GadgetOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	var guarded workload.Target
	for _, tg := range workload.Targets(w.CRDs[0].Schema, workload.SeedContent(optest.Gadget(), w.CRDs[0].Schema)) {
		if strings.Join(tg.Path, ".") == "spec.guarded" {
			guarded = tg
		}
	}
	refused := 0
	for seed := 0; seed < 10; seed++ {
		args := mutation(guarded, false, seed)
		if args.Get("expect") != schemadraw.ExpectUnknown {
			t.Errorf("%v: want expect=unknown", args)
		}
		if err := apply(t, w, args); err != nil {
			if !strings.Contains(err.Error(), "guarded must start with x") {
				t.Errorf("%v: %v, want the rule's refusal", args, err)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("no draw refused by the rule: the test shows nothing")
	}
}

// The same seed draws the same workload, and a workload's plan text parses
// back to the same steps.
func TestWorkloadIsDeterministicAndRoundTrips(t *testing.T) {
	w, err := search.NewWorld(optest.GadgetOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for seed := 0; seed < 40; seed++ {
		a := w.Space.Workload.Example(seed)
		b := w.Space.Workload.Example(seed)
		pa := &plan.Plan{Seed: uint64(seed), Steps: a}
		if pa.String() != (&plan.Plan{Seed: uint64(seed), Steps: b}).String() {
			t.Fatalf("seed %d drew two workloads:\n%s\n%s", seed, pa, &plan.Plan{Seed: uint64(seed), Steps: b})
		}
		back, err := plan.Parse(pa.String())
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, pa)
		}
		if back.String() != pa.String() || !slices.EqualFunc(back.Steps, a, func(x, y plan.Step) bool { return x.String() == y.String() && slices.Equal(x.Args, y.Args) }) {
			t.Fatalf("seed %d: the plan does not round-trip:\n%s\n%s", seed, pa, back)
		}
		steps += len(a)
		if seed < 6 {
			t.Logf("seed %d:\n%s", seed, pa)
		}
	}
	if steps == 0 {
		t.Fatal("no steps drawn")
	}
}

// A plan saved before op= and expect= existed still runs: mutate with
// object=, field= and value= sets the field.
func TestWorkloadReadsPlansWithoutOpOrExpect(t *testing.T) {
	w, err := search.NewWorld(optest.GadgetOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\nat 0s mutate object=0 field=spec.port value=8080\n")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(p, cluster.Options{Scheme: w.Opts.Scheme, CRDs: w.CRDs, Setup: w.Setup, Actions: workload.Actions(w)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second)
	u := optest.Gadget()
	if err := c.Get(client.ObjectKeyFromObject(u), u); err != nil {
		t.Fatal(err)
	}
	if port, _, _ := unstructured.NestedInt64(u.Object, "spec", "port"); port != 8080 {
		t.Errorf("spec.port = %d, want 8080", port)
	}
}

// The operations on lists and maps do what their names say.
func TestChangeSetsAppendsAndRemoves(t *testing.T) {
	for _, tc := range []struct {
		path, op string
		v        any
		want     string
	}{
		{"spec.tags.1", workload.OpSet, "z", `map[spec:map[labels:map[team:x] tags:[a z]]]`},
		{"spec.tags", workload.OpAppend, "c", `map[spec:map[labels:map[team:x] tags:[a b c]]]`},
		{"spec.tags.0", workload.OpRemove, nil, `map[spec:map[labels:map[team:x] tags:[b]]]`},
		{"spec.labels.env", workload.OpSet, "prod", `map[spec:map[labels:map[env:prod team:x] tags:[a b]]]`},
		{"spec.labels.team", workload.OpRemove, nil, `map[spec:map[labels:map[] tags:[a b]]]`},
		{"spec.new.deep", workload.OpSet, int64(1), `map[spec:map[labels:map[team:x] new:map[deep:1] tags:[a b]]]`},
		{"spec.list", workload.OpAppend, int64(1), `map[spec:map[labels:map[team:x] list:[1] tags:[a b]]]`},
		{"spec.tags.2", workload.OpSet, "z", `error: item 2: the list has 2`},
		{"spec.labels.none", workload.OpRemove, nil, `error: spec.labels.none is absent`},
	} {
		content := map[string]any{"spec": map[string]any{"tags": []any{"a", "b"}, "labels": map[string]any{"team": "x"}}}
		got := ""
		if err := workload.Change(content, strings.Split(tc.path, "."), tc.op, tc.v); err != nil {
			got = "error: " + err.Error()
		} else {
			got = fmt.Sprint(content)
		}
		if got != tc.want {
			t.Errorf("%s %s %v: got %s, want %s", tc.op, tc.path, tc.v, got, tc.want)
		}
	}
}

// gadgetReconciler keeps a ConfigMap per Gadget with its port and tags; with
// panicOnThreeTags it has a bug that only a workload reaching a list's
// maxItems shows.
type gadgetReconciler struct {
	client.Client
	panicOnThreeTags bool
}

func (r *gadgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	g := &unstructured.Unstructured{}
	g.SetGroupVersionKind(optest.Gadget().GroupVersionKind())
	if err := r.Get(ctx, req.NamespacedName, g); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	tags, _, _ := unstructured.NestedStringSlice(g.Object, "spec", "tags")
	if r.panicOnThreeTags && len(tags) == 3 {
		panic("three tags")
	}
	port, _, _ := unstructured.NestedFieldNoCopy(g.Object, "spec", "port")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: g.GetNamespace(), Name: g.GetName() + "-gadget"}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"port": fmt.Sprint(port), "tags": strings.Join(tags, ",")}
		return controllerutil.SetControllerReference(g, cm, r.Scheme())
	})
	return reconcile.Result{}, err
}

func gadgetController(panicOnThreeTags bool) world.Options {
	o := optest.GadgetOptions()
	// Gadget has no Go type: the garbage collector reads such owners as
	// metadata, as upstream reads every owner, and collects a deleted
	// Gadget's ConfigMap. Update summaries are off: a Gadget deleted while
	// the operator's cache lags behind makes it re-create the ConfigMap the
	// collector deleted, as any operator owning children does (operatortest's
	// Known gaps).
	o.NoWorkloadModels = true
	o.Disable = []string{world.UpdateSummaries}
	o.Managers = []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
		g := &unstructured.Unstructured{}
		g.SetGroupVersionKind(optest.Gadget().GroupVersionKind())
		return ctrl.NewControllerManagedBy(mgr).For(g).Owns(&corev1.ConfigMap{}).
			Complete(&gadgetReconciler{Client: mgr.GetClient(), panicOnThreeTags: panicOnThreeTags})
	}}}
	return o
}

// Under a workload drawn from the Gadget CRD (valid and invalid mutations of
// every kind, deletions, re-creations), a controller that keeps its
// ConfigMap survives: the refused steps are lines of the timeline, not
// violations. A controller that panics on a list at its maxItems is caught,
// and the workload shrinks to one step that fills the list.
func TestWorkloadReachesAControllerBugAndShrinks(t *testing.T) {
	if testing.Short() {
		t.Skip("explores plans")
	}
	o := gadgetController(false)
	o.Checks, o.Seed = 30, 1
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Fatalf("a controller that does its job: violated %v in\n%s", res.Violations, res.Minimal)
	}

	o = gadgetController(true)
	o.Checks, o.Seed = 200, 1
	res, err = search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("the three-tags panic not caught in %d plans", res.Checks)
	}
	t.Logf("caught after %d plans; minimal plan:\n%s", res.Checks, res.Minimal)
	if len(res.Minimal.Steps) != 1 {
		t.Errorf("minimal plan has %d steps, want 1:\n%s", len(res.Minimal.Steps), res.Minimal)
	}
	found := false
	for _, v := range res.Violations {
		found = found || v.Property == cluster.ReconcilePanicProperty
	}
	if !found {
		t.Errorf("violations %v, want %s", res.Violations, cluster.ReconcilePanicProperty)
	}
}

// The labels agree with the real kube-apiserver too (envtest, when
// KUBEBUILDER_ASSETS names its binaries: `make envtest-assets`): each drawn
// mutation, applied to a fresh copy of the seed, is accepted when labelled
// valid and refused with 422 Invalid when labelled invalid.
func TestWorkloadLabelsAgreeWithKubeAPIServer(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: run `make envtest-assets`")
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(optest.GadgetCRD), &def); err != nil {
		t.Fatal(err)
	}
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: clientgoscheme.Scheme, Definitions: []*apiextensionsv1.CustomResourceDefinition{&def}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	w, err := search.NewWorld(optest.GadgetOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	checked := map[string]int{}
	n := 0
	for _, tg := range workload.Targets(w.CRDs[0].Schema, workload.SeedContent(optest.Gadget(), w.CRDs[0].Schema)) {
		for _, invalid := range []bool{false, true} {
			for seed := 0; seed < 4; seed++ {
				args := mutation(tg, invalid, seed)
				n++
				g := optest.Gadget()
				g.SetName(fmt.Sprintf("g%d", n))
				if err := env.Admin.Create(ctx, g); err != nil {
					t.Fatal(err)
				}
				op := args.Get("op")
				var v any
				if op != workload.OpRemove {
					v = schemadraw.JSONContent([]byte(args.Get("value")))
				}
				if err := workload.Change(g.Object, strings.Split(args.Get("field"), "."), op, v); err != nil {
					t.Fatalf("%v: %v", args, err)
				}
				err := env.Admin.Update(ctx, g)
				step := plan.Step{Action: world.ActionMutate, Args: args}
				switch label := args.Get("expect"); {
				case label == schemadraw.ExpectValid && err != nil:
					t.Errorf("%s: labelled valid, kube-apiserver refused it: %v", step, err)
				case label == schemadraw.ExpectInvalid && !apierrors.IsInvalid(err):
					t.Errorf("%s: labelled invalid, kube-apiserver answered %v", step, err)
				default:
					checked[label]++
				}
			}
		}
	}
	t.Logf("checked against kube-apiserver: %v", checked)
	if checked[schemadraw.ExpectValid] == 0 || checked[schemadraw.ExpectInvalid] == 0 {
		t.Errorf("checked %v: want both labels", checked)
	}
}

// A stale restart at the instant the workload deletes the Gadget delays the
// operator past the deletion: it never makes the ConfigMap that the
// fault-free run made and the collector then deleted. It did less, not
// wrong: no oracle objects (update-summaries counts churn the fault added,
// not work it made unnecessary).
func TestAnOperatorDelayedPastADeletionIsNoViolation(t *testing.T) {
	o := gadgetController(false)
	o.Disable = nil
	if v := optest.Judge(t, o, "seed 0\nat 1ms delete object=0\nstale process=op at=1ms age=1ms\n"); len(v) != 0 {
		t.Fatalf("violated %v", v)
	}
}

// A reconcile that failed just before its process crashed is not an error
// at rest: the restarted process starts afresh, and the Gadget deleted
// meanwhile is never reconciled again.
func TestAnErrorBeforeACrashIsNotAtRest(t *testing.T) {
	o := gadgetController(false)
	v := optest.Judge(t, o, "seed 0\nat 1ms mutate object=0 field=spec.enabled value=false expect=valid\nat 9ms delete object=0\n"+
		"lag process=op kind=/v1/ConfigMap min=8ms max=9ms\ncrash process=op write=3\n")
	if len(v) != 0 {
		t.Fatalf("violated %v", v)
	}
}

// The user's workloads the sweep adds to the script: for each seed object
// that may draw a step, its deletion and then a valid change of its first
// place that can take one, a third of the way into the fault phase
// (Lifecycle); then the re-creations (Recreations): the object deleted and created again under its name at
// once (1 ms later) and after its deletion has completed (a sixth of the
// fault phase later), and a numeric place changed and changed back (a scale
// down and up); the same every time; only the kinds of step the test
// allows; none without a workload.
func TestLifecycleDeletesAndChangesEachSeedObjectThenRecreationsRecreateAndUndo(t *testing.T) {
	lifecycle := func(o world.Options) [][]plan.Step {
		t.Helper()
		w, err := search.NewWorld(o.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		ls, err := workload.Lifecycle(w)
		if err != nil {
			t.Fatal(err)
		}
		re, err := workload.Recreations(w)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, re...)
		again, _ := workload.Lifecycle(w)
		more, _ := workload.Recreations(w)
		if fmt.Sprint(append(again, more...)) != fmt.Sprint(ls) {
			t.Errorf("Lifecycle and Recreations differ between two calls:\n%v\n%v", ls, again)
		}
		return ls
	}
	ls := lifecycle(optest.GadgetOptions())
	if len(ls) != 5 {
		t.Fatalf("Lifecycle = %v, want a deletion, a change, two re-creations and a change undone of the one seed object", ls)
	}
	for i, l := range ls {
		t.Logf("workload %d: %v", i+1, l)
	}
	del, mut := ls[0][0], ls[1][0]
	if len(ls[0]) != 1 || del.Action != world.ActionDelete || del.At != 20*time.Second || del.Args.Get("object") != "0" {
		t.Errorf("first workload %v, want the seed object deleted at 20s (a third of the 1m fault phase)", ls[0])
	}
	if len(ls[1]) != 1 || mut.Action != world.ActionMutate || mut.Args.Get("expect") != schemadraw.ExpectValid || mut.Args.Get("field") == "" {
		t.Errorf("second workload %v, want a valid change of a field", ls[1])
	}
	for i, at := range []time.Duration{20*time.Second + time.Millisecond, 30 * time.Second} {
		l := ls[2+i]
		if len(l) != 2 || l[0].Action != world.ActionDelete || l[0].At != 20*time.Second || l[1].Action != world.ActionRecreate || l[1].At != at || l[1].Args.Get("object") != "0" {
			t.Errorf("workload %d: %v, want the seed object deleted at 20s and created again at %v", 3+i, l, at)
		}
	}
	undo := ls[4]
	if len(undo) != 2 || undo[0].Action != world.ActionMutate || undo[1].Action != world.ActionMutate || undo[1].At != 30*time.Second ||
		undo[0].Args.Get("field") != "spec.limits.cpu" || undo[1].Args.Get("field") != "spec.limits.cpu" || undo[1].Args.Get("value") != "2" || undo[0].Args.Get("value") == "2" {
		t.Errorf("fifth workload %v, want spec.limits.cpu (2 in the seed: the first numeric place in path order) changed at 20s and set back to 2 at 30s", undo)
	}
	o := optest.GadgetOptions()
	o.Workload.Steps = []world.StepKind{world.Deletions}
	if ls := lifecycle(o); len(ls) != 1 || ls[0][0].Action != world.ActionDelete {
		t.Errorf("with Steps=[deletions]: %v, want the deletion only", ls)
	}
	o = optest.GadgetOptions()
	o.NoWorkload = true
	if ls := lifecycle(o); len(ls) != 0 {
		t.Errorf("with NoWorkload: %v, want none", ls)
	}
}

// drawnObjects are the seed objects (by index) that w's workload names in
// the plans of 60 seeds.
func drawnObjects(w *world.World) map[string]bool {
	out := map[string]bool{}
	for seed := 0; seed < 60; seed++ {
		for _, s := range w.Space.Workload.Example(seed) {
			if o := s.Args.Get("object"); o != "" {
				out[o] = true
			}
		}
	}
	return out
}

// By default the drawn workload edits and deletes the operator's own seed
// objects, its custom resources and what they own; the seeds of built-in
// kinds besides (a seeded Namespace, a registry ConfigMap in it) are the
// cluster's set-up, touched only where Workload.Objects names them.
func TestTheDefaultWorkloadLeavesTheClustersSetUpAlone(t *testing.T) {
	setUp := func(o world.Options) world.Options {
		gadget := o.Objects[0]
		owned := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: gadget.GetNamespace(), Name: "gadget-config",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "test.ctrlsim.dev/v1", Kind: "Gadget", Name: gadget.GetName(), UID: "u"}}}}
		o.Objects = append(o.Objects, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "registry-system"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "registry-system", Name: "registry"}}, owned)
		return o
	}
	w, err := search.NewWorld(setUp(optest.GadgetOptions()).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := drawnObjects(w); !got["0"] || got["1"] || got["2"] || !got["3"] {
		t.Errorf("the default workload named seeds %v, want the Gadget (0) and the Secret it owns (3), not the Namespace (1) or its ConfigMap (2)", got)
	}
	o := setUp(optest.GadgetOptions())
	o.Workload.Objects = []client.Object{o.Objects[1]}
	w, err = search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := drawnObjects(w); !got["1"] || len(got) != 1 {
		t.Errorf("with Workload.Objects naming the Namespace the workload named seeds %v, want the Namespace (1) alone", got)
	}
	// An operator of built-in kinds alone takes its seeds as its inputs.
	o = optest.AppOptions(optest.Child())
	o.Objects = append(o.Objects, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "old"}})
	w, err = search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := drawnObjects(w); !got["0"] || !got["1"] {
		t.Errorf("with no seed custom resource the workload named seeds %v, want every seed (0, 1)", got)
	}
}
