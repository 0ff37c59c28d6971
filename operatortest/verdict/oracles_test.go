package verdict_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Each generic oracle catches a controller that violates it, and a controller
// that does its job violates none, under the same faults.
func TestEachGenericOracleCatchesItsViolationOnly(t *testing.T) {
	const crash = "seed 1\ncrash process=op at=1ms\nlag process=op kind=* min=0s max=50ms\n"
	for _, tc := range []struct {
		name string
		do   optest.Behaviour
		// perStart, if set, makes the behaviour anew at each start of the
		// process (its memory is lost in a crash).
		perStart func() optest.Behaviour
		plan     string
		want     []string // violated, in any order; nil: none
	}{
		{"a controller that does its job", optest.Child(), nil, crash, nil},
		{"converges: a child the fault-free run makes and a crashed one does not", func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
			if app.Annotations["started"] != "" {
				return nil // the bug: a restarted process trusts its own mark
			}
			metav1.SetMetaDataAnnotation(&app.ObjectMeta, "started", "yes")
			if err := c.Update(ctx, app); err != nil {
				return err
			}
			return optest.Child()(ctx, c, app)
		}, nil, "seed 1\ncrash process=op call=3\n", []string{world.Converges}}, // a child never created: the end state differs; update-summaries counts only churn added
		{"terminates: a finalizer nobody removes on an object its owner deleted", func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
			if err := optest.Child("example.com/keep")(ctx, c, app); err != nil {
				return err
			}
			return client.IgnoreNotFound(c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}))
		}, nil, "seed 1\n", []string{world.Terminates}},
		{"no-orphans: a dependent the collector cannot delete once its owner is gone", func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: "orphan", Finalizers: []string{"example.com/keep"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: types.UID("no-such-uid")}}}}
			if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
			return nil
		}, nil, "seed 1\n", []string{world.NoOrphans, world.Terminates}},
		{"no-error-at-rest: a reconcile that fails for ever after a restart", nil, func() optest.Behaviour {
			made := map[string]bool{} // the process's memory: lost in a crash
			return func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
				s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}
				if err := controllerutil.SetControllerReference(app, s, c.Scheme()); err != nil {
					return err
				}
				err := c.Create(ctx, s)
				if apierrors.IsAlreadyExists(err) && !made[app.Name] {
					return errors.New("a child I did not make is in the way") // the bug: its own child, made before a restart
				}
				if err == nil {
					made[app.Name] = true
				}
				return client.IgnoreAlreadyExists(err)
			}
		}, "seed 1\ncrash process=op at=1s\n", []string{world.NoErrorAtRest}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := optest.AppOptions(tc.do)
			if tc.perStart != nil {
				o.Managers[0].Setup = func(mgr manager.Manager) error {
					return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).Owns(&corev1.Secret{}).
						Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: tc.perStart()})
				}
			}
			got := optest.Judge(t, o, tc.plan)
			if len(got) != len(tc.want) {
				t.Fatalf("violated %v, want exactly %v", got, tc.want)
			}
			for _, name := range tc.want {
				if got[name] == "" {
					t.Errorf("%s not violated (violated: %v)", name, got)
				}
			}
		})
	}
}

// A domain property of the test's own is judged after the generic ones, with
// the final state it reads.
func TestAPropertyOfTheTestsOwnIsJudged(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Properties = []world.Property{{Name: "two-children", Check: func(h *world.History) error {
		var list corev1.SecretList
		if err := h.List(&list, client.InNamespace("team")); err != nil {
			return err
		}
		if len(list.Items) != 2 {
			return errors.New("the app has " + string(rune('0'+len(list.Items))) + " children, want 2")
		}
		return nil
	}}}
	got := optest.Judge(t, o, "seed 1\n")
	if got["two-children"] != "the app has 1 children, want 2" || len(got) != 1 {
		t.Errorf("violated %v, want only two-children, with what it saw", got)
	}
}

// interleavings-agree (Kamera's oracle) catches a race between two workers:
// whichever app a worker reconciles first names the shared Secret, so the
// fault-free runs of two schedules can end differently, with no fault at all.
// One worker, or a controller that does not race, agrees with itself.
func TestInterleavingsAgreeCatchesARaceOfTwoWorkers(t *testing.T) {
	racy := func(workers int) world.Options {
		o := optest.AppOptions(nil)
		o.Managers[0].Setup = func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
				WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
				Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
					s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: "winner"},
						StringData: map[string]string{"app": app.Name}}
					if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
						return err
					}
					return nil
				}})
		}
		o.Objects = append(o.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "other"}})
		return o
	}
	caught := func(o world.Options) (int, string) {
		for seed := 1; seed <= 30; seed++ {
			if d := optest.Judge(t, o, "seed "+strconv.Itoa(seed)+"\n")[world.InterleavingsAgree]; d != "" {
				return seed, d
			}
		}
		return 0, ""
	}
	seed, detail := caught(racy(2))
	if seed == 0 {
		t.Fatal("two racing workers: no seed of 1-30 made the fault-free runs of two schedules disagree")
	}
	t.Logf("seed %d: %s", seed, detail)
	if !strings.Contains(detail, "Secret team/winner") {
		t.Errorf("the violation does not name the Secret the workers race for: %s", detail)
	}
	if seed, detail := caught(racy(1)); seed != 0 {
		t.Errorf("one worker: seed %d disagrees: %s", seed, detail)
	}
}

// update-summaries catches an operator that deletes and re-creates its child
// after a restart: the end state is the same as the fault-free run's (so
// converges holds), but the child was created twice and deleted once. The
// verdict says over what window it counted.
func TestUpdateSummariesCatchesARecreationAfterARestart(t *testing.T) {
	o := optest.AppOptions(nil)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		fresh := map[string]bool{} // the process's memory: lost in a crash
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).Owns(&corev1.Secret{}).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
				if !fresh[app.Name] {
					fresh[app.Name] = true // the bug: "start clean" on every process start
					if err := c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}); client.IgnoreNotFound(err) != nil {
						return err
					}
				}
				return optest.Child()(ctx, c, app)
			}})
	}
	got := optest.Judge(t, o, "seed 1\ncrash process=op at=5s\n")
	if len(got) != 1 || !strings.Contains(got[world.UpdateSummaries], "Secret team/app-child was created 1 time, deleted 0 times in the fault-free run of the same workload, created 2 times, deleted 1 time in this run: the extra writes (1 create, 1 delete) are in this run (counted over each run's whole length, the fault phase and the heal budget: this run's from 0s to ") {
		t.Fatalf("violated %v, want only %s naming the child's creates and deletes and the window they were counted over", got, world.UpdateSummaries)
	}
	if got := optest.Judge(t, o, "seed 1\n"); len(got) != 0 {
		t.Fatalf("with no fault: violated %v, want none", got)
	}
}

// converges compares conditions as the map list they are (keyed by type):
// the same conditions written in another order (a Deployment whose
// Available condition went False and back to True is appended last again,
// as SetDeploymentCondition does) are the same state; a changed one is not.
func TestConvergesIgnoresTheOrderOfConditions(t *testing.T) {
	gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
	d := func(conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Status: appsv1.DeploymentStatus{Conditions: conds}}
	}
	avail := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"}
	prog := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}
	normalize := optest.CanonicalText(t)
	a := normalize(gvk, d(avail, prog))
	b := normalize(gvk, d(prog, avail))
	if a != b {
		t.Errorf("reordered conditions differ:\n%s\n%s", a, b)
	}
	down := avail
	down.Status = corev1.ConditionFalse
	if c := normalize(gvk, d(prog, down)); c == a {
		t.Errorf("a changed condition compares equal: %s", c)
	}
}

// An error at rest is compared by its cause: the object refused and the
// field paths, types and values of its causes. One invalid value of the
// user's met by a create (the object's own rules) and by an update (those
// and the transition's: the field is immutable) is one error, whatever the
// operator wraps around it; another value, another field or another object
// is another error, and an error that is no refusal is its text.
func TestAnErrorAtRestIsComparedByItsCause(t *testing.T) {
	create := `error: creating the StatefulSet: StatefulSet.apps "clicks" is invalid: spec.podManagementPolicy: Invalid value: "y0p": must be 'OrderedReady' or 'Parallel'`
	update := `error: StatefulSet.apps "clicks" is invalid: [spec.podManagementPolicy: Invalid value: "y0p": field is immutable, spec.podManagementPolicy: Invalid value: "y0p": must be 'OrderedReady' or 'Parallel']`
	if a, b := canon.ErrorCause(create), canon.ErrorCause(update); a != b {
		t.Errorf("one invalid value met by a create and an update gives two causes:\n%s\n%s", a, b)
	}
	want := `<invalid StatefulSet.apps clicks: spec.podManagementPolicy Invalid value "y0p">`
	if got := canon.ErrorCause(update); got != want {
		t.Errorf("errorCause(update) = %s, want %s", got, want)
	}
	for _, other := range []string{
		strings.ReplaceAll(update, `"y0p"`, `"zz"`),                      // another value
		strings.ReplaceAll(update, "podManagementPolicy", "serviceName"), // another field
		strings.ReplaceAll(update, `"clicks"`, `"views"`),                // another object
		`error: StatefulSet.apps "clicks" is invalid: [spec.podManagementPolicy: Invalid value: "y0p": field is immutable, spec.replicas: Invalid value: -1: must be greater than or equal to 0]`, // a cause more
		`error: statefulsets.apps "clicks" not found`,
	} {
		if canon.ErrorCause(other) == canon.ErrorCause(create) {
			t.Errorf("a differing cause compares equal: %s", other)
		}
	}
	if got := canon.ErrorCause(`error: statefulsets.apps "clicks" not found`); got != `error: statefulsets.apps "clicks" not found` {
		t.Errorf("an error that is no refusal is not its text: %s", got)
	}
	if a, b := canon.ErrorCause(`Invalid: Widget.example.com "a" is invalid: spec.size: Invalid value: 7: must be even`), canon.ErrorCause(`error: admission webhook "vwidget.kb.io" denied the request: Widget.example.com "a" is invalid: spec.size: Invalid value: 7: too large`); a != b {
		t.Errorf("one value refused on one field by two rules gives two causes:\n%s\n%s", a, b)
	}
}

// A frozen output made once more and kept is how far the operator got
// before the user's value landed: the fault-free run met the value first
// and never made it, and both end failing on it in one error. It is noted,
// not counted; made twice, made where the errors differ, or made by an
// operator that does not end failing, it still counts.
func TestAFrozenOutputMadeOnceMoreAndKeptIsNotChurn(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	app := optest.LogChange{At: 0, Type: watch.Added, Name: "app", GenerateName: ""}
	made := optest.LogChange{At: time.Millisecond, Type: watch.Added, Name: "app-out", GenerateName: ""}
	const key = "configmap team/app"
	failing := func(s *verdict.Snapshot, err string) *verdict.Snapshot {
		s.AtRest = []verdict.AtRest{{Key: key, Err: err}}
		s.Outputs = map[string][]string{key: {"ConfigMap team/app-out"}}
		return s
	}
	const refused = `<invalid ConfigMap team/app-out: data Invalid value "s">`
	refs := []*verdict.Reference{{Seed: 1, Snap: failing(optest.ChurnRun(t, w, 0, app), refused)}}
	v := verdict.UpdateSummaries(w, refs, failing(optest.ChurnRun(t, w, 0, app, made), refused), time.Minute)
	if !v.Holds || !strings.Contains(v.Detail, "kept") {
		t.Errorf("a frozen output made once more and kept: %+v, want a note", v)
	}
	optest.Excused(t, v, verdict.FrozenOutputs)
	for name, got := range map[string]*verdict.Snapshot{
		"made twice": failing(optest.ChurnRun(t, w, 0, app, made, optest.LogChange{At: 2 * time.Millisecond, Type: watch.Deleted, Name: "app-out", GenerateName: ""},
			optest.LogChange{At: 3 * time.Millisecond, Type: watch.Added, Name: "app-out", GenerateName: ""}), refused),
		"another error": failing(optest.ChurnRun(t, w, 0, app, made), `<invalid ConfigMap team/app-out: data Invalid value "t">`),
		"not failing":   optest.ChurnRun(t, w, 0, app, made),
	} {
		if v := verdict.UpdateSummaries(w, refs, got, time.Minute); v.Holds {
			t.Errorf("%s: update-summaries holds: %s", name, v.Detail)
		}
	}
}

// An error at rest on a value the workload wrote and left in place is the
// user's (user-value) when kube-apiserver refused a write for it, whether
// or not a fault-free run ever sent it (a guard fired first there); one
// the API did not refuse (an operator's not-found on the user's name) is
// the user's only where a fault-free run failed on it too, in any
// controller; a refusal of a value the user did not write is not.
func TestAnErrorOnTheUsersInvalidValueIsTheUsers(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "patterns.ctrlsim.dev", Version: "v1", Kind: "Stream"}
	stream := func(rv uint64, typ watch.EventType, spec map[string]any) apiserver.Event {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		u.SetGroupVersionKind(gvk)
		u.SetNamespace("flow")
		u.SetName("clicks")
		return apiserver.Event{Type: typ, GVK: gvk, Object: u, ResourceVersion: rv}
	}
	run := func(result string) (*check.Run, *verdict.Snapshot) {
		r := &check.Run{Log: []apiserver.Event{stream(1, watch.Added, map[string]any{"podManagementPolicy": "Parallel", "secret": "clicks"}),
			stream(2, watch.Modified, map[string]any{"podManagementPolicy": "a30101", "secret": "c2"})}}
		r.Steps = []trace.Step{{Process: "admin", Op: "update", Object: "Stream flow/clicks", RVWritten: 2, Result: "ok"},
			{Process: "op", Controller: "stream", Op: "result", Object: "flow/clicks", Result: result}}
		return r, &verdict.Snapshot{Canon: canon.NewTokens(r.Log)}
	}
	never := []*verdict.Reference{{Seed: 1, Snap: &verdict.Snapshot{}}}
	r, got := run(`error: StatefulSet.apps "clicks" is invalid: spec.podManagementPolicy: Invalid value: "a30101": must be 'OrderedReady' or 'Parallel'`)
	v := verdict.NoErrorAtRest(never, got, r)
	if !v.Holds {
		t.Fatalf("an error on the user's value the API refused: %s", v.Detail)
	}
	optest.Excused(t, v, verdict.UserValue)
	if r, got := run(`error: secrets "c2" not found`); verdict.NoErrorAtRest(never, got, r).Holds {
		t.Errorf("an error on the user's value the API did not refuse and no fault-free run met holds")
	}
	if r, got := run(`error: StatefulSet.apps "clicks" is invalid: spec.serviceName: Invalid value: "x": must be a DNS label`); verdict.NoErrorAtRest(never, got, r).Holds {
		t.Errorf("a refusal of no value the user wrote holds")
	}
}
