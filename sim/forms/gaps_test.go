package forms_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/forms"
)

func TestUnstructuredContentIsTheConvertersRenderingOfTheGoType(t *testing.T) {
	u := &unstructured.Unstructured{}
	if err := forms.Into(widget(), u, apiservertest.WidgetGVK); err != nil {
		t.Fatal(err)
	}
	spec := u.Object["spec"].(map[string]any)
	status := u.Object["status"].(map[string]any)
	if _, ok := spec["size"].(int64); !ok {
		t.Errorf("spec.size is %T, want the converter's int64", spec["size"])
	}
	if _, ok := status["observedGeneration"]; ok {
		t.Errorf("status.observedGeneration is %v, want it left out as the Go type's omitempty has it", status["observedGeneration"])
	}
	// A field the Go type does not have is dropped on the way in, whatever a
	// CRD's schema would make of it.
	u.Object["spec"].(map[string]any)["extra"] = "kept by x-kubernetes-preserve-unknown-fields"
	typed, err := forms.ToTyped(scheme, u)
	if err != nil {
		t.Fatal(err)
	}
	back := &unstructured.Unstructured{}
	if err := forms.Into(typed, back, apiservertest.WidgetGVK); err != nil {
		t.Fatal(err)
	}
	if _, ok := back.Object["spec"].(map[string]any)["extra"]; ok {
		t.Errorf("spec.extra came back: %v", back.Object["spec"])
	}
}

func TestAnObjectIsNeverConvertedBetweenVersions(t *testing.T) {
	group := apiservertest.WidgetGVK.Group
	v2GVK := apiservertest.WidgetGVK
	v2GVK.Version = "v2"
	// A version other than the Go type's is no kind of the scheme.
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v2GVK)
	u.SetName("w")
	if _, err := forms.ToTyped(scheme, u); !runtime.IsNotRegisteredError(err) {
		t.Errorf("ToTyped of a %s/v2 Widget: %v, want the scheme's not-registered error", group, err)
	}
	// Into writes the Go type's content under whatever version it is given.
	out := &unstructured.Unstructured{}
	if err := forms.Into(widget(), out, v2GVK); err != nil {
		t.Fatal(err)
	}
	v1 := &unstructured.Unstructured{}
	if err := forms.Into(widget(), v1, apiservertest.WidgetGVK); err != nil {
		t.Fatal(err)
	}
	if out.GetAPIVersion() != group+"/v2" || !reflect.DeepEqual(out.Object["spec"], v1.Object["spec"]) {
		t.Errorf("Into as v2: apiVersion %q, spec %v; want %s/v2 and v1's spec %v", out.GetAPIVersion(), out.Object["spec"], group, v1.Object["spec"])
	}
}
