package forms_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/forms"
)

var (
	scheme = apiservertest.Scheme()
	cmGVK  = corev1.SchemeGroupVersion.WithKind("ConfigMap")
)

func widget() *apiservertest.Widget {
	return &apiservertest.Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w", ResourceVersion: "7", Labels: map[string]string{"a": "b"}},
		Spec:       apiservertest.WidgetSpec{Size: 3, Color: "red", Tags: map[string]string{"t": "u"}},
		Status:     apiservertest.WidgetStatus{Phase: "Ready"},
	}
}

func TestOfTellsTheForm(t *testing.T) {
	for obj, want := range map[runtime.Object]forms.Form{
		&corev1.ConfigMap{}:                 forms.Typed,
		&corev1.ConfigMapList{}:             forms.Typed,
		&unstructured.Unstructured{}:        forms.Unstructured,
		&unstructured.UnstructuredList{}:    forms.Unstructured,
		&metav1.PartialObjectMetadata{}:     forms.Metadata,
		&metav1.PartialObjectMetadataList{}: forms.Metadata,
	} { // lint:order-independent each case on its own
		if got := forms.Of(obj); got != want {
			t.Errorf("Of(%T) = %v, want %v", obj, got, want)
		}
	}
}

// The GVK of a form object is its apiVersion/kind; a missing one is the error
// controller-runtime's client gives (apiutil.GVKForObject).
func TestGVKOfAFormObjectIsItsAPIVersionAndKind(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(apiservertest.WidgetGVK)
	if gvk, err := forms.GVK(u, scheme); err != nil || gvk != apiservertest.WidgetGVK {
		t.Errorf("unstructured Widget: %v %v", gvk, err)
	}
	if gvk, err := forms.GVK(&corev1.ConfigMap{}, scheme); err != nil || gvk != cmGVK {
		t.Errorf("typed ConfigMap: %v %v", gvk, err)
	}
	for _, tc := range []struct {
		obj  runtime.Object
		want string
	}{
		{&unstructured.Unstructured{}, "Object 'Kind' is missing in 'unstructured object has no kind'"},
		{&unstructured.UnstructuredList{Object: map[string]any{"kind": "ConfigMapList"}}, "Object 'apiVersion' is missing in 'unstructured object has no version'"},
		{&metav1.PartialObjectMetadata{}, "Object 'Kind' is missing in 'unstructured object has no kind'"},
		{&metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList"}}, "Object 'apiVersion' is missing in 'unstructured object has no version'"},
	} {
		if _, err := forms.GVK(tc.obj, scheme); err == nil || err.Error() != tc.want {
			t.Errorf("GVK(%T): got %v, want %q", tc.obj, err, tc.want)
		}
	}
	if got := forms.ItemGVK(cmGVK.GroupVersion().WithKind("ConfigMapList")); got != cmGVK {
		t.Errorf("ItemGVK of ConfigMapList: %v", got)
	}
	if got := forms.ItemGVK(cmGVK); got != cmGVK {
		t.Errorf("ItemGVK of ConfigMap: %v", got)
	}
}

// typed -> Unstructured -> typed gives the object back, with an empty TypeMeta.
func TestUnstructuredRoundTrip(t *testing.T) {
	w := widget()
	u := &unstructured.Unstructured{}
	if err := forms.Into(w, u, apiservertest.WidgetGVK); err != nil {
		t.Fatal(err)
	}
	if u.GetAPIVersion() != "test.ctrlsim.dev/v1" || u.GetKind() != "Widget" {
		t.Errorf("apiVersion/kind: %s %s", u.GetAPIVersion(), u.GetKind())
	}
	if size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size"); size != 3 {
		t.Errorf("spec.size is the converter's int64: %v", u.Object["spec"])
	}
	w.Spec.Tags["t"] = "changed"
	if tag, _, _ := unstructured.NestedString(u.Object, "spec", "tags", "t"); tag != "u" {
		t.Error("Into writes a copy")
	}
	back, err := forms.ToTyped(scheme, u)
	if err != nil {
		t.Fatal(err)
	}
	w.Spec.Tags["t"] = "u"
	if !reflect.DeepEqual(back, w) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, w)
	}
}

// A value of the wrong JSON type does not convert; an unknown field is dropped.
func TestToTypedOfMalformedContent(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c"},
		"data":     map[string]any{"k": int64(3)},
	}}
	if _, err := forms.ToTyped(scheme, u); err == nil {
		t.Error("an integer where a string goes converts")
	}
	u.Object["data"] = map[string]any{"k": "v"}
	u.Object["unknown"] = "x"
	cm, err := forms.ToTyped(scheme, u)
	if err != nil || cm.(*corev1.ConfigMap).Data["k"] != "v" {
		t.Errorf("unknown fields are dropped: %+v %v", cm, err)
	}
}

// PartialObjectMetadata is TypeMeta + ObjectMeta; converting it to the typed form
// gives an object with that metadata and nothing else.
func TestPartialObjectMetadata(t *testing.T) {
	w := widget()
	p := &metav1.PartialObjectMetadata{}
	if err := forms.Into(w, p, apiservertest.WidgetGVK); err != nil {
		t.Fatal(err)
	}
	want := metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "test.ctrlsim.dev/v1", Kind: "Widget"},
		ObjectMeta: w.ObjectMeta,
	}
	if !reflect.DeepEqual(*p, want) {
		t.Errorf("metadata:\n got %+v\nwant %+v", *p, want)
	}
	w.Labels["a"] = "changed"
	if p.Labels["a"] != "b" {
		t.Error("Into writes a copy")
	}
	typed, err := forms.ToTyped(scheme, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := typed.(*apiservertest.Widget); got.Name != "w" || got.ResourceVersion != "7" || got.Spec.Size != 0 || got.Kind != "" {
		t.Errorf("metadata only, no TypeMeta: %+v", got)
	}
}

// Kinds without a Go type in the scheme are not converted.
func TestKindsWithoutAGoType(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"})
	if _, err := forms.ToTyped(scheme, u); !runtime.IsNotRegisteredError(err) {
		t.Errorf("a kind missing from the scheme: %v", err)
	}
}

// Lists: every item converted with the item kind, the list metadata copied, the
// list's own apiVersion/kind left as the caller set them.
func TestListInto(t *testing.T) {
	typed := &corev1.ConfigMapList{
		ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next", RemainingItemCount: ptr.To[int64](2)},
		Items:    []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}},
	}
	ul := &unstructured.UnstructuredList{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "old"}}}
	ul.SetGroupVersionKind(cmGVK)
	if err := forms.ListInto(typed, ul, cmGVK); err != nil {
		t.Fatal(err)
	}
	if len(ul.Items) != 2 || ul.Items[1].GetName() != "b" || ul.Items[0].GetKind() != "ConfigMap" || ul.Items[0].GetAPIVersion() != "v1" {
		t.Errorf("items: %+v", ul.Items)
	}
	if ul.GetResourceVersion() != "9" || ul.GetContinue() != "next" || *ul.GetRemainingItemCount() != 2 || ul.GetKind() != "ConfigMap" {
		t.Errorf("list: %+v", ul.Object)
	}
	pl := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
	if err := forms.ListInto(typed, pl, cmGVK); err != nil {
		t.Fatal(err)
	}
	if len(pl.Items) != 2 || pl.Items[0].Name != "a" || pl.Items[0].Kind != "ConfigMap" || pl.ResourceVersion != "9" || pl.Kind != "ConfigMapList" {
		t.Errorf("metadata list: %+v", pl)
	}
}
