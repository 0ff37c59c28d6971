package apiserver_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

var dryRun = apiserver.WriteOptions{DryRun: []string{metav1.DryRunAll}}

// A dry-run write is admitted, validated and answered as the write would
// be, and stores nothing: no resourceVersion is spent and the watch log
// gains no event. A create answers the object as it would be stored (a
// uid, a generated name, no resourceVersion); an update, a patch and an
// apply answer the changed object at the stored resourceVersion; a delete
// deletes nothing, even of an object no finalizer holds.
func TestADryRunWriteIsAnsweredAndStoresNothing(t *testing.T) {
	w := newWorld(t)
	held := cm("held")
	held.Finalizers = []string{"example.com/hold"}
	w.must(w.s.Create(admin, cm("a")))
	w.must(w.s.Create(admin, held))
	rv, events := w.s.ResourceVersion(), len(w.s.Log())
	unchanged := func(what string) {
		t.Helper()
		if w.s.ResourceVersion() != rv || len(w.s.Log()) != events {
			t.Fatalf("%s: the server is at resourceVersion %d with %d events, want %d and %d (nothing stored)", what, w.s.ResourceVersion(), len(w.s.Log()), rv, events)
		}
	}

	b := cm("b")
	w.must(w.s.CreateWith(admin, b, dryRun))
	unchanged("a dry-run create")
	if b.UID == "" || b.CreationTimestamp.IsZero() || b.ResourceVersion != "" {
		t.Errorf("a dry-run create answered uid %q, created %v, resourceVersion %q: want a uid, a time and no resourceVersion", b.UID, b.CreationTimestamp, b.ResourceVersion)
	}
	if err := w.s.Get(admin, client.ObjectKeyFromObject(b), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("the dry-run created ConfigMap is read back: %v, want NotFound", err)
	}
	g := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: "g-"}}
	w.must(w.s.CreateWith(admin, g, dryRun))
	if len(g.Name) <= len("g-") {
		t.Errorf("a dry-run create by generateName answered the name %q, want one generated", g.Name)
	}
	if err := w.s.CreateWith(admin, cm("a"), dryRun); !apierrors.IsAlreadyExists(err) {
		t.Errorf("a dry-run create of an existing name: %v, want AlreadyExists", err)
	}
	unchanged("dry-run creates")

	a := &corev1.ConfigMap{}
	w.must(w.s.Get(admin, client.ObjectKey{Namespace: "ns", Name: "a"}, a))
	stored := a.ResourceVersion
	a.Data = map[string]string{"k": "updated"}
	w.must(w.s.UpdateWith(admin, a, "", dryRun))
	if a.Data["k"] != "updated" || a.ResourceVersion != stored {
		t.Errorf("a dry-run update answered data %v at resourceVersion %q, want the new data at the stored %q", a.Data, a.ResourceVersion, stored)
	}
	p := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	w.must(w.s.PatchWith(admin, p, types.MergePatchType, []byte(`{"data":{"k":"patched"}}`), "", dryRun))
	if p.Data["k"] != "patched" || p.ResourceVersion != stored {
		t.Errorf("a dry-run patch answered data %v at resourceVersion %q, want the patched data at the stored %q", p.Data, p.ResourceVersion, stored)
	}
	ap := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	applied := apiserver.WriteOptions{FieldManager: "op", DryRun: dryRun.DryRun}
	w.must(w.s.PatchWith(admin, ap, types.ApplyYAMLPatchType, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"},"data":{"x":"y"}}`), "", applied))
	if ap.Data["x"] != "y" || ap.ResourceVersion != stored || !managedBy(ap, "op") {
		t.Errorf("a dry-run apply answered data %v at resourceVersion %q managed by %v, want x=y at the stored %q, managed by op", ap.Data, ap.ResourceVersion, ap.ManagedFields, stored)
	}
	missing := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "missing"}}
	w.must(w.s.PatchWith(admin, missing, types.ApplyYAMLPatchType, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"missing","namespace":"ns"}}`), "", applied))
	if missing.UID == "" || missing.ResourceVersion != "" {
		t.Errorf("a dry-run apply of a missing object answered uid %q, resourceVersion %q: want it as created, no resourceVersion", missing.UID, missing.ResourceVersion)
	}
	unchanged("dry-run updates, patches and applies")

	all := &client.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	w.must(w.s.Delete(admin, cm("a"), all))
	w.must(w.s.Delete(admin, cm("held"), all))
	w.must(w.s.DeleteAllOf(admin, &corev1.ConfigMap{}, &client.DeleteAllOfOptions{ListOptions: client.ListOptions{Namespace: "ns"}, DeleteOptions: *all}))
	unchanged("dry-run deletes")
	for _, name := range []string{"a", "held"} {
		got := &corev1.ConfigMap{}
		w.must(w.s.Get(admin, client.ObjectKey{Namespace: "ns", Name: name}, got))
		if got.DeletionTimestamp != nil {
			t.Errorf("ConfigMap %s is deleting after a dry-run delete", name)
		}
	}
}

// A dry run is still judged: a write the server would refuse is refused,
// and a dryRun value other than All is refused as kube-apiserver's option
// validation refuses it.
func TestADryRunIsJudgedAndOnlyAllIsServed(t *testing.T) {
	w := newWorld(t)
	bad := cm("Not_A_Name")
	if err := w.s.CreateWith(admin, bad, dryRun); !apierrors.IsInvalid(err) {
		t.Errorf("a dry-run create of an invalid name: %v, want it refused as the create is", err)
	}
	wantReason(t, w.s.CreateWith(admin, cm("c"), apiserver.WriteOptions{DryRun: []string{"Foo"}}), metav1.StatusReasonInvalid,
		`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Foo"]: supported values: "All"`)
	w.must(w.s.Create(admin, cm("c")))
	wantReason(t, w.s.Delete(admin, cm("c"), &client.DeleteOptions{DryRun: []string{"Foo"}}), metav1.StatusReasonInvalid,
		`DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Foo"]: supported values: "All"`)
}

func managedBy(o client.Object, manager string) bool {
	for _, e := range o.GetManagedFields() {
		if e.Manager == manager {
			return true
		}
	}
	return false
}
