package canon_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// jobOf is a Job as kube-apiserver stores it: its uid in its selector and its
// template's labels.
func jobOf(name, generateName string, uid types.UID) *batchv1.Job {
	labels := map[string]string{"batch.kubernetes.io/controller-uid": string(uid), "controller-uid": string(uid), "job-name": name}
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, GenerateName: generateName, UID: uid},
		Spec: batchv1.JobSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": string(uid)}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}}}}
}

var jobGVK = batchv1.SchemeGroupVersion.WithKind("Job")

// A uid is the same value wherever it appears: the Job's uid that the
// apiserver writes into its selector and its template's labels compares
// equal between two runs that gave the Job different uids (one run made
// another object first). A selector that holds another object's uid does not.
func TestUIDsAreEqualWhereverTheyAppear(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "first", UID: "uid-1"}}
	a, b := jobOf("nightly", "", "uid-1"), jobOf("nightly", "", "uid-2")
	inA := optest.CanonicalText(t, optest.Added(t, a))
	inB := optest.CanonicalText(t, optest.Added(t, cm), optest.Added(t, b))
	if x, y := inA(jobGVK, a), inB(jobGVK, b); x != y {
		t.Errorf("the same Job differs by its uid:\n%s\n%s", x, y)
	} else if strings.Contains(x, "uid-") || !strings.Contains(x, "<uid:Job shop/nightly>") {
		t.Errorf("the uid is not named by its object: %s", x)
	}
	// A cluster-scoped owner is named as kubectl names it, without a slash.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", UID: "uid-3"}}
	owned := jobOf("nightly", "", "uid-1")
	owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "shop", UID: "uid-3"}}
	if x := optest.CanonicalText(t, optest.Added(t, ns), optest.Added(t, owned))(jobGVK, owned); !strings.Contains(x, "<uid:Namespace shop>") {
		t.Errorf("a cluster-scoped owner's uid is not named \"<uid:Namespace shop>\": %s", x)
	}
	wrong := jobOf("nightly", "", "uid-2")
	wrong.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"] = "uid-1" // the ConfigMap's
	if x, y := inA(jobGVK, a), inB(jobGVK, wrong); x == y {
		t.Errorf("a selector naming another object's uid compares equal: %s", y)
	}
}

// A generated name is the same value wherever it is referenced: a ConfigMap
// whose data records the Job it made with generateName (status.jobName's
// pattern) compares equal when the apiserver drew another suffix, and so do
// the Job's own labels; a record of a name that is not the Job's does not.
func TestGeneratedNamesAreEqualWhereverTheyAreReferenced(t *testing.T) {
	run := func(suffix string, recorded string) (string, string) {
		job := jobOf("nightly-"+suffix, "nightly-", types.UID("uid-"+suffix))
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "nightly", UID: "uid-cm"}, Data: map[string]string{"jobName": recorded}}
		c := optest.CanonicalText(t, optest.Added(t, cm), optest.Added(t, job))
		return c(jobGVK, job), c(corev1.SchemeGroupVersion.WithKind("ConfigMap"), cm)
	}
	j1, c1 := run("q86zx", "nightly-q86zx")
	j2, c2 := run("x22j6", "nightly-x22j6")
	if j1 != j2 || c1 != c2 {
		t.Errorf("generated names differ where referenced:\n%s\n%s\n%s\n%s", j1, j2, c1, c2)
	}
	if !strings.Contains(c1, `"jobName":"nightly-*"`) {
		t.Errorf("the reference is not the generated name's canonical form: %s", c1)
	}
	if _, c3 := run("x22j6", "nightly-zzzzz"); c3 == c1 {
		t.Errorf("a record of a name no object has compares equal: %s", c3)
	}
}

// Lists compare as their schema says: a Service's ports (listType map, keyed
// by port and protocol, from client-go's structured-merge-diff schema) in
// another order are the same state, as they are to the apiserver; a changed
// port is not. A custom resource's list-type set compares without order, its
// atomic list with order.
func TestListsOfTypeMapOrSetCompareWithoutOrder(t *testing.T) {
	c := optest.CanonicalText(t)
	svc := func(ports ...int32) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
		for _, p := range ports {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "p" + string(rune('a'+p%26)), Port: p, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(p)})
		}
		return s
	}
	gvk := corev1.SchemeGroupVersion.WithKind("Service")
	if a, b := c(gvk, svc(80, 443, 8080)), c(gvk, svc(8080, 80, 443)); a != b {
		t.Errorf("reordered ports differ:\n%s\n%s", a, b)
	}
	if a, b := c(gvk, svc(80, 443)), c(gvk, svc(80, 444)); a == b {
		t.Errorf("a changed port compares equal: %s", a)
	}

	crd := []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              steps: {type: array, items: {type: string}}
`)
	crds, err := apiserver.CRDsFromYAML(crd)
	if err != nil {
		t.Fatal(err)
	}
	s := &verdict.Snapshot{World: &world.World{Shapes: canon.NewShapes(crds, runtime.NewScheme())}, Canon: canon.NewTokens(nil)}
	gadget := func(tags, steps []any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"namespace": "shop", "name": "g"}, "spec": map[string]any{"tags": tags, "steps": steps}}}
		return u
	}
	g := crds[0].GVK
	if a, b := canon.Encode(s.Normalize(g, gadget([]any{"a", "b"}, []any{"x"}))), canon.Encode(s.Normalize(g, gadget([]any{"b", "a"}, []any{"x"}))); a != b {
		t.Errorf("a list-type set in another order differs:\n%s\n%s", a, b)
	}
	if a, b := canon.Encode(s.Normalize(g, gadget(nil, []any{"x", "y"}))), canon.Encode(s.Normalize(g, gadget(nil, []any{"y", "x"}))); a == b {
		t.Errorf("an atomic list in another order compares equal: %s", a)
	}
}

// converges judges a faulted run against the set of fault-free end states: a
// field that differs between the fault-free runs of two schedules (a token,
// say) is learned as nondeterministic and not held against the faulted run;
// a field they agree on is, and the report names it.
func TestAFieldTheFaultFreeRunsDisagreeOnIsNotHeldAgainstAFaultedRun(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	refs := []*verdict.Reference{{Seed: 1, Snap: optest.Snap(t, w, optest.App(map[string]string{"token": "a", "mode": "x"}))},
		{Seed: 2049, Snap: optest.Snap(t, w, optest.App(map[string]string{"token": "b", "mode": "x"}))}}
	if v := verdict.Converges(w, refs, optest.Snap(t, w, optest.App(map[string]string{"token": "c", "mode": "x"})), 0); !v.Holds {
		t.Errorf("a token the fault-free runs disagree on is held against the faulted run: %s", v.Detail)
	}
	v := verdict.Converges(w, refs, optest.Snap(t, w, optest.App(map[string]string{"token": "a", "mode": "y"})), 0)
	if v.Holds || !strings.Contains(v.Detail, "ConfigMap team/app differs") || !strings.Contains(v.Detail, "at data.mode") {
		t.Errorf("a field both fault-free runs agree on, changed by the faults: %+v", v)
	}
	// An object only one fault-free run makes is no violation either way.
	extra := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "extra", UID: "e"}}
	refs[1].Snap = optest.Snap(t, w, optest.App(map[string]string{"token": "b", "mode": "x"}), extra)
	for _, got := range []*verdict.Snapshot{optest.Snap(t, w, optest.App(map[string]string{"mode": "x", "token": "z"})), optest.Snap(t, w, optest.App(map[string]string{"mode": "x", "token": "z"}), extra)} {
		if v := verdict.Converges(w, refs, got, 0); !v.Holds {
			t.Errorf("an object one fault-free run has and the other lacks is blamed on the faults: %s", v.Detail)
		}
	}
}

// When the fault-free runs of two schedules disagree and the faulted run ends
// as one of them does, converges holds (the faults changed nothing) and
// interleavings-agree names the other schedule as the suspect: a race with no
// fault, never the faulted run.
func TestWhenTheFaultFreeRunsDisagreeTheReportNamesTheSuspectSide(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	wrong, right := optest.App(map[string]string{"mode": "stale"}), optest.App(map[string]string{"mode": "x"})
	refs := []*verdict.Reference{{Seed: 1, Snap: optest.Snap(t, w, wrong)}, {Seed: 2049, Snap: optest.Snap(t, w, right)}}
	got := optest.Snap(t, w, optest.App(map[string]string{"mode": "x"}))
	if v := verdict.Converges(w, refs, got, 0); !v.Holds {
		t.Errorf("converges blames the faulted run for a wrong fault-free run: %s", v.Detail)
	}
	v := reference.InterleavingsAgree(w, refs, got)
	if v.Holds || !strings.Contains(v.Detail, "the suspect is the fault-free run with seed 1") {
		t.Errorf("interleavings-agree does not name the fault-free run with seed 1 as the suspect: %+v", v)
	}
}

// Options.Nondeterministic masks a field the author names (a counter of
// attempts) and nothing else; a kind the operator has not is an error, not an
// option silently ignored.
func TestANondeterministicFieldTheAuthorNamesIsIgnored(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Nondeterministic = []canon.NondeterministicField{{Kind: "ConfigMap", Path: "data.attempts"}}
	w := optest.TestWorld(t, o)
	refs := []*verdict.Reference{{Seed: 1, Snap: optest.Snap(t, w, optest.App(map[string]string{"attempts": "1", "mode": "x"}))},
		{Seed: 2049, Snap: optest.Snap(t, w, optest.App(map[string]string{"attempts": "1", "mode": "x"}))}}
	if v := verdict.Converges(w, refs, optest.Snap(t, w, optest.App(map[string]string{"attempts": "4", "mode": "x"})), 0); !v.Holds {
		t.Errorf("the named field is held against the run: %s", v.Detail)
	}
	if v := verdict.Converges(w, refs, optest.Snap(t, w, optest.App(map[string]string{"attempts": "4", "mode": "y"})), 0); v.Holds {
		t.Error("a field the author did not name is ignored too")
	}
	o.Nondeterministic = []canon.NondeterministicField{{Kind: "Gizmo", Path: "status.attempts"}}
	if _, err := search.NewWorld(o.WithDefaults()); err == nil || !strings.Contains(err.Error(), "Nondeterministic[0]") {
		t.Errorf("an unknown kind: %v, want an error naming Nondeterministic[0]", err)
	}
}

// needsBackend is an operator whose app names a dependency (the ConfigMap
// "backend"): while it is missing, the reconcile fails and retries with
// back-off until the user brings it back, by design.
func needsBackend(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
	if app.Name != "app" {
		return nil
	}
	var backend corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: "backend"}, &backend); err != nil {
		return err
	}
	return optest.Child()(ctx, c, app)
}

// no-error-at-rest is differential: an error at rest that the fault-free run
// of the same workload also ends in (the user deleted the dependency) is the
// workload's doing, no violation; an error the faults alone leave
// (TestEachGenericOracleCatchesItsViolationOnly) still is.
func TestAnErrorAtRestTheFaultFreeRunAlsoEndsInIsNoViolation(t *testing.T) {
	o := optest.AppOptions(needsBackend)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		// The app's reconcile also runs when its backend changes or goes.
		toApp := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: "app"}}}
		})
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Watches(&corev1.ConfigMap{}, toApp).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: needsBackend})
	}
	o.Objects = append(o.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "backend"}})
	all := optest.JudgeAll(t, o, "seed 1\nat 2s delete object=1\nlag process=op kind=* min=0s max=2s\ncrash process=op at=5s\n")
	for name, v := range all {
		if !v.Holds {
			t.Errorf("%s violated: %s", name, v.Detail)
		}
	}
	if d := all[world.NoErrorAtRest].Detail; !strings.Contains(d, "as in the fault-free run of the same workload") || !strings.Contains(d, `ConfigMap "backend" not found`) {
		t.Errorf("no-error-at-rest does not say which error it forgave and why: %q", d)
	}
}

// needsBackendNamedByTime fails as needsBackend does, naming the attempt by
// the Unix time it was made at, as the kubebuilder tutorial's CronJob names a
// scheduled run's Job ("<cronjob>-<unix time>").
func needsBackendNamedByTime(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
	if err := needsBackend(ctx, c, app); err != nil {
		return fmt.Errorf("creating %s-%d: %w", app.Name, time.Now().Unix(), err)
	}
	return nil
}

// An error at rest that names the instant of its attempt, in Unix seconds,
// is the same error as the fault-free run's whenever the attempt was made:
// when the last attempt falls differs between schedules (a crash restarts
// the back-off), as every instant of the virtual clock does. A twin that
// fails differently is still caught (TestEachGenericOracleCatchesItsViolationOnly).
func TestAnErrorAtRestThatNamesTheTimeOfItsAttemptIsTheFaultFreeRunsError(t *testing.T) {
	o := optest.AppOptions(needsBackendNamedByTime)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		toApp := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: "app"}}}
		})
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Watches(&corev1.ConfigMap{}, toApp).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: needsBackendNamedByTime})
	}
	o.Objects = append(o.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "backend"}})
	all := optest.JudgeAll(t, o, "seed 1\nat 2s delete object=1\ncrash process=op at=5s\n")
	v := all[world.NoErrorAtRest]
	if !v.Holds {
		t.Fatalf("no-error-at-rest violated: %s", v.Detail)
	}
	if !strings.Contains(v.Detail, "as in the fault-free run of the same workload") || !strings.Contains(v.Detail, `ConfigMap "backend" not found`) {
		t.Errorf("no-error-at-rest does not say which error it forgave and why: %q", v.Detail)
	}
}

// ownerDeletedUnderAStall is the workload's deletion of the app while the
// operator's watch of ConfigMaps is stalled for 18 s: the operator keeps
// re-creating the child (its cache still has the app) and the garbage
// collector keeps deleting it, as fast as kube-controller-manager's client
// rate lets it (20 calls a second, three for each child), until the watch
// delivers the deletion.
const ownerDeletedUnderAStall = "seed 1\nat 2s delete object=0\nhold process=op kind=/v1/ConfigMap from=1s until=20s\n"

// Churn judged by the cluster's rules: a child re-created for an owner that
// is gone, and collected by the garbage collector, is what every operator
// that owns children does on a real cluster with a stalled watch. It is not
// update-summaries' churn, nor a hot loop (it ends when the stall ends; at
// the collector's rate it is no storm either), and the run ends with no
// error at rest.
func TestADependentRecreatedForAGoneOwnerAndCollectedIsNotChurn(t *testing.T) {
	all := optest.JudgeAll(t, optest.AppOptions(optest.Child()), ownerDeletedUnderAStall)
	for name, v := range all {
		if !v.Holds {
			t.Errorf("%s violated: %s", name, v.Detail)
		}
	}
	d := all[world.UpdateSummaries].Detail
	if !strings.Contains(d, "created for an owner that was gone or being deleted, then collected") || !strings.Contains(d, "Secret team/app-child") {
		t.Errorf("update-summaries does not note the collected re-creations: %q", d)
	}
	// As many as the collector's rate allows in the 18 s: 7 a second at
	// 20 calls a second, where with no client rate there were thousands.
	var n int
	if _, err := fmt.Sscanf(d, "%d dependents created", &n); err != nil || n < 18 || n > 20*18 {
		t.Errorf("the note counts %d re-creations (%v), want the collector's rate over the 18 s stall (18 to 360): %q", n, err, d)
	}
	t.Logf("notes:\n  %s\n  %s", d, all[cluster.HotLoopProperty].Detail)
}

// The twin: a storm that goes on once the stall has ended is a hot loop. The
// operator bumps its app's annotation on every reconcile (its own write
// triggers the next: a real loop); while a watch of another kind is stalled
// the seconds do not count, and once it is released the loop is caught.
func TestAStormThatOutlastsTheStallIsAHotLoop(t *testing.T) {
	bump := func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		metav1.SetMetaDataAnnotation(&app.ObjectMeta, "seen", time.Now().String()) // the bug: a write every reconcile
		return c.Update(ctx, app)
	}
	all := optest.JudgeAll(t, optest.AppOptions(bump), "seed 1\nhold process=op kind=/v1/Secret from=0s until=30s\n")
	v := all[cluster.HotLoopProperty]
	if v.Holds || v.At < 30*time.Second+(cluster.HotLoopSeconds-1)*time.Second {
		t.Errorf("hot-loop: %+v, want violated once the loop outlasted the stall (released at 30 s) by %d s", v, cluster.HotLoopSeconds)
	}
}

// The judged kinds are the kinds the operator reads or writes, not a fixed
// list: a PersistentVolumeClaim that a crash keeps the operator from ever
// making is caught by converges.
func TestJudgedKindsAreTheKindsTheOperatorTouches(t *testing.T) {
	claim := func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if app.Annotations["started"] != "" {
			return nil // the bug: a restarted process trusts its own mark
		}
		metav1.SetMetaDataAnnotation(&app.ObjectMeta, "started", "yes")
		if err := c.Update(ctx, app); err != nil {
			return err
		}
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-data"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}
		if err := c.Create(ctx, pvc); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	}
	got := optest.Judge(t, optest.AppOptions(claim), "seed 1\ncrash process=op call=3\n")
	if !strings.Contains(got[world.Converges], "PersistentVolumeClaim team/app-data exists after the fault-free run") {
		t.Errorf("converges does not judge the PersistentVolumeClaim the operator makes: %v", got)
	}
	if got := optest.Judge(t, optest.AppOptions(claim), "seed 1\n"); len(got) != 0 {
		t.Errorf("with no fault: violated %v", got)
	}
}

// A delayed operator may end as the late fault-free run does: when a stale
// restart keeps the operator from seeing its app until after the workload
// deleted the app's backend, it never makes the child (it fails, as it does
// in the fault-free run once the backend is gone), a state the fault-free run
// in which the operator looks only after the workload's last step also
// reaches. The twin, a restarted operator that trusts its own mark and never
// makes the child, differs from every fault-free end state and is caught.
func TestAnOperatorDelayedPastTheWorkloadMayEndAsTheLateFaultFreeRunDoes(t *testing.T) {
	o := optest.AppOptions(needsBackend)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		toApp := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: "app"}}}
		})
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Watches(&corev1.ConfigMap{}, toApp).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: needsBackend})
	}
	o.Objects = append(o.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "backend"}})
	const delayed = "seed 0\nat 234ms delete object=1\nstale process=op at=1ms age=3.215s\n"
	if got := optest.Judge(t, o, delayed); len(got) != 0 {
		t.Errorf("a correct operator delayed past the backend's deletion: violated %v", got)
	}

	twin := optest.AppOptions(func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if app.Name != "app" || app.Annotations["started"] != "" {
			return nil // the bug: a restarted process trusts its own mark
		}
		metav1.SetMetaDataAnnotation(&app.ObjectMeta, "started", "yes")
		if err := c.Update(ctx, app); err != nil {
			return err
		}
		return optest.Child()(ctx, c, app)
	})
	twin.Objects = o.Objects
	got := optest.Judge(t, twin, "seed 1\nat 30s delete object=1\ncrash process=op call=3\n")
	if !strings.Contains(got[world.Converges], "Secret team/app-child exists after") {
		t.Errorf("the twin is not caught by converges: %v", got)
	}
}

// The twin of the rule above: an error at rest is forgiven as the workload's
// doing only when the workload did it. An operator that fails on the world as
// the test sets it up (its backend never existed) fails the fault-free run
// with no generated workload too: that is its bug (or the test's), and
// no-error-at-rest says so.
func TestAnErrorAtRestWithNoWorkloadIsNotForgiven(t *testing.T) {
	o := optest.AppOptions(needsBackend)
	all := optest.JudgeAll(t, o, "seed 1\nlag process=op kind=* min=0s max=2s\ncrash process=op at=5s\n")
	v := all[world.NoErrorAtRest]
	if v.Holds || !strings.Contains(v.Detail, "the fault-free run with no generated workload") {
		t.Errorf("no-error-at-rest on an operator whose backend never existed: holds=%v %q", v.Holds, v.Detail)
	}
	optest.Excused(t, v, verdict.QuietWorkload)
}

// podOn is a pod bound to node (with that node's address as its host) and
// given address ip.
func podOn(name string, uid types.UID, node, hostIP, ip string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: uid},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{HostIP: hostIP, HostIPs: []corev1.HostIP{{IP: hostIP}}, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}}
}

// Where the scheduler put a pod and which address the network plugin gave
// it are the cluster's draws: a pod created with no node and bound to
// node-1 (10.244.1.2) in one run and node-2 (10.244.2.3) in another is the
// same state, and an EndpointSlice-like record of its address compares
// equal too. A pod created with its node set keeps it: a different node is
// a different state.
func TestTheSchedulersNodeAndThePodsAddressAreEqualWhereverTheyAppear(t *testing.T) {
	podGVK := corev1.SchemeGroupVersion.WithKind("Pod")
	cmGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	run := func(node, hostIP, ip string, setByUser bool) (string, string) {
		created := podOn("cache-0", "uid-p", "", "", "")
		if setByUser {
			created.Spec.NodeName = node
		}
		bound := podOn("cache-0", "uid-p", node, hostIP, ip)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "peers", UID: "uid-cm"}, Data: map[string]string{"cache": ip + ":6379"}}
		ev := optest.Added(t, bound)
		ev.Type = watch.Modified
		c := optest.CanonicalText(t, optest.Added(t, created), ev, optest.Added(t, cm))
		return c(podGVK, bound), c(cmGVK, cm)
	}
	p1, c1 := run("node-1", "10.0.0.1", "10.244.1.2", false)
	p2, c2 := run("node-2", "10.0.0.2", "10.244.2.3", false)
	if p1 != p2 || c1 != c2 {
		t.Errorf("a pod bound elsewhere, or given another address, differs:\n%s\n%s\n%s\n%s", p1, p2, c1, c2)
	}
	if !strings.Contains(p1, "<node of Pod shop/cache-0>") || !strings.Contains(c1, "<ip:Pod shop/cache-0>:6379") {
		t.Errorf("the node or the address is not named by the pod: %s %s", p1, c1)
	}
	u1, _ := run("node-1", "10.0.0.1", "10.244.1.2", true)
	u2, _ := run("node-2", "10.0.0.2", "10.244.1.2", true)
	if u1 == u2 {
		t.Errorf("a pod created on node-1 compares equal to one created on node-2: %s", u1)
	}
}

// deletedEv is the watch event of obj's deletion.
func deletedEv(t *testing.T, obj client.Object) apiserver.Event {
	t.Helper()
	ev := optest.Added(t, obj)
	ev.Type = watch.Deleted
	return ev
}

// A generated name is named by the object it names, not by how many objects
// of its prefix were made before it: a Snapshot (here a ConfigMap) that the
// user deleted and re-created, whose operator made one child for the first
// incarnation in one run and two in the other (how many it made before the
// user's steps landed races with them), ends with one live child, recorded in
// its status: the same state in both runs. The generate-name pattern's false
// alarm at plan 95 (nightly-*3 against nightly-*2). A second live child (the
// generate-name twin's duplicate) is still a difference, and the record of a
// deleted child is not the record of the live one.
func TestAGeneratedNameIsNamedByTheObjectItNamesNotByHowManyWereMadeBefore(t *testing.T) {
	controller := true
	owner := func(uid types.UID, record string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "nightly", UID: uid}, Data: map[string]string{"configMapName": record}}
	}
	childOf := func(suffix string, of *corev1.ConfigMap) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "nightly-" + suffix, GenerateName: "nightly-", UID: types.UID("uid-" + suffix),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: of.Name, UID: of.UID, Controller: &controller}}},
			StringData: map[string]string{"source": "db-main"}}
	}
	cmGVK, secretGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap"), corev1.SchemeGroupVersion.WithKind("Secret")
	// run makes the given number of children for the first incarnation
	// (all collected with it) and then the live ones for the second, the
	// last recorded; it returns the second incarnation's and the live
	// children's canonical texts, and the canonical names of every child.
	run := func(first int, live ...string) (string, []string, []string) {
		old, cur := owner("owner-1", ""), owner("owner-2", "nightly-"+live[len(live)-1])
		log := []apiserver.Event{optest.Added(t, old)}
		var olds []*corev1.Secret
		for i := range first {
			c := childOf(fmt.Sprintf("%c%s", "rs"[i], live[0][1:]), old) // five characters of the apiserver's alphabet, as live's

			olds = append(olds, c)
			log = append(log, optest.Added(t, c))
		}
		log = append(log, deletedEv(t, old), optest.Added(t, cur))
		for _, c := range olds {
			log = append(log, deletedEv(t, c))
		}
		var lives []*corev1.Secret
		for _, s := range live {
			c := childOf(s, cur)
			lives = append(lives, c)
			log = append(log, optest.Added(t, c))
		}
		w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
		s := &verdict.Snapshot{World: w, Canon: canon.NewTokens(log)}
		var texts, names []string
		for _, c := range lives {
			texts = append(texts, s.Key(secretGVK, c)+" "+canon.Encode(s.Normalize(secretGVK, c)))
		}
		for _, c := range append(olds, lives...) {
			names = append(names, s.Canon.Name(c))
		}
		return canon.Encode(s.Normalize(cmGVK, cur)), texts, names
	}
	o1, c1, n1 := run(1, "q86zx")
	o2, c2, n2 := run(2, "x22j6")
	if o1 != o2 {
		t.Errorf("the owner's record of its one live child differs with how many children its first incarnation had:\n%s\n%s", o1, o2)
	}
	if !strings.Contains(o1, `"configMapName":"nightly-*"`) {
		t.Errorf("the record does not name the live child by its canonical name: %s", o1)
	}
	if strings.Join(c1, "\n") != strings.Join(c2, "\n") {
		t.Errorf("the live child differs:\n%s\n%s", c1, c2)
	}
	if want := []string{"nightly-*deleted", "nightly-*deleted2", "nightly-*"}; strings.Join(n2, " ") != strings.Join(want, " ") {
		t.Errorf("the children are named %v, want %v (the deleted ones by their place among the deleted, the live one first)", n2, want)
	}
	if want := []string{"nightly-*deleted", "nightly-*"}; strings.Join(n1, " ") != strings.Join(want, " ") {
		t.Errorf("the children are named %v, want %v", n1, want)
	}
	// The twin: two live children (a duplicate) is another state.
	if _, c3, _ := run(1, "bcdfg", "hjklm"); len(c3) != 2 || c3[1] == c1[0] || !strings.Contains(c3[1], "nightly-*2") {
		t.Errorf("a duplicate live child is not told apart: %v", c3)
	}
	// A record of a deleted child is not the record of the live one.
	old := owner("owner-1", "")
	gone := childOf("g2ne4", old)
	cur := owner("owner-2", "nightly-g2ne4")
	s := &verdict.Snapshot{World: optest.TestWorld(t, optest.AppOptions(optest.Child())), Canon: canon.NewTokens([]apiserver.Event{optest.Added(t, old), optest.Added(t, gone), deletedEv(t, old), deletedEv(t, gone), optest.Added(t, cur), optest.Added(t, childOf("l4ve5", cur))})}
	if got := canon.Encode(s.Normalize(cmGVK, cur)); got == o1 {
		t.Errorf("a record of a deleted child compares equal to a record of the live one: %s", got)
	}
}

// A Service's cluster IP is kube-apiserver's random draw: the same Service
// given 10.96.0.20 in one run and 10.96.3.7 in another is the same state, and
// a ConfigMap recording the address compares equal too; a headless Service's
// "None" is no address.
func TestAServicesClusterIPIsEqualWhereverItAppears(t *testing.T) {
	svcGVK := corev1.SchemeGroupVersion.WithKind("Service")
	cmGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	run := func(ip, other string) (string, string) {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db", UID: "uid-s"},
			Spec: corev1.ServiceSpec{ClusterIP: ip, ClusterIPs: []string{ip}}}
		svc2 := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cache", UID: "uid-s2"},
			Spec: corev1.ServiceSpec{ClusterIP: other, ClusterIPs: []string{other}}}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "conf", UID: "uid-cm"},
			Data: map[string]string{"db": ip + ":5432", "cache": other}}
		c := optest.CanonicalText(t, optest.Added(t, svc), optest.Added(t, svc2), optest.Added(t, cm))
		return c(svcGVK, svc), c(cmGVK, cm)
	}
	s1, c1 := run("10.96.0.20", "10.96.0.21")
	s2, c2 := run("10.96.3.7", "10.96.1.1")
	if s1 != s2 || c1 != c2 {
		t.Errorf("a Service given another address differs:\n%s\n%s\n%s\n%s", s1, s2, c1, c2)
	}
	if !strings.Contains(c1, "<ip:Service shop/db>:5432") || !strings.Contains(c1, "<ip:Service shop/cache>") {
		t.Errorf("the addresses are not named by their Services: %s", c1)
	}
	h, _ := run(corev1.ClusterIPNone, "10.96.0.21")
	if strings.Contains(h, "<ip:Service shop/db>") {
		t.Errorf("a headless Service's None is named as an address: %s", h)
	}
}

// A ReplicaSet's name is its Deployment's name and a hash of its template
// and the Deployment's collision count, which races with the garbage
// collector: "web-aaa" in one run and "web-bbb" in another name the same
// ReplicaSet, in its key, its pods' pod-template-hash label and the
// Deployment's message that names it.
func TestAReplicaSetNamedByAHashIsNamedByItsDeployment(t *testing.T) {
	rsGVK := appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	depGVK := appsv1.SchemeGroupVersion.WithKind("Deployment")
	run := func(hash string) (string, string) {
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-d"},
			Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing,
				Message: `ReplicaSet "web-` + hash + `" has successfully progressed.`}}}}
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-" + hash, UID: "uid-rs",
			Labels:          map[string]string{"pod-template-hash": hash},
			OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: "uid-d"}}}}
		c := optest.CanonicalText(t, optest.Added(t, dep), optest.Added(t, rs))
		return c(rsGVK, rs), c(depGVK, dep)
	}
	r1, d1 := run("aaa11")
	r2, d2 := run("bbb22")
	if r1 != r2 || d1 != d2 {
		t.Errorf("the same ReplicaSet under another hash differs:\n%s\n%s\n%s\n%s", r1, r2, d1, d2)
	}
	if strings.Contains(d1, "aaa11") || strings.Contains(r1, "aaa11") {
		t.Errorf("the hash is left in: %s %s", r1, d1)
	}
}

// A StatefulSet's ControllerRevision is named by a hash of the template it
// holds: how many revisions a run keeps races with the user's edits (an
// operator that saw an intermediate version wrote one template more, and
// the set keeps its revision), the revision that holds the current template
// does not. A set whose status names the revision of its 8.0 template is
// the same state whether a 7.2 revision was made between 7.4 and 8.0 or not
// (the statefulset pattern's false alarm: "sessions-*3" against
// "sessions-*2"); a status that names another template's revision is not.
func TestAnObjectNamedByAHashIsNamedByWhatItHolds(t *testing.T) {
	setGVK := appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	revision := func(hash, version string, n int64) *appsv1.ControllerRevision {
		return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: "data", Name: "sessions-" + hash, UID: types.UID("uid-" + hash),
			Labels:          map[string]string{"controller.kubernetes.io/hash": hash},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "sessions", UID: "uid-set"}}},
			Data:     runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"spec":{"containers":[{"image":"valkey/valkey:` + version + `","name":"cache"}]}}}}`)},
			Revision: n}
	}
	// run makes the revisions of the given versions, in order, and a set
	// whose status names the revision of the last one, or of current.
	run := func(current string, versions ...string) string {
		set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "data", Name: "sessions", UID: "uid-set"}}
		log := []apiserver.Event{optest.Added(t, set)}
		for i, v := range versions {
			r := revision(fmt.Sprintf("h%d%s", i, strings.ReplaceAll(v, ".", "")), v, int64(i+1))
			log = append(log, optest.Added(t, r))
			if v == current {
				set.Status.CurrentRevision, set.Status.UpdateRevision = r.Name, r.Name
			}
		}
		return optest.CanonicalText(t, log...)(setGVK, set)
	}
	direct, through := run("8.0", "7.4", "8.0"), run("8.0", "7.4", "7.2", "8.0")
	if direct != through {
		t.Errorf("the set whose status names its 8.0 revision differs with the revisions kept before it:\n%s\n%s", direct, through)
	}
	if strings.Contains(direct, "h1") || !strings.Contains(direct, `"currentRevision":"sessions-*[`) {
		t.Errorf("the revision is not named by what it holds: %s", direct)
	}
	if older := run("7.4", "7.4", "8.0"); older == direct {
		t.Errorf("a status naming the 7.4 revision compares equal to one naming the 8.0 revision: %s", older)
	}
}

// A Deployment's revision annotation counts the templates the deployment
// controller rolled out, as a generation counts writes: an operator that saw
// an intermediate config of the user's and wrote its checksum rolled out one
// template more, and the Deployment that ends with the same template is the
// same state with revision 2 or 3 (the config-checksum pattern's false
// interleavings-agree); its other annotations and its template still count.
func TestADeploymentsRevisionCountsItsRolloutsAndIsNotCompared(t *testing.T) {
	depGVK := appsv1.SchemeGroupVersion.WithKind("Deployment")
	deployment := func(revision, checksum string) string {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "shop", UID: "uid-d",
			Annotations: map[string]string{"deployment.kubernetes.io/revision": revision, "team": "web"}}}
		d.Spec.Template.Annotations = map[string]string{"checksum/config": checksum}
		return optest.CanonicalText(t, optest.Added(t, d))(depGVK, d)
	}
	two, three := deployment("2", "d0aa5182"), deployment("3", "d0aa5182")
	if two != three {
		t.Errorf("the same Deployment after 2 and after 3 rollouts differs:\n%s\n%s", two, three)
	}
	if !strings.Contains(two, `"team":"web"`) {
		t.Errorf("the Deployment's other annotations are dropped too: %s", two)
	}
	if other := deployment("2", "1efcb351"); other == two {
		t.Errorf("a Deployment with another template compares equal: %s", other)
	}
}

// ownedChild keeps the app's Secret with controllerutil.CreateOrUpdate and
// SetControllerReference, as kubebuilder's operators keep their children.
func ownedChild(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}
	_, err := controllerutil.CreateOrUpdate(ctx, c, s, func() error {
		s.StringData = map[string]string{"app": app.Name}
		return controllerutil.SetControllerReference(app, s, c.Scheme())
	})
	return err
}

// A restart onto a watch cache that still shows the app the user deleted
// and re-created: the reconcile reads the old app and writes its uid into
// the live app's child (SetControllerReference tells owners apart by kind
// and name), the garbage collector deletes the child, whose owner is gone,
// and the reconciles re-create it until the cache catches up. A real
// cluster does this to every operator that owns its children; the
// lifetimes the collector ends are its rule at work, not churn.
func TestAChildReownedToADeletedOwnerByAStaleViewAndCollectedIsNotChurn(t *testing.T) {
	// rev=16 is the first app's (after the bootstrap's namespace content,
	// each namespace's ServiceAccount and kube-root-ca.crt): the restarted
	// operator's ConfigMaps lag there, its Secrets are fresh.
	all := optest.JudgeAll(t, optest.AppOptions(ownedChild), "seed 1\nat 0s delete object=0\nat 31ms recreate object=0\nstale process=op kind=/v1/ConfigMap at=3s age=84ms rev=16\n")
	for name, v := range all {
		if !v.Holds {
			t.Errorf("%s violated: %s", name, v.Detail)
		}
	}
	if d := all[world.UpdateSummaries].Detail; !strings.Contains(d, "created for an owner that was gone or being deleted, then collected") {
		t.Errorf("no stale view of the first app re-owned its child: %q", d)
	}
}

// Encoded content is compared by what it holds: a Secret whose data is the
// base64 of a JSON record (a Helm release's) that differs only in the time
// it was written is the same state; one that differs in anything else is
// not. So is an annotation that holds JSON.
func TestEncodedContentIsComparedByWhatItHolds(t *testing.T) {
	gvk := corev1.SchemeGroupVersion.WithKind("Secret")
	record := func(at, status string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sh.helm.release.v1.op.v1",
			Annotations: map[string]string{"applied": `{"at":"` + at + `","status":"` + status + `"}`}},
			Data: map[string][]byte{"release": []byte(`{"info":{"first_deployed":"` + at + `","status":"` + status + `"}}`)}}
	}
	normalize := optest.CanonicalText(t)
	a := normalize(gvk, record("2000-01-01T00:00:00.011587Z", "deployed"))
	if b := normalize(gvk, record("2000-01-01T00:00:00.015796266Z", "deployed")); a != b {
		t.Errorf("records written at other times differ:\n%s\n%s", a, b)
	}
	if c := normalize(gvk, record("2000-01-01T00:00:00.011587Z", "failed")); c == a {
		t.Errorf("a record of another status compares equal: %s", c)
	}
}

// A name derived from content is as nondeterministic as the content: a pod
// template stamped with a restart time (kubectl rollout restart's
// restartedAt) is hashed, time and all, into its ControllerRevision's name
// and its pods' controller-revision-hash label, so two schedules that
// stamped the same template at two instants name the revision differently
// ("events-6f7d" and "events-9a1c"). The revision is named by what it
// digests, the time masked as it is in the template itself; the number of
// restarts stamped before the current one races with the user's edits
// (each stamp is a revision of the same canonical content), so the newest
// of the same content is the one named first. A template that differs
// beyond the time is another revision still.
func TestANameDerivedFromATimeStampedTemplateIsNamedByWhatItDigests(t *testing.T) {
	setGVK := appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	revision := func(hash, image, at string, n int64) *appsv1.ControllerRevision {
		return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: "queue", Name: "events-" + hash, UID: types.UID("uid-" + hash),
			Labels:          map[string]string{"controller.kubernetes.io/hash": hash},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "events", UID: "uid-set"}}},
			Data: runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"` + at +
				`"}},"spec":{"containers":[{"image":"` + image + `","name":"broker"}]}}}}`)},
			Revision: n}
	}
	// run makes a revision per stamp (hash, image, time) in order, and a
	// set whose status and pod label name the last one.
	type stamp struct{ hash, image, at string }
	run := func(stamps ...stamp) string {
		set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "queue", Name: "events", UID: "uid-set"}}
		log := []apiserver.Event{optest.Added(t, set)}
		for i, s := range stamps {
			r := revision(s.hash, s.image, s.at, int64(i+1))
			log = append(log, optest.Added(t, r))
			set.Status.CurrentRevision, set.Status.UpdateRevision = r.Name, r.Name
		}
		set.Spec.Template.Labels = map[string]string{"controller-revision-hash": set.Status.UpdateRevision}
		return optest.CanonicalText(t, log...)(setGVK, set)
	}
	one := run(stamp{"6f7d", "rabbitmq:4.1", "2026-11-25T10:00:01Z"})
	other := run(stamp{"9a1c", "rabbitmq:4.1", "2026-11-25T10:00:03Z"})
	if one != other {
		t.Errorf("one template stamped at two instants names its revision differently:\n%s\n%s", one, other)
	}
	if strings.Contains(one, "6f7d") || !strings.Contains(one, `"currentRevision":"events-*[`) {
		t.Errorf("the revision is not named by what it digests: %s", one)
	}
	twice := run(stamp{"11aa", "rabbitmq:4.1", "2026-11-25T10:00:01Z"}, stamp{"22bb", "rabbitmq:4.1", "2026-11-25T10:00:09Z"})
	if twice != one {
		t.Errorf("a set restarted once more names its current revision differently:\n%s\n%s", twice, one)
	}
	if image := run(stamp{"33cc", "rabbitmq:4.2", "2026-11-25T10:00:01Z"}); image == one {
		t.Errorf("a revision of another image is named as the first: %s", image)
	}
}

// A name is generated only where the apiserver drew it from a generateName
// (five characters of its alphabet after the prefix): kube-controller-manager
// gives a Parallel StatefulSet's pods both a generateName and their ordinal
// names, and makes them in the schedule's order, so pod web-1 made first in
// one run and second in another is still pod web-1, never "the first of
// web-*"; a pod whose name was drawn is named by its place.
func TestAnOrdinalNameIsNotAGeneratedOne(t *testing.T) {
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "data", Name: name, GenerateName: "web-", UID: types.UID("uid-" + name)}}
	}
	names := func(order ...string) []string {
		var log []apiserver.Event
		for _, n := range order {
			log = append(log, optest.Added(t, pod(n)))
		}
		tok := canon.NewTokens(log)
		var out []string
		for _, n := range []string{"web-0", "web-1", "web-q2x4z"} {
			out = append(out, tok.Name(pod(n)))
		}
		return out
	}
	a, b := names("web-0", "web-1", "web-q2x4z"), names("web-1", "web-q2x4z", "web-0")
	if want := []string{"web-0", "web-1", "web-*"}; strings.Join(a, " ") != strings.Join(want, " ") || strings.Join(b, " ") != strings.Join(want, " ") {
		t.Errorf("the pods are named %v in one order and %v in another, want %v in both", a, b, want)
	}
}

// A reference to a deleted object of generated name names an object gone,
// not which: an operator that made its temporary request twice (again
// after a crash) and deleted both, and records the last in its status,
// reads as one that made it once; a reference to a live one is still
// another state.
func TestAReferenceToADeletedGeneratedObjectNamesAnObjectGone(t *testing.T) {
	request := func(suffix string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "certs", Name: "web-request-" + suffix, GenerateName: "web-request-", UID: types.UID("uid-" + suffix)}}
	}
	status := func(log []apiserver.Event, record string) string {
		kp := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "certs", Name: "web", UID: "uid-web"}, Data: map[string]string{"request": record}}
		log = append(log, optest.Added(t, kp))
		w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
		s := &verdict.Snapshot{World: w, Canon: canon.NewTokens(log)}
		return canon.Encode(s.Normalize(corev1.SchemeGroupVersion.WithKind("ConfigMap"), kp))
	}
	a, b := request("q86zx"), request("x22j6")
	once := status([]apiserver.Event{optest.Added(t, a), deletedEv(t, a)}, a.Name)
	twice := status([]apiserver.Event{optest.Added(t, a), optest.Added(t, b), deletedEv(t, a), deletedEv(t, b)}, b.Name)
	if once != twice || !strings.Contains(once, `"web-request-*deleted"`) {
		t.Errorf("a record of the last of two deleted requests differs from a record of the one:\n%s\n%s", once, twice)
	}
	if live := status([]apiserver.Event{optest.Added(t, a), optest.Added(t, b), deletedEv(t, a)}, b.Name); live == once {
		t.Errorf("a record of a live request reads as one of a deleted one: %s", live)
	}
}
