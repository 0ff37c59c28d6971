package optest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ChurnRun is a run's snapshot from its changes, the workload's deletion of
// the app at userDelete (none when 0).
func ChurnRun(t *testing.T, w *world.World, userDelete time.Duration, changes ...LogChange) *verdict.Snapshot {
	t.Helper()
	start := time.Unix(0, 0)
	r := &check.Run{Start: start, End: time.Minute, HealAt: 30 * time.Second, Objects: func(schema.GroupVersionKind) []client.Object { return nil }}
	for i, c := range changes {
		o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: c.Name, GenerateName: c.GenerateName, UID: types.UID(c.Name)}}
		r.Log = append(r.Log, apiserver.Event{Type: c.Type, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Object: o, ResourceVersion: uint64(i + 1), At: start.Add(c.At)})
	}
	if userDelete > 0 {
		r.Steps = append(r.Steps, trace.Step{At: userDelete, Op: "action", Object: world.ActionDelete, Result: "ok"})
	}
	return verdict.SnapshotOf(w, r)
}

// LogChange is one committed change of a run's watch log: a ConfigMap of team
// made or deleted at a given instant.
type LogChange struct {
	At                 time.Duration
	Type               watch.EventType
	Name, GenerateName string
}

func TickerOptions(twoWrites bool) world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "ticker", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, Apps).
				Complete(&tickerReconciler{Client: mgr.GetClient(), twoWrites: twoWrites})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "ticker"}}},
	}
}

// Added is the watch event of obj's creation.
func Added(t *testing.T, obj client.Object) apiserver.Event {
	t.Helper()
	gvk, err := apiutil.GVKForObject(obj, clientgoscheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	return apiserver.Event{Type: watch.Added, GVK: gvk, Object: obj}
}

func App(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app", UID: "u"}, Data: data}
}

// JudgeAll runs one plan on o and returns every verdict, by property.
func JudgeAll(t *testing.T, o world.Options, text string) map[string]check.Verdict {
	t.Helper()
	_, _, r := RunText(t, o, text)
	out := map[string]check.Verdict{}
	for _, v := range r.Verdicts {
		out[v.Property] = v
	}
	return out
}

// Snap is a run's snapshot made of its end-state objects (each also in its
// watch log), for the comparing oracles' tests.
func Snap(t *testing.T, w *world.World, objs ...client.Object) *verdict.Snapshot {
	t.Helper()
	var log []apiserver.Event
	for _, o := range objs {
		log = append(log, Added(t, o))
	}
	s := &verdict.Snapshot{World: w, Canon: canon.NewTokens(log), Raw: map[schema.GroupVersionKind][]client.Object{}, Touched: map[schema.GroupVersionKind]bool{},
		State: map[schema.GroupVersionKind]*verdict.KindState{}}
	for _, ev := range log {
		if _, ok := s.Raw[ev.GVK]; !ok {
			s.Kinds = append(s.Kinds, ev.GVK)
		}
		s.Raw[ev.GVK] = append(s.Raw[ev.GVK], ev.Object)
	}
	return s
}

// RunText runs the plan text in a world of o, judged as a test judges it,
// and returns the world, the plan and the run.
func RunText(t *testing.T, o world.Options, text string) (*world.World, *plan.Plan, *world.RunResult) {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	w := TestWorld(t, o)
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	CheckExcused(t, r.Verdicts)
	return w, p, r
}

// CheckExcused fails t for a verdict that names an excuse the table
// (verdict.Excuses) does not have, or names them unsorted or twice.
func CheckExcused(t *testing.T, vs []check.Verdict) {
	t.Helper()
	for _, v := range vs {
		if !slices.IsSorted(v.Excused) || len(slices.Compact(slices.Clone(v.Excused))) != len(v.Excused) {
			t.Errorf("%s names its excuses unsorted or twice: %v", v.Property, v.Excused)
		}
		for _, name := range v.Excused {
			e, ok := verdict.ExcuseNamed(name)
			switch {
			case !ok:
				t.Errorf("%s names excuse %q, which the table (verdict.Excuses) lacks", v.Property, name)
			case !slices.Contains(e.Oracles, v.Property):
				t.Errorf("%s names excuse %q, whose table entry lists the oracles %v", v.Property, name, e.Oracles)
			case v.Holds != (e.Principle != 3):
				t.Errorf("%s (holds: %v) names excuse %q of principle %d: a verdict that holds names the excuses it holds by, a violated one only a principle 3 case", v.Property, v.Holds, name, e.Principle)
			}
		}
	}
}

// Excused is the verdict's Excused, for a test's assertion.
func Excused(t *testing.T, v check.Verdict, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, ok := verdict.ExcuseNamed(n); !ok {
			t.Fatalf("no excuse %q in the table", n)
		}
		if !slices.Contains(v.Excused, n) {
			t.Errorf("%s (holds: %v) does not name excuse %s: it names %v (%s)", v.Property, v.Holds, n, v.Excused, v.Detail)
		}
	}
}

func TestWorld(t *testing.T, o world.Options) *world.World {
	t.Helper()
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// FailingRun is the report of the crash between the two creates, its plan
// path under dir and its story in dir as the artifacts directory
// (-ctrlsim.artifacts).
func FailingRun(t *testing.T, dir string) *failure.Failure {
	t.Helper()
	return FailingRunIn(t, dir, dir)
}

// EditThenDeleteTheDependency: the user edits the app's host at 3 ms and
// deletes its backend at 25 ms, while the operator's ConfigMap watch lags
// 50 ms or more: it sees the backend gone before it sees the edit (a real
// cluster promises no order across kinds), and never publishes the new host.
const EditThenDeleteTheDependency = "seed 1\n" +
	`script at 3ms patch kind=/v1/ConfigMap namespace=team name=app patch="{\"data\":{\"host\":\"b\"}}"` + "\n" +
	"at 25ms delete object=1\n" +
	"lag process=op kind=/v1/ConfigMap min=50ms max=458ms\n"

func PublishOptions(giveUp bool) world.Options {
	o := AppOptions(publishes(giveUp))
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		toApp := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: "app"}}}
		})
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, Apps).Watches(&corev1.Secret{}, toApp).
			Complete(&AppReconciler{Client: mgr.GetClient(), Do: publishes(giveUp)})
	}
	o.Objects = []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}, Data: map[string]string{"host": "a"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "backend"}},
	}
	return o
}

// BugOptions is an operator on two ConfigMaps: team/a (labelled panic when
// withPanic) and team/b (labelled secret), judged by copied; short phases.
func BugOptions(r *KnownBugs, withPanic bool) world.Options {
	a := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "a"}}
	if withPanic {
		a.Labels = map[string]string{"panic": "yes"}
	}
	data := map[string]string{"value": "v"}
	if r.Shuffled {
		for i := range 64 {
			data[fmt.Sprintf("k%02d", i)] = "x"
		}
	}
	b := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "b", Labels: map[string]string{"secret": "yes"}}, Data: data}
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, Apps).Complete(&KnownBugs{Client: mgr.GetClient(), WrongCopy: r.WrongCopy, TwoWrites: r.TwoWrites, Shuffled: r.Shuffled})
		}}},
		Objects:    []client.Object{a, b},
		Properties: []world.Property{Copied},
		// These tests judge how the harness reports known bugs (violations
		// of copied, panics), not the workload. copied presumes team/b
		// exists: a drawn deletion of it violates copied on its own (seen:
		// "secrets \"b-copy\" not found" after "at 0s delete object=1"),
		// a violation of this test's property that would race the bug each
		// test expects.
		NoWorkload:       true,
		NoWorkloadModels: true,
		FaultPhase:       5 * time.Second,
		HealBudget:       10 * time.Second,
		Checks:           6,
		Seed:             1,
	}
}

const ChildEnv = "CTRLSIM_OPERATORTEST_CHILD"

// ChildOnly skips a test unless it runs as the child runChild started.
func ChildOnly(t *testing.T) {
	if os.Getenv(ChildEnv) != t.Name() {
		t.Skip("run by its parent test, in a child process")
	}
}

func JudgeVerdict(t *testing.T, o world.Options, text, name string) (check.Verdict, []trace.Step) {
	t.Helper()
	_, _, r := RunText(t, o, text)
	for _, v := range r.Verdicts {
		if v.Property == name {
			return v, r.Steps
		}
	}
	t.Fatalf("no verdict %s in %+v", name, r.Verdicts)
	return check.Verdict{}, nil
}

// KnownBugs is the smallest operator with the bugs these tests need: on a
// ConfigMap labelled "panic" its reconcile panics (a known bug); on one
// labelled "secret" it should make a Secret <name>-copy holding the
// ConfigMap's data, and with wrongCopy it writes the wrong value (a second,
// distinct bug, which the property copied catches); with twoWrites it
// creates the Secret empty and then fills it, and takes an existing Secret
// as done (a bug that only a crash between the two writes shows); with
// shuffled it writes the data's keys in Go map order (a nondeterministic
// operator).
type KnownBugs struct {
	client.Client
	WrongCopy, TwoWrites, Shuffled bool
}

func (r *KnownBugs) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Labels["panic"] != "" {
		var m map[string]int
		m["boom"]++ // the known bug: a nil map
	}
	if cm.Labels["secret"] == "" {
		return reconcile.Result{}, nil
	}
	value := cm.Data["value"]
	if r.WrongCopy {
		value += "!"
	}
	if r.Shuffled {
		var keys []string
		for k := range cm.Data { // the bug: Go map order
			keys = append(keys, k)
		}
		value = strings.Join(keys, ",")
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name + "-copy"}, StringData: map[string]string{"value": value}}
	if r.TwoWrites {
		s.StringData = nil
		if err := r.Create(ctx, s); apierrors.IsAlreadyExists(err) {
			return reconcile.Result{}, nil // the bug: made, so taken as filled
		} else if err != nil {
			return reconcile.Result{}, err
		}
		s.StringData = map[string]string{"value": value}
		return reconcile.Result{}, r.Update(ctx, s)
	}
	if err := r.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

func AppOptions(do Behaviour) world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, Apps).Owns(&corev1.Secret{}).
				Complete(&AppReconciler{Client: mgr.GetClient(), Do: do})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}},
	}
}

type AppReconciler struct {
	client.Client
	Do Behaviour
}

func (r *AppReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{}, r.Do(ctx, r.Client, &app)
}

// Behaviour is what a test controller does with the app ConfigMap.
type Behaviour func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error

// CanonicalText is an object's canonical content as the comparing oracles see
// it, in a run whose watch log is log.
func CanonicalText(t *testing.T, log ...apiserver.Event) func(gvk schema.GroupVersionKind, o client.Object) string {
	t.Helper()
	w, err := search.NewWorld(AppOptions(Child()).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	s := &verdict.Snapshot{World: w, Canon: canon.NewTokens(log)}
	return func(gvk schema.GroupVersionKind, o client.Object) string { return canon.Encode(s.Normalize(gvk, o)) }
}

// Child creates the app's Secret, owned by it, with the given finalizers.
func Child(finalizers ...string) Behaviour {
	return func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child", Finalizers: finalizers}}
		if err := controllerutil.SetControllerReference(app, s, c.Scheme()); err != nil {
			return err
		}
		if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	}
}

// Judge runs one plan on o and returns which properties it violated.
func Judge(t *testing.T, o world.Options, text string) map[string]string {
	t.Helper()
	_, _, r := RunText(t, o, text)
	out := map[string]string{}
	for _, v := range r.Violated() {
		out[v.Property] = v.Detail
	}
	return out
}

// ExploreWith explores o with n workers in a subtest of its own (worker
// processes re-run a test up to its first exploration).
func ExploreWith(t *testing.T, o world.Options, n int) search.Result {
	t.Helper()
	var res search.Result
	t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
		o.Workers = n
		var err error
		if res, err = search.Explore(t, o); err != nil {
			t.Fatal(err)
		}
	})
	return res
}

func PropertiesOf(r search.Result) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Property)
	}
	return out
}

// TrustsItsMark marks the app, then creates its child: restarted between the
// two, it trusts the mark and never makes the child.
func TrustsItsMark(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
	if app.Annotations["started"] != "" {
		return nil
	}
	metav1.SetMetaDataAnnotation(&app.ObjectMeta, "started", "yes")
	if err := c.Update(ctx, app); err != nil {
		return err
	}
	return Child()(ctx, c, app)
}

// DomainOptions: the knownBugs operator with publish as its only drawn
// steps (no steps over the seed objects).
func DomainOptions() world.Options {
	o := BugOptions(&KnownBugs{}, false)
	o.NoWorkload = false
	o.Properties = nil
	o.Workload = world.Workload{Steps: []world.StepKind{}, Domain: []world.DomainStep{Publish}}
	return o
}

// RandomPassOnly leaves the sweep out until the returned func is called:
// for the tests of the random pass (workers, shards, shrinking, progress),
// whose bug the sweep would find at its first plan.
func RandomPassOnly() func() {
	search.NoSweep = true
	return func() { search.NoSweep = false }
}

// LedgerOptions: the knownBugs operator, whose manager gets the run's
// ledger at every start; a domain step "note" and the ledger's fault
// "ledger-fails" act on it; made counts the instances New made.
func LedgerOptions(made *int) world.Options {
	o := DomainOptions()
	o.Workload.Domain = []world.DomainStep{{Name: "note", Do: func(_ context.Context, env world.StepEnv, _ world.Args) error {
		env.System("ledger").(*Ledger).Notes++
		return nil
	}}}
	o.Systems = []world.System{{
		Name: "ledger",
		New: func(world.SystemEnv) (any, error) {
			*made++
			return &Ledger{Made: *made}, nil
		},
		Faults: []world.DomainStep{{Name: "ledger-fails", Within: time.Hour, Do: func(context.Context, world.StepEnv, world.Args) error { return nil }}},
	}}
	o.Managers = []world.Manager{{Name: "op", SetupWithSystems: func(mgr manager.Manager, s world.Systems) error {
		s["ledger"].(*Ledger).Starts++
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, Apps).Complete(&KnownBugs{Client: mgr.GetClient()})
	}}}
	return o
}

func FinalizerOptions() world.Options { return FinalizerOptionsCleaningUpIn(2 * time.Second) }

// Gadget is the seed: every field set, as a valid Gadget.
func Gadget() *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.ctrlsim.dev/v1", "kind": "Gadget",
		"metadata": map[string]any{"namespace": "default", "name": "g"},
		"spec": map[string]any{
			"name": "gadget", "code": "ABC-12", "mode": "fast", "when": "2026-01-02T03:04:05Z", "ttl": "5m",
			"host": "gadget.example.com", "ip": "10.0.0.1", "id": "00000000-0000-4000-8000-000000000000",
			"port": int64(80), "ratio": 0.5, "step": int64(10), "enabled": true, "size": int64(1),
			"limits":  map[string]any{"cpu": int64(2)},
			"nested":  map[string]any{"inner": map[string]any{"level": int64(1)}},
			"tags":    []any{"a", "b"},
			"ports":   []any{map[string]any{"port": int64(80)}},
			"labels":  map[string]any{"team": "x"},
			"guarded": "xok",
		},
	}}
	return u
}

func GadgetOptions() world.Options {
	return world.Options{
		Scheme:   clientgoscheme.Scheme,
		CRDs:     [][]byte{[]byte(GadgetCRD)},
		Managers: []world.Manager{{Name: "op", Setup: func(manager.Manager) error { return nil }}},
		Objects:  []client.Object{Gadget()},
	}
}

// tickerReconciler is a time-driven operator: for the ConfigMap "ticker" it
// makes a run, the ConfigMap "ticker-<unix seconds>" it owns, at each
// tickEvery instant since the ticker's creation, at most tickDeadline late (a
// later run is skipped by design, as a CronJob's startingDeadlineSeconds
// skips it), and records the last run's instant in an annotation. Its twin
// (twoWrites) makes a run in two writes, created "starting" and then set
// "done", and trusts a run that exists: a crash between the two leaves it
// "starting" for good.
type tickerReconciler struct {
	client.Client
	twoWrites bool
}

// FailingRunIn is failingRun with -ctrlsim.artifacts set to artifacts ("":
// the flag not given).
func FailingRunIn(t *testing.T, dir, artifacts string) *failure.Failure {
	t.Helper()
	return FailingRunAt(t, filepath.Join(dir, "TestX.plan"), artifacts)
}

// publishes is an operator whose app (ConfigMap team/app) names a dependency
// (Secret team/backend): it publishes the app's host in its ConfigMap
// team/app-out, and while the backend is missing it fails, to be retried
// (correct), or gives up with no error (giveUp, the buggy variant).
func publishes(giveUp bool) Behaviour {
	return func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if app.Name != "app" {
			return nil
		}
		var backend corev1.Secret
		if err := c.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: "backend"}, &backend); err != nil {
			if giveUp && apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
		out := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: "app-out"}}
		_, err := controllerutil.CreateOrUpdate(ctx, c, out, func() error {
			out.Data = map[string]string{"host": app.Data["host"]}
			return controllerutil.SetControllerReference(app, out, c.Scheme())
		})
		return err
	}
}

// Copied: every "secret" ConfigMap's Secret holds its value.
var Copied = world.Property{Name: "copied", Check: func(h *world.History) error {
	var s corev1.Secret
	if err := h.Get(client.ObjectKey{Namespace: "team", Name: "b-copy"}, &s); err != nil {
		return err
	}
	if got := string(s.Data["value"]); got != "v" {
		return fmt.Errorf("Secret team/b-copy holds %q, want %q", got, "v")
	}
	return nil
}}

// Publish is a domain step of the knownBugs operator's world: a user
// publishes a "secret" ConfigMap named by its parameter (the operator copies
// it into a Secret <name>-copy).
var Publish = world.DomainStep{
	Name:   "publish",
	Params: []world.Param{{Key: "name", Values: []string{"x", "y", "bad"}}},
	Max:    2,
	Do: func(ctx context.Context, env world.StepEnv, args world.Args) error {
		return env.Client.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: args.Get("name"), Labels: map[string]string{"secret": "yes"}},
			Data:       map[string]string{"value": "v"}})
	},
}

// Ledger is an outside system of the tests: it counts the manager's starts
// (each start is given the run's instance) and the steps that noted in it.
type Ledger struct {
	Made   int // the run's instance number (New is called once a run)
	Starts int
	Notes  int
}

func FinalizerOptionsCleaningUpIn(cleanup time.Duration) world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, Apps).Complete(&finalizerReconciler{Client: mgr.GetClient(), cleanup: cleanup})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}},
	}
}

// GadgetCRD has a field for each schema feature the workload draws from.
const GadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.test.ctrlsim.dev
spec:
  group: test.ctrlsim.dev
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              name: {type: string, pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', minLength: 2, maxLength: 12}
              code: {type: string, pattern: '^[A-Z]{3}-[0-9]{2,4}$'}
              mode: {type: string, enum: [fast, slow]}
              when: {type: string, format: date-time}
              ttl: {type: string, format: duration}
              host: {type: string, format: hostname}
              ip: {type: string, format: ipv4}
              id: {type: string, format: uuid}
              port: {type: integer, minimum: 1, maximum: 65535}
              ratio: {type: number, minimum: 0, maximum: 1, exclusiveMinimum: true, exclusiveMaximum: true}
              step: {type: integer, minimum: 0, maximum: 100, multipleOf: 5}
              enabled: {type: boolean}
              size: {x-kubernetes-int-or-string: true}
              limits:
                type: object
                required: [cpu]
                properties:
                  cpu: {type: integer, minimum: 1, maximum: 8}
                  memory: {type: string, pattern: '^[0-9]+Mi$'}
              nested:
                type: object
                properties:
                  inner:
                    type: object
                    properties:
                      level: {type: integer, minimum: 0, maximum: 3}
              tags:
                type: array
                minItems: 1
                maxItems: 3
                x-kubernetes-list-type: set
                items: {type: string, maxLength: 5}
              ports:
                type: array
                maxItems: 2
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer, minimum: 1, maximum: 65535}
                    name: {type: string, maxLength: 8}
              labels:
                type: object
                maxProperties: 3
                additionalProperties: {type: string, pattern: '^[a-z]+$'}
              guarded:
                type: string
                x-kubernetes-validations:
                - rule: self.startsWith('x')
                  message: guarded must start with x
`

// FailingRunAt is failingRunIn with the plan saved at path.
func FailingRunAt(t *testing.T, path, artifacts string) *failure.Failure {
	t.Helper()
	old := *failure.FlagArtifacts
	*failure.FlagArtifacts = artifacts
	t.Cleanup(func() { *failure.FlagArtifacts = old })
	w, err := search.NewWorld(AppOptions(firstWriteStandsForBoth).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\ncrash process=op write=1\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := failure.OfPlan(w, t, p, path)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatal("the crash between the two creates no longer violates anything")
	}
	return f
}

// finalizerReconciler is a correct operator with a finalizer: it adds its
// finalizer to the ConfigMaps it watches, and on deletion runs an external
// cleanup that takes the time cleanup before it removes the finalizer.
type finalizerReconciler struct {
	client.Client
	cleanup time.Duration
}

func (r *tickerReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.Name != "ticker" {
		return reconcile.Result{}, nil
	}
	var tk corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &tk); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	now, created := time.Now(), tk.CreationTimestamp.Time
	latest := created.Add(now.Sub(created).Truncate(tickEvery))
	last, _ := time.Parse(time.RFC3339, tk.Annotations["last"])
	if latest.After(created) && latest.After(last) && now.Sub(latest) <= tickDeadline {
		run := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tk.Namespace, Name: fmt.Sprintf("ticker-%d", latest.Unix())},
			Data: map[string]string{"state": "done"}}
		if err := controllerutil.SetControllerReference(&tk, run, r.Scheme()); err != nil {
			return reconcile.Result{}, err
		}
		if r.twoWrites {
			run.Data["state"] = "starting"
		}
		err := r.Create(ctx, run)
		switch {
		case err == nil && r.twoWrites:
			run.Data["state"] = "done"
			if err := r.Update(ctx, run); err != nil {
				return reconcile.Result{}, err
			}
		case apierrors.IsAlreadyExists(err): // made before (the twin trusts it)
		case err != nil:
			return reconcile.Result{}, err
		}
		metav1.SetMetaDataAnnotation(&tk.ObjectMeta, "last", latest.UTC().Format(time.RFC3339))
		if err := r.Update(ctx, &tk); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{RequeueAfter: latest.Add(tickEvery).Sub(now)}, nil
}

func (r *finalizerReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cm.DeletionTimestamp != nil {
		if !controllerutil.ContainsFinalizer(&cm, CleanupFinalizer) {
			return reconcile.Result{}, nil
		}
		if left := r.cleanup - time.Since(cm.DeletionTimestamp.Time); left > 0 {
			return reconcile.Result{RequeueAfter: left}, nil // the external cleanup is still running
		}
		controllerutil.RemoveFinalizer(&cm, CleanupFinalizer)
		return reconcile.Result{}, r.Update(ctx, &cm)
	}
	if controllerutil.AddFinalizer(&cm, CleanupFinalizer) {
		return reconcile.Result{}, r.Update(ctx, &cm)
	}
	return reconcile.Result{}, nil
}

const (
	tickEvery    = 30 * time.Second
	tickDeadline = 5 * time.Second
)

// firstWriteStandsForBoth creates the app's two Secrets, and skips both when
// the first exists: a crash between the two creates leaves the second never
// made (examples/twowrites' bug, in small).
func firstWriteStandsForBoth(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
	if err := c.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name + "-config"}, &corev1.Secret{}); err == nil {
		return nil
	}
	for _, suffix := range []string{"-config", "-credentials"} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + suffix}}
		if err := controllerutil.SetControllerReference(app, s, c.Scheme()); err != nil {
			return err
		}
		if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// CleanupFinalizer is the finalizer of finalizerReconciler.
const CleanupFinalizer = "example.com/cleanup"

// Apps narrows a fixture's ConfigMaps to its apps: the cluster's own
// kube-root-ca.crt, which kube-controller-manager puts into every
// namespace, is none (a real operator of ConfigMaps selects its own by
// label or name too).
var Apps = builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() != "kube-root-ca.crt" }))
