package cluster_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Two controllers that use an object's other forms, each set up by its own
// SetupWithManager on the process's manager, with no wrapper: GadgetReconciler is
// written only against unstructured.Unstructured, for Widget as a kind that only
// its CRD manifest defines (the scheme has no Go type for it); SecretMarker watches
// Secrets with builder.OnlyMetadata. Each has a typed twin doing the same with the
// Go types, and their traces are compared request for request.

const cleanupFinalizer = "test.ctrlsim.dev/cleanup"

// GadgetReconciler keeps a ConfigMap per Widget (owned by it, removed through a
// finalizer when the Widget is deleted), writes the Widget's status and stamps it
// with an annotation (a merge patch), all as unstructured objects.
type GadgetReconciler struct{ client client.Client }

func (r *GadgetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	cm := &unstructured.Unstructured{}
	cm.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	return ctrl.NewControllerManagedBy(mgr).Named("gadget").For(newWidget()).Owns(cm).Complete(r)
}

func (r *GadgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	w := newWidget()
	if err := r.client.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetNamespace(w.GetNamespace())
	cm.SetName(w.GetName())
	if w.GetDeletionTimestamp() != nil {
		if !controllerutil.ContainsFinalizer(w, cleanupFinalizer) {
			return reconcile.Result{}, nil
		}
		if err := r.client.Delete(ctx, cm); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, err
		}
		controllerutil.RemoveFinalizer(w, cleanupFinalizer)
		return reconcile.Result{}, r.client.Update(ctx, w)
	}
	if controllerutil.AddFinalizer(w, cleanupFinalizer) {
		return reconcile.Result{}, r.client.Update(ctx, w)
	}
	size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
	color, _, _ := unstructured.NestedString(w.Object, "spec", "color")
	if _, err := controllerutil.CreateOrUpdate(ctx, r.client, cm, func() error {
		if err := unstructured.SetNestedStringMap(cm.Object, map[string]string{"size": strconv.FormatInt(size, 10), "color": color}, "data"); err != nil {
			return err
		}
		return controllerutil.SetControllerReference(w, cm, r.client.Scheme())
	}); err != nil {
		return reconcile.Result{}, err
	}
	if observed, _, _ := unstructured.NestedInt64(w.Object, "status", "observedGeneration"); observed != w.GetGeneration() {
		if err := unstructured.SetNestedField(w.Object, "Ready", "status", "phase"); err != nil {
			return reconcile.Result{}, err
		}
		if err := unstructured.SetNestedField(w.Object, w.GetGeneration(), "status", "observedGeneration"); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.client.Status().Update(ctx, w); err != nil {
			return reconcile.Result{}, err
		}
	}
	stamp := strconv.FormatInt(w.GetGeneration(), 10)
	if w.GetAnnotations()["stamped"] != stamp {
		orig := w.DeepCopy()
		annotations := w.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations["stamped"] = stamp
		w.SetAnnotations(annotations)
		if err := r.client.Patch(ctx, w, client.MergeFrom(orig)); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}

// TypedGadgetReconciler is GadgetReconciler with the Go types.
type TypedGadgetReconciler struct{ client client.Client }

func (r *TypedGadgetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).Named("gadget").For(&apiservertest.Widget{}).Owns(&corev1.ConfigMap{}).Complete(r)
}

func (r *TypedGadgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	w := &apiservertest.Widget{}
	if err := r.client.Get(ctx, req.NamespacedName, w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}}
	if w.DeletionTimestamp != nil {
		if !controllerutil.ContainsFinalizer(w, cleanupFinalizer) {
			return reconcile.Result{}, nil
		}
		if err := r.client.Delete(ctx, cm); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, err
		}
		controllerutil.RemoveFinalizer(w, cleanupFinalizer)
		return reconcile.Result{}, r.client.Update(ctx, w)
	}
	if controllerutil.AddFinalizer(w, cleanupFinalizer) {
		return reconcile.Result{}, r.client.Update(ctx, w)
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.client, cm, func() error {
		cm.Data = map[string]string{"size": strconv.Itoa(w.Spec.Size), "color": w.Spec.Color}
		return controllerutil.SetControllerReference(w, cm, r.client.Scheme())
	}); err != nil {
		return reconcile.Result{}, err
	}
	if w.Status.ObservedGeneration != w.Generation {
		w.Status.Phase, w.Status.ObservedGeneration = "Ready", w.Generation
		if err := r.client.Status().Update(ctx, w); err != nil {
			return reconcile.Result{}, err
		}
	}
	stamp := strconv.FormatInt(w.Generation, 10)
	if w.Annotations["stamped"] != stamp {
		orig := w.DeepCopy()
		metav1.SetMetaDataAnnotation(&w.ObjectMeta, "stamped", stamp)
		if err := r.client.Patch(ctx, w, client.MergeFrom(orig)); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}

// gadgetWorld serves Widget from its CRD manifest (schema, status subresource):
// with the Go type in the scheme when typed, else as a kind only the CRD defines.
// The workload writes Widgets as a user would, typed or unstructured.
func gadgetWorld(t *testing.T, typed bool) cluster.Options {
	t.Helper()
	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest))
	if err != nil {
		t.Fatal(err)
	}
	scheme := apiservertest.Scheme()
	var setup func(p *process.Process) error
	if typed {
		setup = func(p *process.Process) error { return (&TypedGadgetReconciler{}).SetupWithManager(p.Manager()) }
	} else {
		scheme = runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(scheme); err != nil {
			t.Fatal(err)
		}
		setup = func(p *process.Process) error { return (&GadgetReconciler{}).SetupWithManager(p.Manager()) }
	}
	widget := func(args plan.Args) *unstructured.Unstructured {
		size, _ := strconv.Atoi(args.Get("size"))
		w := newWidget()
		w.SetNamespace("default")
		w.SetName(args.Get("name"))
		w.Object["spec"] = map[string]any{"size": int64(size), "color": args.Get("color")}
		return w
	}
	write := func(c *cluster.Cluster, w *unstructured.Unstructured, verb string) error {
		var obj client.Object = w
		if typed {
			tw := &apiservertest.Widget{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(w.Object, tw); err != nil {
				return err
			}
			tw.SetGroupVersionKind(apiservertest.WidgetGVK)
			obj = tw
		}
		switch verb {
		case "create":
			return c.Admin().Create(ctx, obj)
		case "delete":
			return client.IgnoreNotFound(c.Admin().Delete(ctx, obj))
		}
		return c.Admin().Patch(ctx, obj, client.Merge)
	}
	return cluster.Options{
		Scheme:    scheme,
		CRDs:      crds,
		Processes: []process.Spec{{Name: "a", Setup: setup}, {Name: "b", Setup: setup}},
		Actions: map[string]cluster.Action{
			"create": cluster.Act(func(c *cluster.Cluster, args plan.Args) error { return write(c, widget(args), "create") }, "name", "size", "color"),
			"update": cluster.Act(func(c *cluster.Cluster, args plan.Args) error { return write(c, widget(args), "update") }, "name", "size", "color"),
			"delete": cluster.Act(func(c *cluster.Cluster, args plan.Args) error { return write(c, widget(args), "delete") }, "name", "size", "color"),
		},
	}
}

// requests is a run's trace as the requests it made: every step without the
// digest of what a write stored (a Widget's digest is of its Go struct in one run,
// of its unstructured JSON in the other).
func requests(steps []trace.Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		s.Digest = ""
		out[i] = s.Canonical()
	}
	return out
}

func runWorld(t *testing.T, p *plan.Plan, o cluster.Options, horizon time.Duration) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	c.RunFor(horizon)
	c.Heal()
	c.RunFor(10 * time.Minute)
	return c
}

func sameRequests(t *testing.T, name string, want, got []string) {
	t.Helper()
	for j := range max(len(want), len(got)) {
		if j >= len(want) || j >= len(got) || want[j] != got[j] {
			t.Fatalf("%s: the traces differ at step %d of %d/%d:\n typed:  %s\n form:   %s", name, j, len(want), len(got), at(want, j), at(got, j))
		}
	}
}

func countOps(steps []trace.Step) map[string]int {
	n := map[string]int{}
	for _, s := range steps {
		n[s.Op]++
	}
	return n
}

// A controller written only against unstructured.Unstructured, for a kind that only
// a CRD manifest defines, makes the requests its typed twin makes: under the same
// plans (workload, lag, API faults, crashes) the traces are the same step for step
// (time, process, controller, worker, reconcile, verb, object, resourceVersions
// seen, current and written, result), and the Widgets and ConfigMaps end the same.
func TestAControllerOfACRDOnlyKindMakesTheRequestsOfItsTypedTwin(t *testing.T) {
	handwritten, err := plan.Parse(`seed 3
at 1s create name=w1 size=2 color=blue
at 2s create name=w2 size=1 color=red
at 20s update name=w2 size=4 color=green
at 30s delete name=w1 size=0 color=blue
at 40s create name=w3 size=3 color=blue
lag process=a kind=* min=0s max=2s
api verb=update resource=widgets subresource=status code=409 count=1
crash process=a call=9
`)
	if err != nil {
		t.Fatal(err)
	}
	plans := []*plan.Plan{handwritten}
	gen := plan.Generator(space)
	for i := range 8 {
		plans = append(plans, gen.Example(i))
	}
	for i, p := range plans {
		typed := runWorld(t, p, gadgetWorld(t, true), space.Horizon)
		unstr := runWorld(t, p, gadgetWorld(t, false), space.Horizon)
		want, got := typed.Trace.Steps(), unstr.Trace.Steps()
		if i == 0 {
			ops := countOps(want)
			for _, op := range []string{"cached-get", "create", "update", "update/status", "patch", "delete", "crash"} {
				if ops[op] == 0 {
					t.Errorf("the handwritten plan makes no %s: %v", op, ops)
				}
			}
			var kinds []string
			for _, inf := range unstr.Process("b").GetCache().Informers() {
				kinds = append(kinds, inf.GVK().Kind+"/"+inf.Form().String())
			}
			if fmt.Sprint(kinds) != "[ConfigMap/unstructured Widget/unstructured]" {
				t.Errorf("informers of the unstructured controller: %v", kinds)
			}
		}
		sameRequests(t, fmt.Sprintf("plan %d\n%s", i, p), requests(want), requests(got))
		if a, b := gadgetState(t, typed), gadgetState(t, unstr); a != b {
			t.Errorf("plan %d: the clusters end apart:\n typed:        %s\n unstructured: %s", i, a, b)
		}
		typed.Close()
		unstr.Close()
	}
}

// gadgetState is the Widgets and ConfigMaps at the end, read as unstructured JSON.
func gadgetState(t *testing.T, c *cluster.Cluster) string {
	t.Helper()
	ws := &unstructured.UnstructuredList{}
	ws.SetGroupVersionKind(apiservertest.GroupVersion.WithKind("WidgetList"))
	if err := c.List(ws); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, w := range ws.Items {
		fmt.Fprintf(&b, "%s gen=%d rv=%s fin=%v ann=%v spec=%v status=%v; ", w.GetName(), w.GetGeneration(), w.GetResourceVersion(),
			w.GetFinalizers(), w.GetAnnotations(), w.Object["spec"], w.Object["status"])
	}
	var cms corev1.ConfigMapList
	if err := c.List(&cms); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		fmt.Fprintf(&b, "cm %s rv=%s %v; ", cm.Name, cm.ResourceVersion, cm.Data)
	}
	return b.String()
}

// SecretMarker labels every Secret it sees and holds it with a finalizer until it
// is deleted, reading and patching metadata only: it watches Secrets with
// builder.OnlyMetadata, so it never caches their data.
type SecretMarker struct{ client client.Client }

const markedLabel = "ctrlsim.dev/marked"

func (r *SecretMarker) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).Named("marker").For(&corev1.Secret{}, builder.OnlyMetadata).Complete(r)
}

func (r *SecretMarker) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	s := &metav1.PartialObjectMetadata{}
	s.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := r.client.Get(ctx, req.NamespacedName, s); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	orig := s.DeepCopy()
	if s.DeletionTimestamp != nil {
		if !controllerutil.RemoveFinalizer(s, cleanupFinalizer) {
			return reconcile.Result{}, nil
		}
	} else {
		metav1.SetMetaDataLabel(&s.ObjectMeta, markedLabel, "true")
		controllerutil.AddFinalizer(s, cleanupFinalizer)
	}
	if s.Labels[markedLabel] == orig.Labels[markedLabel] && len(s.Finalizers) == len(orig.Finalizers) {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, r.client.Patch(ctx, s, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
}

// TypedSecretMarker is SecretMarker with *corev1.Secret.
type TypedSecretMarker struct{ client client.Client }

func (r *TypedSecretMarker) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).Named("marker").For(&corev1.Secret{}).Complete(r)
}

func (r *TypedSecretMarker) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	s := &corev1.Secret{}
	if err := r.client.Get(ctx, req.NamespacedName, s); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	orig := s.DeepCopy()
	if s.DeletionTimestamp != nil {
		if !controllerutil.RemoveFinalizer(s, cleanupFinalizer) {
			return reconcile.Result{}, nil
		}
	} else {
		metav1.SetMetaDataLabel(&s.ObjectMeta, markedLabel, "true")
		controllerutil.AddFinalizer(s, cleanupFinalizer)
	}
	if s.Labels[markedLabel] == orig.Labels[markedLabel] && len(s.Finalizers) == len(orig.Finalizers) {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, r.client.Patch(ctx, s, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
}

func secretWorld(metadataOnly bool) cluster.Options {
	setup := func(p *process.Process) error { return (&TypedSecretMarker{}).SetupWithManager(p.Manager()) }
	if metadataOnly {
		setup = func(p *process.Process) error { return (&SecretMarker{}).SetupWithManager(p.Manager()) }
	}
	secret := func(args plan.Args) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: args.Get("name")},
			StringData: map[string]string{"token": args.Get("color") + args.Get("size")}}
	}
	return cluster.Options{
		Scheme:    clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "a", Setup: setup}, {Name: "b", Setup: setup}},
		Actions: map[string]cluster.Action{
			"create": cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
				err := c.Admin().Create(ctx, secret(args))
				if apierrors.IsAlreadyExists(err) {
					return nil
				}
				return err
			}, "name", "size", "color"),
			"update": cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
				return client.IgnoreNotFound(c.Admin().Patch(ctx, secret(args), client.Merge))
			}, "name", "size", "color"),
			"delete": cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
				return client.IgnoreNotFound(c.Admin().Delete(ctx, secret(args)))
			}, "name", "size", "color"),
		},
	}
}

// A controller watching Secrets with builder.OnlyMetadata makes the requests its
// typed twin makes, digests of what it writes included: the same trace step for
// step under the same plans, and the same Secrets at the end.
func TestAMetadataOnlyControllerMakesTheRequestsOfItsTypedTwin(t *testing.T) {
	plans := []string{`seed 5
at 1s create name=s1 size=1 color=a
at 2s create name=s2 size=1 color=b
at 10s update name=s1 size=1 color=c
at 20s delete name=s1 size=1 color=c
at 25s delete name=s2 size=1 color=b
at 30s create name=s1 size=1 color=d
lag process=a kind=* min=0s max=3s
hold process=b kind=/v1/Secret from=1s until=15s
api verb=patch resource=secrets code=409 count=1
crash process=b call=4
`, `seed 9
at 0s create name=s1 size=1 color=a
at 0s create name=s2 size=1 color=a
at 0s create name=s3 size=1 color=a
at 3s delete name=s2 size=1 color=a
at 4s update name=s3 size=1 color=x
lag process=b kind=/v1/Secret min=100ms max=1s
crash process=a call=2
`}
	for i, text := range plans {
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		typed := runWorld(t, p, secretWorld(false), time.Minute)
		meta := runWorld(t, p, secretWorld(true), time.Minute)
		want, got := typed.Trace.Steps(), meta.Trace.Steps()
		if i == 0 {
			ops := countOps(want)
			for _, op := range []string{"cached-get", "patch", "hold", "release", "crash"} {
				if ops[op] == 0 {
					t.Errorf("plan 0 makes no %s: %v", op, ops)
				}
			}
			var forms []string
			for _, inf := range meta.Process("a").GetCache().Informers() {
				forms = append(forms, inf.GVK().Kind+"/"+inf.Form().String())
			}
			if fmt.Sprint(forms) != "[Secret/metadata]" {
				t.Errorf("informers of the metadata-only controller: %v, want its Secret metadata informer only", forms)
			}
		}
		var a, b []string
		for _, s := range want {
			a = append(a, s.Canonical())
		}
		for _, s := range got {
			b = append(b, s.Canonical())
		}
		sameRequests(t, fmt.Sprintf("plan %d", i), a, b)
		var sa, sb corev1.SecretList
		if err := typed.List(&sa); err != nil {
			t.Fatal(err)
		}
		if err := meta.List(&sb); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(sa.Items) != fmt.Sprint(sb.Items) {
			t.Errorf("plan %d: the Secrets end apart:\n%v\n%v", i, sa.Items, sb.Items)
		}
		typed.Close()
		meta.Close()
	}
}

// The form controllers' worlds replay to the same trace across runs and
// GOMAXPROCS values (and, in `make test`, under -race): a CRD-only kind stored as
// unstructured JSON, and informers per form sharing their kind's lag stream.
func TestDeterminismOfTheFormControllers(t *testing.T) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(0))
	gen := plan.Generator(space)
	worlds := map[string]func() cluster.Options{ // lint:order-independent each world is checked on its own
		"unstructured CRD-only": func() cluster.Options { return gadgetWorld(t, false) },
		"metadata-only Secrets": func() cluster.Options { return secretWorld(true) },
		"form watches":          formsWatchWorld(func(p *process.Process) reconcile.Reconciler { return &typedForms{p: p} }),
	}
	for name, world := range worlds { // lint:order-independent each world is checked on its own
		for i := range 4 {
			p := gen.Example(i)
			var hashes []string
			for _, procs := range []int{1, 2} {
				goruntime.GOMAXPROCS(procs)
				c := runWorld(t, p, world(), space.Horizon)
				hashes = append(hashes, c.Trace.Hash())
				c.Close()
			}
			if hashes[0] != hashes[1] {
				err := cluster.CheckDeterminism(p, world, func(c *cluster.Cluster) {
					c.RunFor(space.Horizon)
					c.Heal()
					c.RunFor(10 * time.Minute)
				})
				t.Fatalf("%s, plan %d: different traces %v\n%v\n%s", name, i, hashes, err, p)
			}
		}
	}
}
