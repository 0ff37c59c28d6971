package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// Two reconcilers doing the same thing: one with the Go types, one with
// unstructured.Unstructured for Widgets and ConfigMaps and PartialObjectMetadata for
// the annotation patch. For each Widget: delete its ConfigMap when its
// size is 0, else create or update it (owned by the Widget); count the namespace's
// ConfigMaps into an annotation (a merge patch); read the Widget from the API
// reader and write its status; fail on red Widgets.

type typedForms struct{ p *process.Process }

func (r *typedForms) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cl := r.p.GetClient()
	w := &apiservertest.Widget{}
	if err := cl.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}}
	if w.Spec.Size == 0 {
		return reconcile.Result{}, client.IgnoreNotFound(cl.Delete(ctx, cm))
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, cl, cm, func() error {
		cm.Data = map[string]string{"size": strconv.Itoa(w.Spec.Size), "color": w.Spec.Color}
		return controllerutil.SetControllerReference(w, cm, cl.Scheme())
	}); err != nil {
		return reconcile.Result{}, err
	}
	var cms corev1.ConfigMapList
	if err := cl.List(ctx, &cms, client.InNamespace(w.Namespace)); err != nil {
		return reconcile.Result{}, err
	}
	orig := w.DeepCopy()
	metav1.SetMetaDataAnnotation(&w.ObjectMeta, "configmaps", strconv.Itoa(len(cms.Items)))
	if err := cl.Patch(ctx, w, client.MergeFrom(orig)); err != nil {
		return reconcile.Result{}, err
	}
	fresh := &apiservertest.Widget{}
	if err := r.p.GetAPIReader().Get(ctx, req.NamespacedName, fresh); err != nil {
		return reconcile.Result{}, err
	}
	fresh.Status.Phase, fresh.Status.ObservedGeneration = "Stamped", fresh.Generation
	if err := cl.Status().Update(ctx, fresh); err != nil {
		return reconcile.Result{}, err
	}
	if w.Spec.Color == "red" {
		return reconcile.Result{}, fmt.Errorf("red widgets are not allowed")
	}
	return reconcile.Result{}, nil
}

type unstructuredForms struct{ p *process.Process }

func newWidget() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(apiservertest.WidgetGVK)
	return u
}

func (r *unstructuredForms) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cl := r.p.GetClient()
	w := newWidget()
	if err := cl.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
	color, _, _ := unstructured.NestedString(w.Object, "spec", "color")
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace(w.GetNamespace())
	cm.SetName(w.GetName())
	if size == 0 {
		return reconcile.Result{}, client.IgnoreNotFound(cl.Delete(ctx, cm))
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, cl, cm, func() error {
		if err := unstructured.SetNestedStringMap(cm.Object, map[string]string{"size": strconv.FormatInt(size, 10), "color": color}, "data"); err != nil {
			return err
		}
		return controllerutil.SetControllerReference(w, cm, cl.Scheme())
	}); err != nil {
		return reconcile.Result{}, err
	}
	cms := &unstructured.UnstructuredList{}
	cms.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	if err := cl.List(ctx, cms, client.InNamespace(w.GetNamespace())); err != nil {
		return reconcile.Result{}, err
	}
	pw := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: w.GetNamespace(), Name: w.GetName(), ResourceVersion: w.GetResourceVersion(), Annotations: w.GetAnnotations()}}
	pw.SetGroupVersionKind(apiservertest.WidgetGVK)
	orig := pw.DeepCopy()
	metav1.SetMetaDataAnnotation(&pw.ObjectMeta, "configmaps", strconv.Itoa(len(cms.Items)))
	if err := cl.Patch(ctx, pw, client.MergeFrom(orig)); err != nil {
		return reconcile.Result{}, err
	}
	fresh := newWidget()
	if err := r.p.GetAPIReader().Get(ctx, req.NamespacedName, fresh); err != nil {
		return reconcile.Result{}, err
	}
	if err := unstructured.SetNestedField(fresh.Object, "Stamped", "status", "phase"); err != nil {
		return reconcile.Result{}, err
	}
	if err := unstructured.SetNestedField(fresh.Object, fresh.GetGeneration(), "status", "observedGeneration"); err != nil {
		return reconcile.Result{}, err
	}
	if err := cl.Status().Update(ctx, fresh); err != nil {
		return reconcile.Result{}, err
	}
	if color == "red" {
		return reconcile.Result{}, fmt.Errorf("red widgets are not allowed")
	}
	return reconcile.Result{}, nil
}

// unstructuredWorld is formsWorld with the watches on Unstructured Widgets and
// ConfigMaps: the informers the unstructured reconciler reads, as a controller
// written against unstructured objects has them.
func unstructuredWorld(newReconciler func(p *process.Process) reconcile.Reconciler) func() cluster.Options {
	return func() cluster.Options {
		o := world()
		setup := func(p *process.Process) error {
			cm := &unstructured.Unstructured{}
			cm.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
			return ctrl.NewControllerManagedBy(p.Manager()).For(newWidget()).Owns(cm).Complete(newReconciler(p))
		}
		o.Processes = []process.Spec{{Name: "a", Setup: setup}, {Name: "b", Setup: setup}}
		return o
	}
}

// formsWorld is world() with its processes running r.
func formsWorld(newReconciler func(p *process.Process) reconcile.Reconciler) func() cluster.Options {
	return func() cluster.Options {
		o := world()
		setup := func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).Owns(&corev1.ConfigMap{}).Complete(newReconciler(p))
		}
		o.Processes = []process.Spec{{Name: "a", Setup: setup}, {Name: "b", Setup: setup}}
		return o
	}
}

type formsRun struct {
	steps      []string
	widgets    []apiservertest.Widget
	configMaps []corev1.ConfigMap
	informers  []string // process a's informers at the end: kind and form
}

func runForms(t *testing.T, p *plan.Plan, world func() cluster.Options) formsRun {
	t.Helper()
	c, err := cluster.New(p, world())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(space.Horizon)
	c.Heal()
	c.RunFor(10 * time.Minute)
	var r formsRun
	for _, s := range c.Trace.Steps() {
		r.steps = append(r.steps, s.Canonical())
	}
	var ws apiservertest.WidgetList
	var cms corev1.ConfigMapList
	if err := c.List(&ws); err != nil {
		t.Fatal(err)
	}
	if err := c.List(&cms); err != nil {
		t.Fatal(err)
	}
	r.widgets, r.configMaps = ws.Items, cms.Items
	for _, i := range c.Process("a").GetCache().Informers() {
		r.informers = append(r.informers, i.GVK().Kind+"/"+i.Form().String())
	}
	return r
}

// A reconciler written only against Unstructured (and PartialObjectMetadata for a
// patch), watching Unstructured objects, runs as its typed twin does: it has one
// informer per kind, of the unstructured form, each drawing the lags the typed
// twin's draws, so under the same plan (workload, crashes, API faults, lag) the
// trace is the same step for step, byte for byte (digests of what each write
// stored included), and the cluster ends in the same state.
func TestAnUnstructuredReconcilerTracesAsItsTypedTwin(t *testing.T) {
	handwritten, err := plan.Parse(`seed 7
at 1s create name=w1 size=2 color=blue
at 2s create name=w2 size=1 color=red
at 5s create name=w3 size=3 color=blue
at 20s update name=w2 size=2 color=blue
at 30s update name=w3 size=0 color=blue
at 40s delete name=w1 size=0 color=blue
lag process=a kind=* min=0s max=2s
api verb=create resource=configmaps code=500 count=1
crash process=a call=7
`)
	if err != nil {
		t.Fatal(err)
	}
	plans := []*plan.Plan{handwritten}
	gen := plan.Generator(space)
	for i := range 10 {
		plans = append(plans, gen.Example(i))
	}
	typed := formsWorld(func(p *process.Process) reconcile.Reconciler { return &typedForms{p: p} })
	unstr := unstructuredWorld(func(p *process.Process) reconcile.Reconciler { return &unstructuredForms{p: p} })
	for i, p := range plans {
		want, got := runForms(t, p, typed), runForms(t, p, unstr)
		if i == 0 && len(want.steps) < 100 {
			t.Errorf("plan %d: a run too short to compare: %d steps", i, len(want.steps))
		}
		for j := range max(len(want.steps), len(got.steps)) {
			if j >= len(want.steps) || j >= len(got.steps) || want.steps[j] != got.steps[j] {
				t.Fatalf("plan %d: the traces differ at step %d of %d/%d:\n typed:        %s\n unstructured: %s\n%s",
					i, j, len(want.steps), len(got.steps), at(want.steps, j), at(got.steps, j), p)
			}
		}
		if i == 0 && fmt.Sprint(got.informers) != "[ConfigMap/unstructured Widget/unstructured]" {
			t.Errorf("the unstructured run's informers: %v", got.informers)
		}
		// Semantic: a time read back through the typed path is in Local, the
		// unstructured one's in UTC (managedFields' times): equal instants.
		if !equality.Semantic.DeepEqual(want.widgets, got.widgets) || !equality.Semantic.DeepEqual(want.configMaps, got.configMaps) {
			t.Errorf("plan %d: the clusters end apart:\n typed %+v\n%+v\n unstructured %+v\n%+v", i, want.widgets, want.configMaps, got.widgets, got.configMaps)
		}
	}
}

// settled is what the reconciler converges to whatever the timing: each Widget's
// spec and annotations, each ConfigMap's data and owner.
func (r formsRun) settled() string {
	var b []string
	for _, w := range r.widgets {
		b = append(b, fmt.Sprintf("%s %+v %v", w.Name, w.Spec, w.Annotations))
	}
	for _, cm := range r.configMaps {
		owner := ""
		if ref := metav1.GetControllerOf(&cm); ref != nil {
			owner = ref.Name
		}
		b = append(b, fmt.Sprintf("%s %v owner=%s", cm.Name, cm.Data, owner))
	}
	return fmt.Sprint(b)
}

func at(steps []string, i int) string {
	if i < len(steps) {
		return steps[i]
	}
	return "(end)"
}

// formsWatchWorld is formsWorld with the controller built on the forms too:
// For an Unstructured Widget, Owns ConfigMaps as metadata only
// (builder.OnlyMetadata), as generic and memory-saving controllers do.
func formsWatchWorld(newReconciler func(p *process.Process) reconcile.Reconciler) func() cluster.Options {
	return func() cluster.Options {
		o := world()
		setup := func(p *process.Process) error {
			widget := &unstructured.Unstructured{}
			widget.SetGroupVersionKind(apiservertest.WidgetGVK)
			return ctrl.NewControllerManagedBy(p.Manager()).For(widget, builder.WithPredicates(formSeen)).
				Owns(&corev1.ConfigMap{}, builder.OnlyMetadata, builder.WithPredicates(formSeen)).Complete(newReconciler(p))
		}
		o.Processes = []process.Spec{{Name: "a", Setup: setup}, {Name: "b", Setup: setup}}
		return o
	}
}

// seenForms counts the Go types of the objects the form watches' events carry.
var seenForms = map[string]int{}

var formSeen = predicate.NewPredicateFuncs(func(o client.Object) bool {
	seenForms[fmt.Sprintf("%T", o)]++
	return true
})

// Watches of the other forms (an Unstructured For, an OnlyMetadata Owns) run on
// informers of their own, as in controller-runtime: the typed reconciler reads
// the typed informers while the watches' events come from the unstructured and
// metadata ones, each with its own lag, so the trace is not the typed watches'
// step for step (a read may see a resourceVersion the watch has not delivered
// yet, or the other way round), but the watches enqueue the same work: the
// cluster ends in the same state.
func TestUnstructuredAndMetadataWatchesRunOnInformersOfTheirOwn(t *testing.T) {
	p, err := plan.Parse("seed 7\nat 1s create name=w1 size=2 color=blue\nat 5s create name=w3 size=3 color=blue\nat 30s update name=w3 size=0 color=blue\nlag process=a kind=* min=0s max=2s\ncrash process=a call=7\n")
	if err != nil {
		t.Fatal(err)
	}
	newTyped := func(p *process.Process) reconcile.Reconciler { return &typedForms{p: p} }
	typed := runForms(t, p, formsWorld(newTyped))
	forms := runForms(t, p, formsWatchWorld(newTyped))
	if len(typed.steps) < 30 || len(forms.steps) < 30 {
		t.Fatalf("runs of %d and %d steps: too few to compare", len(typed.steps), len(forms.steps))
	}
	if a, b := typed.settled(), forms.settled(); a != b {
		t.Errorf("the clusters end apart:\n typed watches: %s\n form watches:  %s", a, b)
	}
	if want := "[ConfigMap/typed Widget/typed]"; fmt.Sprint(typed.informers) != want {
		t.Errorf("typed watches: informers %v, want %s", typed.informers, want)
	}
	if want := "[ConfigMap/typed ConfigMap/metadata Widget/typed Widget/unstructured]"; fmt.Sprint(forms.informers) != want {
		t.Errorf("form watches: informers %v, want %s (the watches' own and the reads')", forms.informers, want)
	}
	if len(seenForms) != 2 || seenForms["*unstructured.Unstructured"] == 0 || seenForms["*v1.PartialObjectMetadata"] == 0 {
		t.Errorf("the watches' events carried %v, want Unstructured Widgets and PartialObjectMetadata ConfigMaps only", seenForms)
	}
}
