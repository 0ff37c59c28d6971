package apiserver_test

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// crdOnlyServer serves Widget from its manifest alone: the scheme has no Go type for it.
func crdOnlyServer(t *testing.T) *apiserver.Server {
	t.Helper()
	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest))
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: crds})
	s.CreateDefaultNamespaces()
	return s
}

func uWidget(name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(apiservertest.WidgetGVK)
	u.SetNamespace("default")
	u.SetName(name)
	return u
}

func uKey(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(apiservertest.WidgetGVK)
	u.SetNamespace("default")
	u.SetName(name)
	return u
}

// A kind that only a CRD defines is served as unstructured JSON: stored with its
// apiVersion/kind, defaulted, pruned and validated by its schema, numbers as JSON
// decodes them, status dropped on create, generation as the custom resource
// strategy keeps it.
func TestACRDOnlyKindIsServedUnstructured(t *testing.T) {
	s := crdOnlyServer(t)
	k, ok := s.KindFor(apiservertest.WidgetGVK)
	if !ok || !k.Unstructured() || !k.Custom {
		t.Fatalf("Widget served as %+v, want an unstructured custom resource", k)
	}
	w := uWidget("w", map[string]any{"size": 3, "unknown": "x"})
	w.Object["status"] = map[string]any{"phase": "Ready"}
	if err := s.Create(apiserver.Admin, w); err != nil {
		t.Fatal(err)
	}
	if w.GetAPIVersion() != "test.ctrlsim.dev/v1" || w.GetKind() != "Widget" {
		t.Errorf("create answered apiVersion %q kind %q, want the kind's", w.GetAPIVersion(), w.GetKind())
	}
	spec, _, _ := unstructured.NestedMap(w.Object, "spec")
	if spec["size"] != int64(3) || spec["color"] != "blue" || spec["unknown"] != nil {
		t.Errorf("stored spec %v, want size int64 3, the default color blue, unknown pruned", spec)
	}
	if _, has := w.Object["status"]; has {
		t.Errorf("create kept status %v; the status subresource drops it", w.Object["status"])
	}
	if w.GetGeneration() != 1 || w.GetUID() == "" || w.GetResourceVersion() == "" {
		t.Errorf("metadata %v", w.Object["metadata"])
	}

	err := s.Create(apiserver.Admin, uWidget("bad", map[string]any{"size": 11}))
	if want := `Widget.test.ctrlsim.dev "bad" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`; err == nil || err.Error() != want {
		t.Errorf("invalid create: %v, want %s", err, want)
	}

	got := uKey("w")
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(got), got); err != nil {
		t.Fatal(err)
	}
	if got.GetResourceVersion() != w.GetResourceVersion() || got.GetKind() != "Widget" {
		t.Errorf("get: %v", got.Object)
	}

	// Update: resourceVersion required (422), stale (409), status kept; a spec
	// change bumps the generation.
	up := got.DeepCopy()
	up.SetResourceVersion("")
	if err := s.Update(apiserver.Admin, up, ""); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "must be specified for an update") {
		t.Errorf("update without resourceVersion: %v", err)
	}
	up = got.DeepCopy()
	up.SetResourceVersion("1")
	if err := s.Update(apiserver.Admin, up, ""); !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v", err)
	}
	up = got.DeepCopy()
	_ = unstructured.SetNestedField(up.Object, int64(4), "spec", "size")
	if err := s.Update(apiserver.Admin, up, ""); err != nil {
		t.Fatal(err)
	}
	if up.GetGeneration() != 2 {
		t.Errorf("generation %d after a spec change, want 2", up.GetGeneration())
	}
	same := up.DeepCopy()
	if err := s.Update(apiserver.Admin, same, ""); err != nil || same.GetResourceVersion() != up.GetResourceVersion() {
		t.Errorf("a no-op update wrote: %v %s -> %s", err, up.GetResourceVersion(), same.GetResourceVersion())
	}

	// Status: only status changes, generation stays, the schema applies.
	st := up.DeepCopy()
	_ = unstructured.SetNestedField(st.Object, "Bogus", "status", "phase")
	if err := s.Update(apiserver.Admin, st, "status"); err == nil || !strings.Contains(err.Error(), `status.phase: Unsupported value: "Bogus"`) {
		t.Errorf("bad status: %v", err)
	}
	_ = unstructured.SetNestedField(st.Object, "Ready", "status", "phase")
	_ = unstructured.SetNestedField(st.Object, int64(9), "spec", "size") // ignored by the status subresource
	if err := s.Update(apiserver.Admin, st, "status"); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(st.Object, "spec", "size"); size != 4 || st.GetGeneration() != 2 {
		t.Errorf("status write changed spec.size to %d, generation %d", size, st.GetGeneration())
	}

	// Patches: merge and JSON patch; strategic merge is 415 as for any custom resource.
	p := uKey("w")
	if err := s.Patch(apiserver.Admin, p, types.MergePatchType, []byte(`{"spec":{"color":"red"}}`), ""); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(p.Object, "spec", "color"); c != "red" || p.GetGeneration() != 3 {
		t.Errorf("merge patch: color %q generation %d", c, p.GetGeneration())
	}
	if err := s.Patch(apiserver.Admin, p, types.JSONPatchType, []byte(`[{"op":"replace","path":"/status/phase","value":"Stamped"}]`), "status"); err != nil {
		t.Fatal(err)
	}
	if ph, _, _ := unstructured.NestedString(p.Object, "status", "phase"); ph != "Stamped" {
		t.Errorf("JSON patch of status: phase %q", ph)
	}
	if err := s.Patch(apiserver.Admin, p, types.StrategicMergePatchType, []byte(`{}`), ""); !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch of a custom resource: %v", err)
	}
	if err := s.Patch(apiserver.Admin, p, types.MergePatchType, []byte(`{"metadata":{"resourceVersion":"2"},"spec":{"size":1}}`), ""); !apierrors.IsConflict(err) {
		t.Errorf("merge patch with a stale resourceVersion: %v", err)
	}

	// List: items with apiVersion/kind, the list kind WidgetList.
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(apiservertest.GroupVersion.WithKind("WidgetList"))
	if err := s.List(apiserver.Admin, list, &client.ListOptions{Namespace: "default"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].GetKind() != "Widget" || list.GetKind() != "WidgetList" || list.GetResourceVersion() == "" {
		t.Errorf("list: %d items, kind %q, %v", len(list.Items), list.GetKind(), list.Object)
	}

	// Delete with a finalizer: marked, then gone when the finalizer goes.
	f := uKey("w")
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(f), f); err != nil {
		t.Fatal(err)
	}
	f.SetFinalizers([]string{"test.ctrlsim.dev/hold"})
	if err := s.Update(apiserver.Admin, f, ""); err != nil {
		t.Fatal(err)
	}
	rv := f.GetResourceVersion()
	stale := "1"
	if err := s.Delete(apiserver.Admin, uKey("w"), &client.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &stale}}); !apierrors.IsConflict(err) {
		t.Errorf("delete with a stale precondition: %v", err)
	}
	if err := s.Delete(apiserver.Admin, uKey("w"), &client.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(f), f); err != nil || f.GetDeletionTimestamp() == nil {
		t.Fatalf("after delete with a finalizer: %v %v", err, f.GetDeletionTimestamp())
	}
	f.SetFinalizers(nil)
	if err := s.Update(apiserver.Admin, f, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(f), uKey("w")); !apierrors.IsNotFound(err) || err.Error() != `widgets.test.ctrlsim.dev "w" not found` {
		t.Errorf("after the last finalizer: %v", err)
	}
	log := s.Log()
	last := log[len(log)-1]
	if last.Type != watch.Deleted || last.GVK != apiservertest.WidgetGVK {
		t.Errorf("last watch event %s %v", last.Type, last.GVK)
	}
	if _, ok := last.Object.(*unstructured.Unstructured); !ok {
		t.Errorf("watch event object %T, want *unstructured.Unstructured", last.Object)
	}
}

// Unstructured requests name their kind: no apiVersion/kind is runtime's error,
// a kind no CRD serves the RESTMapper's, and malformed metadata the handler's 400.
func TestUnstructuredRequestErrors(t *testing.T) {
	s := crdOnlyServer(t)
	if err := s.Create(apiserver.Admin, &unstructured.Unstructured{Object: map[string]any{}}); err == nil || !runtime.IsMissingKind(err) {
		t.Errorf("no kind: %v", err)
	}
	other := uWidget("x", nil)
	other.SetKind("Gadget")
	if err := s.Create(apiserver.Admin, other); !meta.IsNoMatchError(err) {
		t.Errorf("unserved kind: %v", err)
	}
	bad := uWidget("x", map[string]any{})
	bad.Object["metadata"].(map[string]any)["labels"] = "not-a-map"
	if err := s.Create(apiserver.Admin, bad); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "Widget in version \"v1\" cannot be handled as a Widget") {
		t.Errorf("malformed labels: %v", err)
	}
}
