package apiserver_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

var admin = apiserver.Admin

// world is a server with the default namespaces and one namespace "ns".
type world struct {
	t     *testing.T
	clock *clock.Clock
	s     *apiserver.Server
}

func newWorld(t *testing.T) *world {
	t.Helper()
	c := clock.New(clock.Epoch)
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: c, CRDs: []apiserver.CRD{apiservertest.WidgetCRD}})
	s.CreateDefaultNamespaces()
	w := &world{t: t, clock: c, s: s}
	w.must(s.Create(admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}))
	return w
}

func (w *world) must(err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("unexpected error: %v", err)
	}
}

func cm(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{"k": "v"}}
}

func widget(name string) *apiservertest.Widget {
	return &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: apiservertest.WidgetSpec{Size: 1}}
}

func wantReason(t *testing.T, err error, reason metav1.StatusReason, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s error, got nil", reason)
	}
	if got := apierrors.ReasonForError(err); got != reason {
		t.Fatalf("want reason %s, got %s (%v)", reason, got, err)
	}
	if msg != "" && err.Error() != msg {
		t.Fatalf("want message\n  %s\ngot\n  %s", msg, err.Error())
	}
}

func TestCreateSetsSystemMetadata(t *testing.T) {
	w := newWorld(t)
	rv0 := w.s.ResourceVersion()
	w.clock.Step(1500 * time.Millisecond)
	a := cm("a")
	w.must(w.s.Create(admin, a))
	if a.ResourceVersion == "" || a.UID == "" {
		t.Fatalf("create must set resourceVersion and uid: %+v", a.ObjectMeta)
	}
	if got, want := a.CreationTimestamp.Time, clock.Epoch.Add(time.Second); !got.Equal(want) {
		t.Errorf("creationTimestamp = %v, want %v (second precision, as serialized)", got, want)
	}
	if a.Generation != 0 {
		t.Errorf("a ConfigMap's strategy does not track generation; got %d", a.Generation)
	}
	b := widget("b")
	w.must(w.s.Create(admin, b))
	if b.Generation != 1 {
		t.Errorf("custom resources start at generation 1, got %d", b.Generation)
	}
	if b.UID == a.UID {
		t.Error("uids must be unique")
	}
	if w.s.ResourceVersion() != rv0+2 || a.ResourceVersion >= b.ResourceVersion {
		t.Errorf("resourceVersion is one global counter across kinds: %s then %s", a.ResourceVersion, b.ResourceVersion)
	}
	if a.Kind != "" || a.APIVersion != "" {
		t.Errorf("typed responses carry no TypeMeta, got %v", a.TypeMeta)
	}
}

func TestCreateErrors(t *testing.T) {
	w := newWorld(t)
	w.must(w.s.Create(admin, cm("a")))
	wantReason(t, w.s.Create(admin, cm("a")), metav1.StatusReasonAlreadyExists, `configmaps "a" already exists`)

	noName := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}}
	wantReason(t, w.s.Create(admin, noName), metav1.StatusReasonInvalid,
		`ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`)

	bad := cm("Bad_Name")
	wantReason(t, w.s.Create(admin, bad), metav1.StatusReasonInvalid, "")

	missing := cm("x")
	missing.Namespace = "nope"
	wantReason(t, w.s.Create(admin, missing), metav1.StatusReasonNotFound, `namespaces "nope" not found`)

	withRV := cm("b")
	withRV.ResourceVersion = "5"
	wantReason(t, w.s.Create(admin, withRV), metav1.StatusReasonInternalError, "")

	noNS := cm("c")
	noNS.Namespace = ""
	wantReason(t, w.s.Create(admin, noNS), metav1.StatusReasonNotFound, "the server could not find the requested resource")
}

func TestGenerateNameIsDeterministic(t *testing.T) {
	names := func() []string {
		w := newWorld(t)
		var out []string
		for range 3 {
			o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: "job-"}}
			w.must(w.s.Create(admin, o))
			out = append(out, o.Name)
		}
		return out
	}
	a, b := names(), names()
	for i := range a {
		if !strings.HasPrefix(a[i], "job-") || len(a[i]) != len("job-")+5 {
			t.Errorf("generated name %q: want prefix plus 5 characters", a[i])
		}
		if a[i] != b[i] {
			t.Errorf("same run, different names: %v vs %v", a, b)
		}
	}
}

func TestClusterScopedRequestDropsNamespace(t *testing.T) {
	w := newWorld(t)
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}}
	w.must(w.s.Create(admin, cr))
	if cr.Namespace != "" {
		t.Errorf("a cluster-scoped object has no namespace, got %q", cr.Namespace)
	}
}

func TestUnservedKinds(t *testing.T) {
	c := clock.New(clock.Epoch)
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: c}) // Widget CRD not installed
	err := s.Create(admin, widget("w"))
	if !meta.IsNoMatchError(err) {
		t.Fatalf("a kind whose CRD is not installed gives a no-match error, got %v", err)
	}
	type unregistered struct{ corev1.ConfigMap }
	if err := s.Get(admin, client.ObjectKey{Name: "x"}, &unregistered{}); err == nil {
		t.Fatal("a type missing from the scheme must fail")
	}
}

func TestGeneration(t *testing.T) {
	w := newWorld(t)
	d := deployment("d")
	w.must(w.s.Create(admin, d))
	if d.Generation != 1 {
		t.Fatalf("deployment starts at generation 1, got %d", d.Generation)
	}
	d.Labels = map[string]string{"a": "b"}
	w.must(w.s.Update(admin, d, ""))
	if d.Generation != 1 {
		t.Errorf("a label change does not bump a Deployment's generation, got %d", d.Generation)
	}
	d.Annotations = map[string]string{"a": "b"}
	w.must(w.s.Update(admin, d, ""))
	if d.Generation != 2 {
		t.Errorf("an annotation change bumps a Deployment's generation (deployment strategy), got %d", d.Generation)
	}
	d.Spec.Replicas = ptr.To[int32](3)
	d.Generation = 40 // clients cannot set generation
	w.must(w.s.Update(admin, d, ""))
	if d.Generation != 3 {
		t.Errorf("a spec change bumps generation by one, got %d", d.Generation)
	}

	x := widget("x")
	w.must(w.s.Create(admin, x))
	x.Labels = map[string]string{"l": "v"}
	w.must(w.s.Update(admin, x, ""))
	if x.Generation != 1 {
		t.Errorf("metadata changes do not bump a custom resource's generation, got %d", x.Generation)
	}
	x.Status.Phase = "Ready"
	w.must(w.s.Update(admin, x, "status"))
	if x.Generation != 1 {
		t.Errorf("status changes do not bump generation, got %d", x.Generation)
	}
	x.Spec.Color = "red"
	w.must(w.s.Update(admin, x, ""))
	if x.Generation != 2 {
		t.Errorf("spec changes bump a custom resource's generation, got %d", x.Generation)
	}
}

func TestStatusSubresource(t *testing.T) {
	w := newWorld(t)
	x := widget("x")
	x.Status.Phase = "ignored"
	w.must(w.s.Create(admin, x))
	if x.Status.Phase != "" {
		t.Errorf("create resets status when the status subresource is on, got %q", x.Status.Phase)
	}

	x.Status.Phase = "Ready"
	x.Spec.Size = 9
	w.must(w.s.Update(admin, x, ""))
	if x.Status.Phase != "" || x.Spec.Size != 9 {
		t.Errorf("Update keeps the stored status and takes the spec: %+v %+v", x.Spec, x.Status)
	}

	x.Status.Phase = "Ready"
	x.Spec.Size = 100
	x.Labels = map[string]string{"ignored": "yes"}
	w.must(w.s.Update(admin, x, "status"))
	if x.Status.Phase != "Ready" || x.Spec.Size != 9 || x.Labels["ignored"] != "" {
		t.Errorf("Status().Update changes nothing but status: %+v %+v %v", x.Spec, x.Status, x.Labels)
	}

	c := cm("c")
	w.must(w.s.Create(admin, c))
	err := w.s.Update(admin, c, "status")
	wantReason(t, err, metav1.StatusReasonNotFound, "the server could not find the requested resource")
}

// A status update of a built-in kind keeps the stored spec and takes the request's
// metadata, but what the kind's status strategy keeps: a Deployment keeps its
// labels (deploymentStatusStrategy.PrepareForUpdate), and its annotations and
// finalizers come from the request, so a status update without the finalizer of a
// deleting Deployment deletes it. A custom resource's keeps all its metadata.
func TestStatusUpdateOfABuiltinKindWritesMetadata(t *testing.T) {
	w := newWorld(t)
	d := deployment("d")
	d.Labels = map[string]string{"app": "a"}
	w.must(w.s.Create(admin, d))
	d.Spec.Replicas = ptr.To[int32](5)
	d.Labels = map[string]string{"app": "b"}
	d.Annotations = map[string]string{"note": "by status"}
	d.Finalizers = []string{"test.ctrlsim.dev/hold"}
	d.Status.Replicas = 1
	w.must(w.s.Update(admin, d, "status"))
	if *d.Spec.Replicas != 1 || d.Labels["app"] != "a" || d.Status.Replicas != 1 {
		t.Errorf("a Deployment's status update keeps the spec and the labels: replicas %d, labels %v", *d.Spec.Replicas, d.Labels)
	}
	if d.Annotations["note"] != "by status" || len(d.Finalizers) != 1 {
		t.Errorf("a Deployment's status update writes annotations and finalizers: %v %v", d.Annotations, d.Finalizers)
	}

	w.must(w.s.Delete(admin, d, nil))
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(d), d))
	d.Finalizers = nil
	w.must(w.s.Update(admin, d, "status"))
	wantReason(t, w.s.Get(admin, client.ObjectKeyFromObject(d), d), metav1.StatusReasonNotFound, "")

	x := widget("x")
	w.must(w.s.Create(admin, x))
	x.Annotations = map[string]string{"note": "by status"}
	x.Finalizers = []string{"test.ctrlsim.dev/hold"}
	x.Status.Phase = "Ready"
	w.must(w.s.Update(admin, x, "status"))
	if x.Status.Phase != "Ready" || len(x.Annotations) != 0 || len(x.Finalizers) != 0 {
		t.Errorf("a custom resource's status update keeps all metadata: %v %v", x.Annotations, x.Finalizers)
	}
}

func TestOptimisticConcurrency(t *testing.T) {
	w := newWorld(t)
	c := cm("c")
	w.must(w.s.Create(admin, c))
	stale := c.DeepCopy()
	c.Data["k"] = "v2"
	w.must(w.s.Update(admin, c, ""))
	stale.Data["k"] = "v3"
	wantReason(t, w.s.Update(admin, stale, ""), metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again`)

	// ConfigMap allows unconditional updates: no resourceVersion means "overwrite".
	blind := c.DeepCopy()
	blind.ResourceVersion = ""
	blind.Data["k"] = "v4"
	w.must(w.s.Update(admin, blind, ""))

	// Custom resources do not (customResourceStrategy.AllowUnconditionalUpdate).
	x := widget("x")
	w.must(w.s.Create(admin, x))
	x.ResourceVersion = ""
	x.Spec.Size = 2
	wantReason(t, w.s.Update(admin, x, ""), metav1.StatusReasonInvalid,
		`widgets.test.ctrlsim.dev "x" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`)

	// The object's uid is a precondition of Update.
	other := c.DeepCopy()
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(c), other))
	other.UID = "someone-else"
	wantReason(t, w.s.Update(admin, other, ""), metav1.StatusReasonConflict, "")
}

func TestNoOpUpdateWritesNothing(t *testing.T) {
	w := newWorld(t)
	c := cm("c")
	w.must(w.s.Create(admin, c))
	rv, events := c.ResourceVersion, len(w.s.Log())
	w.must(w.s.Update(admin, c, ""))
	if c.ResourceVersion != rv || len(w.s.Log()) != events {
		t.Errorf("an update that changes nothing keeps the resourceVersion and makes no watch event (rv %s -> %s)", rv, c.ResourceVersion)
	}
}

func TestFinalizersHoldDeletion(t *testing.T) {
	w := newWorld(t)
	x := widget("x")
	x.Finalizers = []string{"test.ctrlsim.dev/cleanup"}
	w.must(w.s.Create(admin, x))
	w.clock.Step(time.Minute)
	w.must(w.s.Delete(admin, x, nil))
	got := &apiservertest.Widget{}
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(x), got))
	if got.DeletionTimestamp == nil || !got.DeletionTimestamp.Time.Equal(clock.Epoch.Add(time.Minute)) {
		t.Fatalf("delete with a finalizer sets deletionTimestamp to now, got %v", got.DeletionTimestamp)
	}
	if got.Generation != 2 || *got.DeletionGracePeriodSeconds != 0 {
		t.Errorf("marking as deleting bumps generation and sets grace 0 (registry.markAsDeleting): gen %d", got.Generation)
	}

	rv := got.ResourceVersion
	w.must(w.s.Delete(admin, got, nil))
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(x), got))
	if got.ResourceVersion != rv {
		t.Error("deleting an object that is already being deleted changes nothing")
	}

	got.Finalizers = append(got.Finalizers, "late")
	wantReason(t, w.s.Update(admin, got, ""), metav1.StatusReasonInvalid,
		`Widget.test.ctrlsim.dev "x" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"late"}`)

	w.must(w.s.Get(admin, client.ObjectKeyFromObject(x), got))
	got.Finalizers = nil
	w.must(w.s.Update(admin, got, ""))
	answered := got.ResourceVersion
	err := w.s.Get(admin, client.ObjectKeyFromObject(x), got)
	wantReason(t, err, metav1.StatusReasonNotFound, `widgets.test.ctrlsim.dev "x" not found`)
	log := w.s.Log()
	last, before := log[len(log)-1], log[len(log)-2]
	if last.Type != watch.Deleted || last.Object.GetName() != "x" {
		t.Fatalf("removing the last finalizer deletes the object: last event %v %s", last.Type, last.Object.GetName())
	}
	// The update is not written: the Deleted event carries the last stored state
	// (finalizers and all) with the deletion's resourceVersion.
	if f := last.Object.GetFinalizers(); len(f) != 1 || f[0] != "test.ctrlsim.dev/cleanup" || last.Object.GetDeletionTimestamp() == nil {
		t.Errorf("the Deleted event carries the last stored state, got finalizers %v", f)
	}
	if last.Object.GetResourceVersion() != strconv.FormatUint(last.ResourceVersion, 10) || last.ResourceVersion <= before.ResourceVersion {
		t.Errorf("the Deleted event carries the deletion's resourceVersion, got %s (event %d, previous %d)",
			last.Object.GetResourceVersion(), last.ResourceVersion, before.ResourceVersion)
	}
	if answered != before.Object.GetResourceVersion() {
		t.Errorf("the update's answer carries the last stored resourceVersion %s, got %s", before.Object.GetResourceVersion(), answered)
	}
}

func TestPropagationPolicies(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		policy    metav1.DeletionPropagation
		finalizer string
	}{
		{metav1.DeletePropagationForeground, metav1.FinalizerDeleteDependents},
		{metav1.DeletePropagationOrphan, metav1.FinalizerOrphanDependents},
	} {
		c := cm(strings.ToLower(string(tc.policy)))
		w.must(w.s.Create(admin, c))
		w.must(w.s.Delete(admin, c, &client.DeleteOptions{PropagationPolicy: &tc.policy}))
		got := &corev1.ConfigMap{}
		w.must(w.s.Get(admin, client.ObjectKeyFromObject(c), got))
		if got.DeletionTimestamp == nil || len(got.Finalizers) != 1 || got.Finalizers[0] != tc.finalizer {
			t.Errorf("%s deletion leaves the object with finalizer %s for the garbage collector, got %v", tc.policy, tc.finalizer, got.Finalizers)
		}
	}
	bg := metav1.DeletePropagationBackground
	c := cm("background")
	w.must(w.s.Create(admin, c))
	w.must(w.s.Delete(admin, c, &client.DeleteOptions{PropagationPolicy: &bg}))
	wantReason(t, w.s.Get(admin, client.ObjectKeyFromObject(c), c), metav1.StatusReasonNotFound, "")
}

func TestDeletePreconditions(t *testing.T) {
	w := newWorld(t)
	c := cm("c")
	w.must(w.s.Create(admin, c))
	wantReason(t, w.s.Delete(admin, c, &client.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}}),
		metav1.StatusReasonConflict, "")
	wantReason(t, w.s.Delete(admin, c, &client.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("u"))}}),
		metav1.StatusReasonConflict, "")
	w.must(w.s.Delete(admin, c, &client.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &c.UID}}))
	wantReason(t, w.s.Delete(admin, c, nil), metav1.StatusReasonNotFound, `configmaps "c" not found`)
}

// A delete whose propagation policy removes the last finalizer of a deleting object
// (the orphan or foregroundDeletion finalizer an earlier delete added, which no
// garbage collector removed) deletes it, but fails a resourceVersion precondition
// even when the precondition is the stored resourceVersion: the generic registry
// checks it early (rest.BeforeDelete), then replaces it with the resourceVersion of
// an update it did not make, "", before the storage delete
// (registry/generic/registry/store.go Delete after updateForGracefulDeletionAndFinalizers
// returns errDeleteNow), whose precondition check fails with a storage error (409).
// A uid precondition is kept and holds. Every kind deletes through that path, and a
// namespace too once it is finalized.
func TestDeleteThatRemovesTheLastFinalizerFailsAResourceVersionPrecondition(t *testing.T) {
	w := newWorld(t)
	orphan, foreground, background := metav1.DeletePropagationOrphan, metav1.DeletePropagationForeground, metav1.DeletePropagationBackground
	deleting := func(o client.Object, policy *metav1.DeletionPropagation) {
		t.Helper()
		w.must(w.s.Create(admin, o))
		w.must(w.s.Delete(admin, o, &client.DeleteOptions{PropagationPolicy: policy}))
		w.must(w.s.Get(admin, client.ObjectKeyFromObject(o), o))
		if o.GetDeletionTimestamp() == nil || len(o.GetFinalizers()) != 1 {
			t.Fatalf("%s: the first delete leaves the object deleting with the policy's finalizer, got %v", o.GetName(), o.GetFinalizers())
		}
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r"}}
	for _, tc := range []struct {
		obj   client.Object
		first *metav1.DeletionPropagation
		msg   string
	}{
		{cm("c"), &orphan, `Operation cannot be fulfilled on configmaps "c": StorageError: invalid object, Code: 4, Key: /registry/configmaps/ns/c, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: %s`},
		{role, &foreground, `Operation cannot be fulfilled on roles.rbac.authorization.k8s.io "r": StorageError: invalid object, Code: 4, Key: /registry/roles/ns/r, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: %s`},
		{widget("w"), &orphan, `Operation cannot be fulfilled on widgets.test.ctrlsim.dev "w": StorageError: invalid object, Code: 4, Key: /registry/test.ctrlsim.dev/widgets/ns/w, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: %s`},
	} {
		o := tc.obj
		deleting(o, tc.first)
		rv := o.GetResourceVersion()
		err := w.s.Delete(admin, o, &client.DeleteOptions{PropagationPolicy: &background, Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
		wantReason(t, err, metav1.StatusReasonConflict, fmt.Sprintf(tc.msg, rv))
		if d := err.(apierrors.APIStatus).Status().Details; d == nil || d.Name != o.GetName() || d.Kind == "" {
			t.Errorf("%s: the conflict names the object, got details %+v", o.GetName(), d)
		}
		w.must(w.s.Get(admin, client.ObjectKeyFromObject(o), o))
		if o.GetResourceVersion() != rv {
			t.Errorf("%s: the refused delete writes nothing", o.GetName())
		}
		// Without a policy the finalizer stays, and so does the object: the
		// precondition holds.
		w.must(w.s.Delete(admin, o, &client.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}))
		// A uid precondition alone holds, and the object is gone.
		uid := o.GetUID()
		w.must(w.s.Delete(admin, o, &client.DeleteOptions{PropagationPolicy: &background, Preconditions: &metav1.Preconditions{UID: &uid}}))
		wantReason(t, w.s.Get(admin, client.ObjectKeyFromObject(o), o), metav1.StatusReasonNotFound, "")
	}

	// A finalized namespace with the orphan finalizer is deleted by the generic store.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}
	deleting(ns, &orphan)
	ns.Spec.Finalizers = nil
	w.must(w.s.Update(admin, ns, "finalize"))
	rv := ns.ResourceVersion
	wantReason(t, w.s.Delete(admin, ns, &client.DeleteOptions{PropagationPolicy: &background, Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}),
		metav1.StatusReasonConflict, `Operation cannot be fulfilled on namespaces "gone": StorageError: invalid object, Code: 4, Key: /registry/namespaces/gone, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: `+rv)
	w.must(w.s.Delete(admin, ns, &client.DeleteOptions{PropagationPolicy: &background}))
	wantReason(t, w.s.Get(admin, client.ObjectKeyFromObject(ns), ns), metav1.StatusReasonNotFound, "")
}

func TestNamespaceLifecycle(t *testing.T) {
	w := newWorld(t)
	ns := &corev1.Namespace{}
	w.must(w.s.Get(admin, client.ObjectKey{Name: "ns"}, ns))
	if ns.Status.Phase != corev1.NamespaceActive || len(ns.Spec.Finalizers) != 1 || ns.Spec.Finalizers[0] != corev1.FinalizerKubernetes {
		t.Fatalf("a new namespace is Active with the kubernetes finalizer: %+v %+v", ns.Spec, ns.Status)
	}
	if ns.Labels[corev1.LabelMetadataName] != "ns" {
		t.Errorf("namespaces are labelled with their name, got %v", ns.Labels)
	}
	w.must(w.s.Create(admin, cm("before")))

	w.must(w.s.Delete(admin, ns, nil))
	w.must(w.s.Get(admin, client.ObjectKey{Name: "ns"}, ns))
	if ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Fatalf("a deleted namespace is Terminating until its finalizers are done: %+v", ns.Status)
	}

	err := w.s.Create(admin, cm("after"))
	wantReason(t, err, metav1.StatusReasonForbidden,
		`configmaps "after" is forbidden: unable to create new content in namespace ns because it is being terminated`)
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Type != corev1.NamespaceTerminatingCause || causes[0].Field != "metadata.namespace" {
		t.Errorf("the Forbidden error carries the NamespaceTerminating cause, got %+v", causes)
	}

	before := cm("before")
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(before), before))
	before.Data["k"] = "updated"
	w.must(w.s.Update(admin, before, "")) // updates in a terminating namespace are allowed
	w.must(w.s.Delete(admin, before, nil))

	// The namespace controller finalizes: the namespace is gone.
	ns.Spec.Finalizers = nil
	w.must(w.s.Update(admin, ns, "finalize"))
	wantReason(t, w.s.Get(admin, client.ObjectKey{Name: "ns"}, ns), metav1.StatusReasonNotFound, `namespaces "ns" not found`)

	def := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	wantReason(t, w.s.Delete(admin, def, nil), metav1.StatusReasonForbidden, `namespaces "default" is forbidden: this namespace may not be deleted`)
}

func TestNamespaceUpdateCannotRemoveSpecFinalizers(t *testing.T) {
	w := newWorld(t)
	ns := &corev1.Namespace{}
	w.must(w.s.Get(admin, client.ObjectKey{Name: "ns"}, ns))
	ns.Spec.Finalizers = nil
	w.must(w.s.Update(admin, ns, ""))
	if len(ns.Spec.Finalizers) != 1 {
		t.Errorf("only the finalize subresource changes spec.finalizers, got %v", ns.Spec.Finalizers)
	}
}

func TestRBAC(t *testing.T) {
	w := newWorld(t)
	sa := apiserver.ServiceAccount("ns", "ctrl")
	c := cm("c")
	w.must(w.s.Create(admin, c))
	err := w.s.Get(sa, client.ObjectKeyFromObject(c), &corev1.ConfigMap{})
	wantReason(t, err, metav1.StatusReasonForbidden,
		`configmaps "c" is forbidden: User "system:serviceaccount:ns:ctrl" cannot get resource "configmaps" in API group "" in the namespace "ns"`)

	w.must(w.s.Create(admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}}}))
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "cm"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "ctrl", Namespace: "ns"}}}
	w.must(w.s.Create(admin, rb))
	w.must(w.s.Get(sa, client.ObjectKeyFromObject(c), &corev1.ConfigMap{}))
	wantReason(t, w.s.Delete(sa, c, nil), metav1.StatusReasonForbidden, "")

	w.must(w.s.Delete(admin, rb, nil)) // RBAC loss: the next request is denied
	wantReason(t, w.s.Get(sa, client.ObjectKeyFromObject(c), &corev1.ConfigMap{}), metav1.StatusReasonForbidden, "")
}

func TestPatch(t *testing.T) {
	w := newWorld(t)
	x := widget("x")
	w.must(w.s.Create(admin, x))
	w.must(w.s.Patch(admin, x, types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), ""))
	if x.Spec.Color != "blue" || x.Spec.Size != 1 || x.Generation != 2 {
		t.Errorf("merge patch merges into the stored object and bumps generation: %+v gen %d", x.Spec, x.Generation)
	}
	w.must(w.s.Patch(admin, x, types.MergePatchType, []byte(`{"status":{"phase":"Ready"},"spec":{"size":5}}`), "status"))
	if x.Status.Phase != "Ready" || x.Spec.Size != 1 {
		t.Errorf("a status patch changes only status: %+v %+v", x.Spec, x.Status)
	}
	w.must(w.s.Patch(admin, x, types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":7}]`), ""))
	if x.Spec.Size != 7 {
		t.Errorf("json patch replace: size %d", x.Spec.Size)
	}
	err := w.s.Patch(admin, x, types.StrategicMergePatchType, []byte(`{"spec":{"size":8}}`), "")
	wantReason(t, err, metav1.StatusReasonUnsupportedMediaType, "")
	err = w.s.Patch(admin, x, types.MergePatchType, []byte(`{not json`), "")
	wantReason(t, err, metav1.StatusReasonBadRequest, "")
	err = w.s.Patch(admin, x, types.MergePatchType, []byte(`{"metadata":{"resourceVersion":"1"},"spec":{"size":9}}`), "")
	wantReason(t, err, metav1.StatusReasonConflict, "")

	d := deployment("d")
	w.must(w.s.Create(admin, d))
	w.must(w.s.Patch(admin, d, types.StrategicMergePatchType, []byte(`{"metadata":{"finalizers":["a/b"]}}`), ""))
	if len(d.Finalizers) != 1 {
		t.Errorf("strategic merge patch on a built-in type: finalizers %v", d.Finalizers)
	}
	wantReason(t, w.s.Patch(admin, cm("missing"), types.MergePatchType, []byte(`{}`), ""), metav1.StatusReasonNotFound, "")
}

func TestListOrderSelectorsAndPaging(t *testing.T) {
	w := newWorld(t)
	for _, n := range []string{"a", "a-b"} {
		w.must(w.s.Create(admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}))
	}
	for _, key := range [][2]string{{"a", "z"}, {"a-b", "y"}, {"a", "m"}, {"ns", "b"}} {
		o := cm(key[1])
		o.Namespace = key[0]
		o.Labels = map[string]string{"team": key[0]}
		w.must(w.s.Create(admin, o))
	}
	names := func(l *corev1.ConfigMapList) string {
		var out []string
		for _, i := range l.Items {
			out = append(out, i.Namespace+"/"+i.Name)
		}
		return strings.Join(out, " ")
	}
	all := &corev1.ConfigMapList{}
	w.must(w.s.List(admin, all, nil))
	if got, want := names(all), "a-b/y a/m a/z ns/b"; got != want {
		t.Errorf("list order is etcd key order (namespace/name as a string): got %q want %q", got, want)
	}
	if all.ResourceVersion == "" {
		t.Error("a list carries the resourceVersion of its snapshot")
	}
	inA := &corev1.ConfigMapList{}
	w.must(w.s.List(admin, inA, &client.ListOptions{Namespace: "a"}))
	if got := names(inA); got != "a/m a/z" {
		t.Errorf("namespace scoping: %q", got)
	}
	sel := &corev1.ConfigMapList{}
	w.must(w.s.List(admin, sel, &client.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"team": "ns"})}))
	if got := names(sel); got != "ns/b" {
		t.Errorf("label selector: %q", got)
	}
	byName := &corev1.ConfigMapList{}
	w.must(w.s.List(admin, byName, listOpts(client.MatchingFields{"metadata.name": "m"})))
	if got := names(byName); got != "a/m" {
		t.Errorf("field selector metadata.name: %q", got)
	}
	err := w.s.List(admin, &corev1.ConfigMapList{}, listOpts(client.MatchingFields{"data.k": "v"}))
	wantReason(t, err, metav1.StatusReasonBadRequest, "field label not supported: data.k")

	page := &corev1.ConfigMapList{}
	w.must(w.s.List(admin, page, &client.ListOptions{Limit: 3}))
	rest := &corev1.ConfigMapList{}
	w.must(w.s.List(admin, rest, &client.ListOptions{Limit: 3, Continue: page.Continue}))
	if names(page) != "a-b/y a/m a/z" || names(rest) != "ns/b" || rest.Continue != "" {
		t.Errorf("paging: %q then %q (continue %q)", names(page), names(rest), rest.Continue)
	}
}

func TestWatchLog(t *testing.T) {
	w := newWorld(t)
	var got []apiserver.Event
	stop := w.s.Watcher().Watch(apiservertest.WidgetGVK, func(e apiserver.Event) { got = append(got, e) })
	x := widget("x")
	w.must(w.s.Create(admin, x))
	w.must(w.s.Create(admin, cm("ignored-kind")))
	x.Spec.Size = 3
	w.must(w.s.Update(admin, x, ""))
	w.must(w.s.Delete(admin, x, nil))
	stop()
	w.must(w.s.Create(admin, widget("after-stop")))

	want := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}
	if len(got) != len(want) {
		t.Fatalf("want %d events of the watched kind, got %d", len(want), len(got))
	}
	for i, e := range got {
		if e.Type != want[i] {
			t.Errorf("event %d: %s, want %s", i, e.Type, want[i])
		}
		if e.Object.GetResourceVersion() == "" || (i > 0 && e.ResourceVersion <= got[i-1].ResourceVersion) {
			t.Errorf("events come in increasing resourceVersion order")
		}
	}
	if del := got[2].Object.(*apiservertest.Widget); del.Spec.Size != 3 {
		t.Errorf("a Deleted event carries the last state of the object, got size %d", del.Spec.Size)
	}
	objs, rv := w.s.Watcher().List(apiservertest.WidgetGVK)
	if len(objs) != 1 || rv != w.s.ResourceVersion() {
		t.Errorf("watcher list: %d objects at rv %d", len(objs), rv)
	}
}

func TestInjectedFaults(t *testing.T) {
	w := newWorld(t)
	x := widget("x")
	w.must(w.s.Create(admin, x))
	remove := w.s.InjectFault(apiserver.Fault{Verb: "patch", Resource: "widgets", Name: "x", Code: 422, Field: "status.progress", Message: "bad value"})
	for range 2 {
		err := w.s.Patch(admin, x, types.MergePatchType, []byte(`{"spec":{"size":2}}`), "")
		wantReason(t, err, metav1.StatusReasonInvalid, `Widget.test.ctrlsim.dev "x" is invalid: status.progress: Invalid value: null: bad value`)
	}
	w.must(w.s.Update(admin, x, "")) // other verbs are not affected
	remove()
	w.must(w.s.Patch(admin, x, types.MergePatchType, []byte(`{"spec":{"size":2}}`), ""))

	w.s.InjectFault(apiserver.Fault{Verb: "get", Code: 503, Count: 1})
	wantReason(t, w.s.Get(admin, client.ObjectKeyFromObject(x), x), metav1.StatusReasonServiceUnavailable, "")
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(x), x)) // Count: 1

	w.s.InjectFault(apiserver.Fault{Verb: "create", Ambiguous: true, Count: 1})
	err := w.s.Create(admin, cm("maybe"))
	wantReason(t, err, metav1.StatusReasonTimeout, "")
	w.must(w.s.Get(admin, client.ObjectKey{Namespace: "ns", Name: "maybe"}, &corev1.ConfigMap{})) // it was applied
}

func TestDeleteAllOf(t *testing.T) {
	w := newWorld(t)
	for _, n := range []string{"a", "b", "c"} {
		o := cm(n)
		o.Labels = map[string]string{"del": map[bool]string{true: "yes", false: "no"}[n != "b"]}
		w.must(w.s.Create(admin, o))
	}
	w.must(w.s.DeleteAllOf(admin, &corev1.ConfigMap{}, &client.DeleteAllOfOptions{ListOptions: client.ListOptions{
		Namespace: "ns", LabelSelector: labels.SelectorFromSet(labels.Set{"del": "yes"})}}))
	l := &corev1.ConfigMapList{}
	w.must(w.s.List(admin, l, nil))
	if len(l.Items) != 1 || l.Items[0].Name != "b" {
		t.Errorf("deletecollection deletes exactly the selected objects: %d left", len(l.Items))
	}
}

func TestGetCopiesAreIndependent(t *testing.T) {
	w := newWorld(t)
	c := cm("c")
	w.must(w.s.Create(admin, c))
	c.Data["k"] = "mutated locally"
	got := &corev1.ConfigMap{}
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(c), got))
	if got.Data["k"] != "v" {
		t.Error("objects are deep-copied in and out of the server")
	}
	got.Data["k"] = "again"
	objs, _ := w.s.Watcher().List(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if objs[0].(*corev1.ConfigMap).Data["k"] != "v" {
		t.Error("mutating a Get result must not change the store")
	}
}

func listOpts(opts ...client.ListOption) *client.ListOptions {
	return (&client.ListOptions{}).ApplyOptions(opts)
}

func TestRBACNamespaceRequestsAreInTheirNamespace(t *testing.T) {
	w := newWorld(t)
	sa := apiserver.ServiceAccount("ns", "ctrl")
	w.must(w.s.Create(admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "self"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get"}}}}))
	w.must(w.s.Create(admin, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "self"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "self"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "ctrl", Namespace: "ns"}}}))
	// A request for namespaces/ns is authorized in namespace ns (apiserver RequestInfo).
	w.must(w.s.Get(sa, client.ObjectKey{Name: "ns"}, &corev1.Namespace{}))
	wantReason(t, w.s.Get(sa, client.ObjectKey{Name: "default"}, &corev1.Namespace{}), metav1.StatusReasonForbidden,
		`namespaces "default" is forbidden: User "system:serviceaccount:ns:ctrl" cannot get resource "namespaces" in API group "" in the namespace "default"`)
}

func TestRBACNamesArePathSegments(t *testing.T) {
	w := newWorld(t)
	// pkg/apis/rbac/validation ValidateRBACName accepts any path segment.
	w.must(w.s.Create(admin, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "configsync.gke.io:ns-reconciler"}}))
	err := w.s.Create(admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a/b"}})
	wantReason(t, err, metav1.StatusReasonInvalid, "")
	err = w.s.Create(admin, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "configsync.gke.io:x"}})
	wantReason(t, err, metav1.StatusReasonInvalid, "") // other kinds stay DNS subdomains
}

// Timestamps read back with the precision of their serialization: metav1.Time in
// whole seconds, wherever it is in the object.
func TestTimestampsHaveSerializedPrecision(t *testing.T) {
	w := newWorld(t)
	at := metav1.NewTime(clock.Epoch.Add(1456 * time.Millisecond))
	d := deployment("d")
	w.must(w.s.Create(admin, d))
	d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: at, LastTransitionTime: at}}
	w.must(w.s.Update(admin, d, "status"))
	got := &appsv1.Deployment{}
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(d), got))
	if want := clock.Epoch.Add(time.Second); !got.Status.Conditions[0].LastUpdateTime.Time.Equal(want) {
		t.Errorf("a status timestamp reads back as %v, want %v (RFC 3339 seconds)", got.Status.Conditions[0].LastUpdateTime.Time, want)
	}
}
