package kubeclient_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	simprocess "github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The forms a caller can use; each case runs once per form, on a fresh process.
var allForms = []forms.Form{forms.Typed, forms.Unstructured, forms.Metadata}

var (
	cmGVK     = corev1.SchemeGroupVersion.WithKind("ConfigMap")
	widgetKey = client.ObjectKey{Namespace: "default", Name: "w"}
)

// traced is a process whose hooks record each call as the trace records it
// (process.BeforeCall and Step: kind and name, resourceVersions, digest, result),
// with the Go type of the object the hooks saw.
type traced struct {
	*process
	steps []string
}

func newTraced(t *testing.T) *traced {
	p := &traced{process: newProcess(t, 0)}
	seed(t, p.client)
	var pending simprocess.PendingCall
	p.client = kubeclient.New(p.server, apiserver.Admin, kubeclient.Options{Cache: p.cache, Hooks: kubeclient.Hooks{
		Before: func(call kubeclient.Call) error { pending = simprocess.BeforeCall(p.server, call); return nil },
		After: func(call kubeclient.Call, err error) {
			s := pending.Step(p.server, call, err)
			p.steps = append(p.steps, fmt.Sprintf("%T %s", call.Object, trace.Step{Op: s.Op, Object: s.Object,
				RVSeen: s.RVSeen, RVCurrent: s.RVCurrent, RVWritten: s.RVWritten, Digest: s.Digest, Result: s.Result}.Canonical()))
		},
	}})
	return p
}

// seed makes ConfigMaps c (app=web) and d, and Widget w with a status.
func seed(t *testing.T, c client.Client) {
	t.Helper()
	for _, o := range []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c", Labels: map[string]string{"app": "web"}}, Data: map[string]string{"k": "v"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "d"}},
		&apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}, Spec: apiservertest.WidgetSpec{Size: 1}},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

// inForm returns typed (which it does not modify) in form f.
func inForm(t *testing.T, f forms.Form, typed client.Object) client.Object {
	t.Helper()
	gvk, err := forms.GVK(typed, apiservertest.Scheme())
	if err != nil {
		t.Fatal(err)
	}
	var out client.Object
	switch f {
	case forms.Typed:
		return typed.DeepCopyObject().(client.Object)
	case forms.Unstructured:
		out = &unstructured.Unstructured{}
	default:
		out = &metav1.PartialObjectMetadata{}
	}
	if err := forms.Into(typed, out, gvk); err != nil {
		t.Fatal(err)
	}
	return out
}

// asTyped converts a result back to the typed form, TypeMeta cleared, checking that
// a form result names its kind. A metadata-only result has only its ObjectMeta.
func asTyped(t *testing.T, obj client.Object, gvk schema.GroupVersionKind) client.Object {
	t.Helper()
	if forms.Of(obj) == forms.Typed {
		c := obj.DeepCopyObject().(client.Object)
		c.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		return c
	}
	if got := obj.GetObjectKind().GroupVersionKind(); got != gvk {
		t.Errorf("a %v result is %v, want %v", forms.Of(obj), got, gvk)
	}
	typed, err := forms.ToTyped(apiservertest.Scheme(), obj)
	if err != nil {
		t.Fatal(err)
	}
	return typed
}

func objectMeta(o client.Object) metav1.ObjectMeta {
	return reflect.ValueOf(o).Elem().FieldByName("ObjectMeta").Interface().(metav1.ObjectMeta)
}

func storedWidget(t *testing.T, p *traced) *apiservertest.Widget {
	w := &apiservertest.Widget{}
	if err := p.client.APIReader().Get(ctx, widgetKey, w); err != nil {
		t.Fatal(err)
	}
	return w
}

func annotated[T client.Object](o T) T {
	o = o.DeepCopyObject().(T)
	o.SetAnnotations(map[string]string{"touched": "yes"})
	return o
}

// A verb case: input builds the typed object the call is made with (and, for
// patches, the original it is diffed against); call makes it in the caller's form.
// A case whose change is not all in metadata (metadataOnly false) is not run with
// PartialObjectMetadata, unless the metadata client refuses the verb (refused).
type verbCase struct {
	name         string
	input        func(t *testing.T, p *traced) (obj, orig client.Object)
	call         func(c client.Client, obj, orig client.Object) error
	metadataOnly bool
	refused      string
	wantErr      func(error) bool
}

var verbCases = []verbCase{{
	name:  "get from the cache",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &corev1.ConfigMap{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "c"}, o)
	},
	metadataOnly: true,
}, {
	name:  "get from the API reader",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &apiservertest.Widget{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.(*kubeclient.Client).APIReader().Get(ctx, widgetKey, o)
	},
	metadataOnly: true,
}, {
	name:  "get of a missing object",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &apiservertest.Widget{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "x"}, o)
	},
	metadataOnly: true,
	wantErr:      apierrors.IsNotFound,
}, {
	name: "create with generateName",
	input: func(*testing.T, *traced) (client.Object, client.Object) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "gen-"}, Data: map[string]string{"a": "b"}}, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Create(ctx, o) },
	refused: "cannot create using only metadata",
}, {
	name: "update",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.Spec.Size, w.Spec.Color = 5, "blue"
		return w, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Update(ctx, o) },
	refused: "cannot update using only metadata -- did you mean to patch?",
}, {
	name: "update with a stale resourceVersion",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.ResourceVersion, w.Spec.Size = "1", 5
		return w, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Update(ctx, o) },
	refused: "cannot update using only metadata -- did you mean to patch?",
	wantErr: apierrors.IsConflict,
}, {
	name: "merge patch of the spec",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		orig := w.DeepCopy()
		w.Spec.Tags = map[string]string{"x": "y"}
		return w, orig
	},
	call: func(c client.Client, o, orig client.Object) error { return c.Patch(ctx, o, client.MergeFrom(orig)) },
}, {
	name: "merge patch of metadata",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		return annotated(w), w
	},
	call:         func(c client.Client, o, orig client.Object) error { return c.Patch(ctx, o, client.MergeFrom(orig)) },
	metadataOnly: true,
}, {
	name: "merge patch with an optimistic lock, stale",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.ResourceVersion = "1"
		return annotated(w), w
	},
	call: func(c client.Client, o, orig client.Object) error {
		return c.Patch(ctx, o, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
	},
	metadataOnly: true,
	wantErr:      apierrors.IsConflict,
}, {
	name: "merge patch of the whole object (client.Merge: the caller's JSON)",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		return annotated(storedWidget(t, p)), nil
	},
	call:         func(c client.Client, o, _ client.Object) error { return c.Patch(ctx, o, client.Merge) },
	metadataOnly: true,
}, {
	name: "JSON patch",
	input: func(*testing.T, *traced) (client.Object, client.Object) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}, nil
	},
	call: func(c client.Client, o, _ client.Object) error {
		return c.Patch(ctx, o, client.RawPatch("application/json-patch+json", []byte(`[{"op":"add","path":"/metadata/labels/tier","value":"1"}]`)))
	},
	metadataOnly: true,
}, {
	name: "delete",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		return storedWidget(t, p), nil
	},
	call:         func(c client.Client, o, _ client.Object) error { return c.Delete(ctx, o) },
	metadataOnly: true,
}, {
	name: "delete with a stale precondition",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		return storedWidget(t, p), nil
	},
	call: func(c client.Client, o, _ client.Object) error {
		return c.Delete(ctx, o, client.Preconditions{ResourceVersion: ptr.To("1")})
	},
	metadataOnly: true,
	wantErr:      apierrors.IsConflict,
}, {
	name:  "delete all of",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &corev1.ConfigMap{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.DeleteAllOf(ctx, o, client.InNamespace("default"), client.MatchingLabels{"app": "web"})
	},
	metadataOnly: true,
}, {
	name: "status update",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.Status.Phase = "Ready"
		return w, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Status().Update(ctx, o) },
	refused: "cannot update status using only metadata -- did you mean to patch?",
}, {
	name: "status patch",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		orig := w.DeepCopy()
		w.Status.Phase = "Ready"
		return w, orig
	},
	call: func(c client.Client, o, orig client.Object) error {
		return c.Status().Patch(ctx, o, client.MergeFrom(orig))
	},
}, {
	name: "status patch of metadata only (ignored by the status subresource)",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		return annotated(w), w
	},
	call: func(c client.Client, o, orig client.Object) error {
		return c.Status().Patch(ctx, o, client.MergeFrom(orig))
	},
	metadataOnly: true,
}}

// Every verb takes an Unstructured or a PartialObjectMetadata where controller-
// runtime's client does: the call the hooks see (and so the trace step, digest
// included) is the typed call's, and the caller's object ends as the typed one
// does, in its own form.
func TestEveryVerbInEveryForm(t *testing.T) {
	for _, tc := range verbCases {
		t.Run(tc.name, func(t *testing.T) {
			var typedSteps []string
			var typedResult client.Object
			for _, f := range allForms {
				if f == forms.Metadata && !tc.metadataOnly && tc.refused == "" {
					continue
				}
				p := newTraced(t)
				in, orig := tc.input(t, p)
				p.steps = nil
				gvk, _ := forms.GVK(in, p.client.Scheme())
				obj := inForm(t, f, in)
				if orig != nil {
					orig = inForm(t, f, orig)
				}
				err := tc.call(p.client, obj, orig)
				if f == forms.Metadata && tc.refused != "" {
					if err == nil || err.Error() != tc.refused {
						t.Errorf("metadata: got %v, want %q", err, tc.refused)
					}
					if len(p.steps) != 1 || strings.HasPrefix(p.steps[0], "*v1.PartialObjectMetadata") {
						t.Errorf("metadata: a refused call is one call, of the typed kind: %q", p.steps)
					}
					continue
				}
				switch {
				case tc.wantErr != nil && !tc.wantErr(err):
					t.Errorf("%v: unexpected error %v", f, err)
				case tc.wantErr == nil && err != nil:
					t.Fatalf("%v: %v", f, err)
				}
				result := asTyped(t, obj, gvk)
				if f == forms.Typed {
					if len(p.steps) != 1 {
						t.Fatalf("a call is one call: %q", p.steps)
					}
					typedSteps, typedResult = p.steps, result
					continue
				}
				if !reflect.DeepEqual(p.steps, typedSteps) {
					t.Errorf("%v: the hooks saw\n%q\nwhere a typed caller's saw\n%q", f, p.steps, typedSteps)
				}
				if f == forms.Metadata {
					if got, want := objectMeta(result), objectMeta(typedResult); !equality.Semantic.DeepEqual(got, want) {
						t.Errorf("metadata result:\n got %+v\nwant %+v", got, want)
					}
				} else if !equality.Semantic.DeepEqual(result, typedResult) {
					t.Errorf("%v result:\n got %+v\nwant %+v", f, result, typedResult)
				}
			}
		})
	}
}

// A list case: list makes the call with an empty list of the form.
type listCase struct {
	name      string
	gvk       schema.GroupVersionKind // the kind the caller puts on a form list
	list      func(c *kubeclient.Client, l client.ObjectList) error
	wantKind  map[forms.Form]string // the form list's kind after the call
	wantItems int
}

var listCases = []listCase{{
	name: "from the cache, with options",
	gvk:  corev1.SchemeGroupVersion.WithKind("ConfigMapList"),
	list: func(c *kubeclient.Client, l client.ObjectList) error {
		return c.List(ctx, l, client.InNamespace("default"), client.MatchingLabels{"app": "web"})
	},
	wantKind:  map[forms.Form]string{forms.Unstructured: "ConfigMapList", forms.Metadata: "ConfigMapList"},
	wantItems: 1,
}, {
	name: "from the API reader, a page",
	gvk:  apiservertest.WidgetGVK, // Widget or WidgetList: both list Widgets
	list: func(c *kubeclient.Client, l client.ObjectList) error {
		return c.APIReader().List(ctx, l, client.Limit(1))
	},
	// The unstructured client decodes the response's kind; the metadata client
	// puts the caller's back.
	wantKind:  map[forms.Form]string{forms.Unstructured: "WidgetList", forms.Metadata: "Widget"},
	wantItems: 1,
}}

func listInForm(f forms.Form, gvk schema.GroupVersionKind) client.ObjectList {
	switch f {
	case forms.Unstructured:
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk)
		return l
	case forms.Metadata:
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gvk)
		return l
	}
	l, err := forms.NewList(apiservertest.Scheme(), forms.ItemGVK(gvk))
	if err != nil {
		panic(err)
	}
	return l
}

// Lists in every form: the typed list call, its items converted (each with the
// item kind), its list metadata; the list's kind as controller-runtime leaves it.
func TestListsInEveryForm(t *testing.T) {
	for _, tc := range listCases {
		t.Run(tc.name, func(t *testing.T) {
			var typedSteps []string
			var typed client.ObjectList
			item := forms.ItemGVK(tc.gvk)
			for _, f := range allForms {
				p := newTraced(t)
				l := listInForm(f, tc.gvk)
				if err := tc.list(p.client, l); err != nil {
					t.Fatalf("%v: %v", f, err)
				}
				if f == forms.Typed {
					typedSteps, typed = p.steps, l
					continue
				}
				if !reflect.DeepEqual(p.steps, typedSteps) {
					t.Errorf("%v: the hooks saw\n%q\nwhere a typed caller's saw\n%q", f, p.steps, typedSteps)
				}
				if got := l.GetObjectKind().GroupVersionKind().Kind; got != tc.wantKind[f] {
					t.Errorf("%v: list kind %q, want %q", f, got, tc.wantKind[f])
				}
				if l.GetResourceVersion() != typed.GetResourceVersion() || l.GetContinue() != typed.GetContinue() {
					t.Errorf("%v: list metadata %q %q, want %q %q", f, l.GetResourceVersion(), l.GetContinue(), typed.GetResourceVersion(), typed.GetContinue())
				}
				items, _ := meta.ExtractList(l)
				want, _ := meta.ExtractList(typed)
				if len(items) != tc.wantItems || len(want) != tc.wantItems {
					t.Fatalf("%v: %d items, typed %d, want %d", f, len(items), len(want), tc.wantItems)
				}
				for i := range items {
					o := items[i].(client.Object)
					got := asTyped(t, o, item)
					w := asTyped(t, want[i].(client.Object), item)
					if f == forms.Metadata && !equality.Semantic.DeepEqual(objectMeta(got), objectMeta(w)) ||
						f == forms.Unstructured && !equality.Semantic.DeepEqual(got, w) {
						t.Errorf("%v: item %d\n got %+v\nwant %+v", f, i, got, w)
					}
				}
			}
		})
	}
}

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
