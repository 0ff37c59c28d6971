package kubeclient_test

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// crdOnlyProcess serves Widget from its manifest with a scheme that has no Go type
// for it, and reads through an informer cache with a lag of one second.
func crdOnlyProcess(t *testing.T) (*kubeclient.Client, *informer.Cache, *clock.Clock, []kubeclient.Call) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest))
	if err != nil {
		t.Fatal(err)
	}
	c := clock.New(clock.Epoch)
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: c, CRDs: crds})
	s.CreateDefaultNamespaces()
	cache := informer.NewCache(s.Watcher(), c, scheme, func(schema.GroupVersionKind) informer.Lag {
		return func() time.Duration { return time.Second }
	})
	var calls []kubeclient.Call
	cl := kubeclient.New(s, apiserver.Admin, kubeclient.Options{Cache: cache,
		Hooks: kubeclient.Hooks{Before: func(call kubeclient.Call) error { calls = append(calls, call); return nil }}})
	return cl, cache, c, calls
}

// A kind only a CRD defines is served in its own form, Unstructured, through the
// cached client: writes go to the server as they are (the hooks see the caller's
// Unstructured), cached reads come from the kind's unstructured informer (with its
// lag), metadata-only reads from its metadata informer, and a kind no CRD serves
// is the RESTMapper's error in every form.
func TestACRDOnlyKindThroughTheCachedClient(t *testing.T) {
	cl, cache, clk, _ := crdOnlyProcess(t)
	key := client.ObjectKey{Namespace: "default", Name: "w"}
	get := func(obj client.Object) error { return cl.Get(ctx, key, obj) }
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(apiservertest.GroupVersion.WithKind("WidgetList"))
	if err := cl.List(ctx, list); err != nil || len(list.Items) != 0 {
		t.Fatalf("first list (starts the informer): %v %v", list.Items, err)
	}
	w := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": 2}}}
	w.SetGroupVersionKind(apiservertest.WidgetGVK)
	w.SetNamespace("default")
	w.SetName("w")
	if err := cl.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(w.Object, "spec", "color"); c != "blue" || w.GetKind() != "Widget" {
		t.Errorf("create answered %v", w.Object)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(apiservertest.WidgetGVK)
	if err := get(got); !apierrors.IsNotFound(err) || err.Error() != `Widget.test.ctrlsim.dev "w" not found` {
		t.Errorf("cached get before the lag: %v", err)
	}
	clk.Step(time.Second)
	if err := get(got); err != nil || got.GetResourceVersion() != w.GetResourceVersion() {
		t.Fatalf("cached get after the lag: %v %v", err, got.Object)
	}
	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(apiservertest.WidgetGVK)
	if err := get(p); err != nil || p.ResourceVersion != w.GetResourceVersion() || p.Kind != "Widget" {
		t.Errorf("the metadata informer starts when first read and lists the Widget: %v %+v", err, p)
	}
	var infs []string
	for _, i := range cache.Informers() {
		infs = append(infs, i.Form().String())
		if i.Form() == forms.Metadata && len(i.Indexer().List()) != 1 {
			t.Errorf("metadata informer store: %v", i.Indexer().List())
		}
	}
	if len(infs) != 2 || infs[0] != "unstructured" || infs[1] != "metadata" {
		t.Errorf("informers %v, want the Widget's unstructured and metadata ones", infs)
	}

	// Status through the client; Update restores the caller's apiVersion/kind.
	_ = unstructured.SetNestedField(got.Object, "Ready", "status", "phase")
	if err := cl.Status().Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if ph, _, _ := unstructured.NestedString(got.Object, "status", "phase"); ph != "Ready" || got.GetKind() != "Widget" {
		t.Errorf("status update: %v", got.Object)
	}

	// Metadata patch and the metadata Delete of a kind without a Go type.
	p = &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(apiservertest.WidgetGVK)
	p.SetNamespace("default")
	p.SetName("w")
	if err := cl.Patch(ctx, p, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":["x/y"]}}`))); err != nil {
		t.Fatal(err)
	}
	if len(p.Finalizers) != 1 || p.Kind != "Widget" {
		t.Errorf("metadata patch: %+v", p)
	}
	if err := cl.Delete(ctx, p); !runtime.IsNotRegisteredError(err) {
		t.Errorf("metadata delete of an object its finalizer keeps: %v, want the scheme's not-registered error (the response does not decode)", err)
	}
	if err := cl.APIReader().Get(ctx, key, got); err != nil || got.GetDeletionTimestamp() == nil {
		t.Errorf("the delete was done all the same: %v %v", err, got.GetDeletionTimestamp())
	}

	gadget := schema.GroupVersionKind{Group: "test.ctrlsim.dev", Version: "v1", Kind: "Gadget"}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gadget)
	pm := &metav1.PartialObjectMetadata{}
	pm.SetGroupVersionKind(gadget)
	ul := &unstructured.UnstructuredList{}
	ul.SetGroupVersionKind(gadget)
	for name, err := range map[string]error{ // lint:order-independent each case is checked on its own
		"cached get": get(u), "metadata get": get(pm), "cached list": cl.List(ctx, ul),
		"direct get": cl.APIReader().Get(ctx, key, u), "create": cl.Create(ctx, u),
	} {
		if !meta.IsNoMatchError(err) {
			t.Errorf("%s of a kind no CRD serves: %v", name, err)
		}
	}
}
