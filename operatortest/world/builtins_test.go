package world_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// started are the controllers (process/controller) that logged their start.
// A controller-runtime controller (a model) logs "Starting Controller"
// under its name; one of kube-controller-manager's own, hosted (package
// kcm), logs "Starting ... controller" with its logger's name ("Starting job
// controller logger=job-controller"): either is named process/name ("job").
func started(steps []trace.Step) []string {
	var out []string
	for _, s := range steps {
		switch {
		case s.Op != "log":
		case s.Controller != "" && strings.Contains(s.Result, "Starting Controller"):
			out = append(out, s.Process+"/"+s.Controller)
		case strings.HasPrefix(s.Result, "Starting ") && strings.Contains(s.Result, " logger="):
			_, logger, _ := strings.Cut(s.Result, " logger=")
			logger, _, _ = strings.Cut(logger, " ")
			out = append(out, s.Process+"/"+strings.TrimSuffix(logger, "-controller"))
		}
	}
	return out
}

// watched counts, by kind, the watches kube-controller-manager's process
// opened: its hosted garbage collector's monitors (one informer per kind it
// collects, its own factory) and its hosted controllers' informers.
func watched(steps []trace.Step) map[string]int {
	out := map[string]int{}
	for _, s := range steps {
		if s.Process == world.KubeControllerManager && s.Op == "watch" {
			out[s.Object]++
		}
	}
	return out
}

func ranProcess(steps []trace.Step, name string) bool {
	return slices.ContainsFunc(steps, func(s trace.Step) bool { return s.Process == name })
}

// A world whose objects are ConfigMaps (the operator's finalizer on them)
// starts the garbage collector, watching ConfigMaps, and the namespace
// controller, and no workload controller, no kubelet and no monitor of a
// kind no object has: they would never act on anything.
func TestBuiltInControllersStartOnlyForTheKindsTheWorldHolds(t *testing.T) {
	w, err := search.NewWorld(optest.FinalizerOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 3\nat 1s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := started(r.Steps)
	for _, want := range []string{world.KubeControllerManager + "/namespace", world.KubeControllerManager + "/garbage-collector", "op/configmap"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s did not start; started: %v", want, got)
		}
	}
	for _, c := range got {
		for _, idle := range []string{"/job", "/replicaset", "/deployment", "/statefulset", "/endpointslice"} {
			if strings.HasSuffix(c, idle) {
				t.Errorf("%s started in a world with no object of its kinds", c)
			}
		}
	}
	w8 := watched(r.Steps)
	if w8["ConfigMap"] == 0 {
		t.Errorf("the collector does not watch ConfigMaps; kube-controller-manager watched %v", w8)
	}
	for _, idle := range []string{"Secret", "Pod"} {
		if w8[idle] > 0 {
			t.Errorf("kube-controller-manager watched %ss in a world with none; it watched %v", idle, w8)
		}
	}
	if ranProcess(r.Steps, "kubelet") {
		t.Errorf("the kubelet ran in a world that can hold no pod")
	}
	// The same plan run with every built-in controller reaches the same end
	// (a Holding of every kind: the probe's nil Holding hosts none of
	// package kcm's controllers, package builtins's Known gaps).
	var all *verdict.Snapshot
	_, _, err = w.RunHeld(t, p, world.Judging{Properties: func() []check.Property { return verdict.Oracles(w, nil) }, Observe: func(r *check.Run) { all = verdict.SnapshotOf(w, r) }}, 0, &world.Holding{})
	if err != nil {
		t.Fatal(err)
	}
	held, _, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := reference.Disagreement(w, all, held, "with every controller", "with those of the kinds held", nil, nil); d != "" {
		t.Errorf("leaving out the idle controllers changed the end state: %s", d)
	}
}

// jobOnDeletion creates a Job in the namespace of a ConfigMap it watches
// once that ConfigMap is gone: no run of the seed objects alone makes one.
type jobOnDeletion struct{ client.Client }

func (r *jobOnDeletion) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	err := r.Get(ctx, req.NamespacedName, &cm)
	if !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name + "-cleanup"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "cleanup", Image: "busybox"}},
		}}},
	}
	if err := r.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// A run in which an object of a kind the world did not hold at first
// appears (the operator makes a Job only once the user deletes its
// ConfigMap) is run again with that kind's controllers: the Job controller
// runs its pod and the kubelet completes it, as in a cluster where they
// always run; and the run is the same whenever it is asked for.
func TestARunThatMakesAKindNotHeldRunsAgainWithItsControllers(t *testing.T) {
	o := world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&jobOnDeletion{Client: mgr.GetClient()})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}},
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 5\nat 1s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w.Held.Holds(schema.GroupKind{Group: "batch", Kind: "Job"}) {
		t.Fatalf("the world held Jobs at first (%v): the test shows nothing", w.Held)
	}
	if got := started(r.Steps); !slices.Contains(got, world.KubeControllerManager+"/job") || !slices.Contains(got, world.KubeControllerManager+"/garbage-collector") {
		t.Errorf("the Job's controllers did not run; started: %v", got)
	}
	// Two watches of Jobs: the Job controller's informer and the collector's
	// monitor (its own informer factory).
	if n := watched(r.Steps)["Job"]; n < 2 {
		t.Errorf("kube-controller-manager watched Jobs %d times, want the Job controller's and the collector's", n)
	}
	if !ranProcess(r.Steps, "kubelet") {
		t.Errorf("the kubelet did not run the Job's pod")
	}
	var job batchv1.Job
	found := false
	for _, e := range r.Log {
		if j, ok := e.Object.(*batchv1.Job); ok && j.Name == "app-cleanup" {
			job, found = *j, true
		}
	}
	if !found || job.Status.Succeeded != 1 {
		t.Errorf("the Job did not complete (found %v, status %+v)", found, job.Status)
	}
	_, again, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash != r.Hash {
		t.Errorf("two runs of one plan: hashes %s and %s", r.Hash, again.Hash)
	}
	fresh, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	_, third, err := reference.RunOnce(fresh, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if third.Hash != r.Hash {
		t.Errorf("the plan in a fresh world: hash %s, want %s", third.Hash, r.Hash)
	}
}

// A plan judged again in one world (rapid's shrinker draws one plan from
// many byte strings) is recalled, not run again: the same result for a
// violation, the holding marker for a plan that held; a replay (run) still
// runs it.
func TestAPlanJudgedAgainIsRecalledNotRunAgain(t *testing.T) {
	o := optest.BugOptions(&optest.KnownBugs{}, true)
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	bad, err := plan.Parse("seed 7\nlag process=op kind=* min=0s max=20ms\ncrash process=op at=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	r1, err := reference.RunRecalled(w, t, bad)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Violated()) == 0 {
		t.Fatalf("the panicking plan violated nothing: the test shows nothing")
	}
	r2, err := reference.RunRecalled(w, t, bad)
	if err != nil {
		t.Fatal(err)
	}
	if r2 != r1 {
		t.Errorf("a violating plan judged again was run again")
	}
	r3, err := reference.Run(w, t, bad)
	if err != nil {
		t.Fatal(err)
	}
	if r3 == r1 || r3.Hash != r1.Hash {
		t.Errorf("a replay was recalled (same result: %v) or differs (hash %s, want %s)", r3 == r1, r3.Hash, r1.Hash)
	}
	fine := optest.BugOptions(&optest.KnownBugs{}, false)
	w, err = search.NewWorld(fine.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	good, err := plan.Parse("seed 7\n")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := reference.RunRecalled(w, t, good); err != nil || len(r.Violated()) > 0 {
		t.Fatalf("the fault-free plan of a correct operator: %v, %v", err, r.Violated())
	}
	if r, err := reference.RunRecalled(w, t, good); err != nil || r != reference.HoldingRun {
		t.Errorf("a plan that held, judged again, was run again (%v)", err)
	}
}
