package kubeclient_test

import (
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// Form objects fail as controller-runtime's client fails them, each failure still
// one call between the hooks.
func TestFormErrors(t *testing.T) {
	p := newTraced(t)
	noServedWidget := kubeclient.New(apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: p.clock}), apiserver.Admin, kubeclient.Options{})
	u := func(apiVersion, kind string, content map[string]any) *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"namespace": "default", "name": "x"}}}
		for k, v := range content { // lint:order-independent building a map
			o.Object[k] = v
		}
		o.SetAPIVersion(apiVersion)
		o.SetKind(kind)
		return o
	}
	for _, tc := range []struct {
		name  string
		err   error
		check func(error) bool
		want  string
	}{
		{"no kind", p.client.Get(ctx, widgetKey, &unstructured.Unstructured{}), nil,
			"Object 'Kind' is missing in 'unstructured object has no kind'"},
		{"no version", p.client.Patch(ctx, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap"}}, client.Merge), nil,
			"Object 'apiVersion' is missing in 'unstructured object has no version'"},
		{"a custom resource whose CRD is not installed", noServedWidget.Create(ctx, u("test.ctrlsim.dev/v1", "Widget", nil)), meta.IsNoMatchError,
			`no matches for kind "Widget" in version "test.ctrlsim.dev/v1"`},
		{"a kind with no Go type and no CRD", p.client.Create(ctx, u("example.com/v1", "Gadget", nil)), meta.IsNoMatchError,
			`no matches for kind "Gadget" in version "example.com/v1"`},
		{"content the Go type cannot hold", p.client.Create(ctx, u("v1", "ConfigMap", map[string]any{"data": map[string]any{"k": int64(3)}})), apierrors.IsBadRequest, ""},
	} {
		switch {
		case tc.err == nil:
			t.Errorf("%s: no error", tc.name)
		case tc.check != nil && !tc.check(tc.err):
			t.Errorf("%s: %v", tc.name, tc.err)
		case tc.want != "" && tc.err.Error() != tc.want:
			t.Errorf("%s: got %q, want %q", tc.name, tc.err, tc.want)
		}
	}
	if len(p.steps) != 4 { // (noServedWidget has no hooks)
		t.Errorf("each failure is one call: %q", p.steps)
	}
	for obj, want := range map[client.Object]bool{u("v1", "ConfigMap", nil): true, u("v1", "Namespace", nil): false} { // lint:order-independent each on its own
		if got, err := p.client.IsObjectNamespaced(obj); err != nil || got != want {
			t.Errorf("IsObjectNamespaced(%s): %v %v", obj.GetObjectKind().GroupVersionKind().Kind, got, err)
		}
	}
}

// Hooks.After sees a written object as the server returned it, without the
// apiVersion/kind the typed client puts back for the caller afterwards: a trace
// digest does not depend on where the caller's object came from.
func TestAfterSeesTheObjectAsTheServerReturnedIt(t *testing.T) {
	p := newProcess(t, 0)
	seed(t, p.client)
	var seen []schema.GroupVersionKind
	c := kubeclient.New(p.server, apiserver.Admin, kubeclient.Options{Cache: p.cache, Hooks: kubeclient.Hooks{
		After: func(call kubeclient.Call, err error) {
			seen = append(seen, call.Object.GetObjectKind().GroupVersionKind())
		},
	}})
	w := &apiservertest.Widget{}
	if err := c.Get(ctx, widgetKey, w); err != nil || w.GroupVersionKind() != apiservertest.WidgetGVK {
		t.Fatalf("a cached read sets apiVersion/kind: %v %v", w.GroupVersionKind(), err)
	}
	w.Spec.Size = 9
	if err := c.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	w.Status.Phase = "Ready"
	if err := c.Status().Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, w, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"size":8}}`))); err != nil {
		t.Fatal(err)
	}
	if want := []schema.GroupVersionKind{apiservertest.WidgetGVK, {}, {}, {}}; !reflect.DeepEqual(seen, want) {
		t.Errorf("After saw %v, want %v", seen, want)
	}
	if w.GroupVersionKind() != apiservertest.WidgetGVK {
		t.Errorf("the caller gets its apiVersion/kind back: %v", w.GroupVersionKind())
	}
}

// With UncachedUnstructured, unstructured reads go to the server, as with
// controller-runtime's default client; metadata-only reads still use the cache.
func TestUncachedUnstructured(t *testing.T) {
	p := newProcess(t, 0)
	seed(t, p.client)
	var calls []kubeclient.Call
	c := kubeclient.New(p.server, apiserver.Admin, kubeclient.Options{Cache: p.cache, UncachedUnstructured: true,
		Hooks: kubeclient.Hooks{Before: func(call kubeclient.Call) error { calls = append(calls, call); return nil }}})
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(apiservertest.WidgetGVK)
	ul := &unstructured.UnstructuredList{}
	ul.SetGroupVersionKind(cmGVK)
	pm := &metav1.PartialObjectMetadata{}
	pm.SetGroupVersionKind(apiservertest.WidgetGVK)
	for _, err := range []error{c.Get(ctx, widgetKey, u), c.List(ctx, ul), c.Get(ctx, widgetKey, pm)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(calls) != 3 || calls[0].Cached || calls[1].Cached || !calls[2].Cached {
		t.Errorf("unstructured reads are live, metadata reads cached: %+v", calls)
	}
	if ul.GetKind() != "ConfigMapList" || len(ul.Items) != 2 {
		t.Errorf("a live unstructured list: %s, %d items", ul.GetKind(), len(ul.Items))
	}
}
