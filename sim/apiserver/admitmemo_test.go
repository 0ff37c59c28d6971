package apiserver_test

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// sizedCRD serves Gadget with spec.size defaulted to 3 and nothing else in
// spec: an unknown field is pruned.
func sizedCRD() apiserver.CRD {
	return apiserver.CRD{GVK: gadgetGVK, Namespaced: true, Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"size": {Type: "integer", Default: &apiextensionsv1.JSON{Raw: []byte("3")}},
			}},
		},
	}}
}

// storeSized creates a Gadget whose spec holds only an unknown field on a new
// server of sizedCRD, then updates it adding that field again, and returns
// the object the server stored and the request object the update left.
func storeSized(t *testing.T) (stored, request map[string]any) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: []apiserver.CRD{sizedCRD()}})
	s.CreateDefaultNamespaces()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gadgetGVK)
	u.SetNamespace("default")
	u.SetName("g")
	u.Object["spec"] = map[string]any{"unknown": "x"}
	if err := s.Create(admin, u); err != nil {
		t.Fatal(err)
	}
	u.Object["spec"].(map[string]any)["unknown"] = "y"
	if err := s.UpdateWith(admin, u, "", apiserver.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(gadgetGVK)
	if err := s.Get(admin, client.ObjectKey{Namespace: "default", Name: "g"}, got); err != nil {
		t.Fatal(err)
	}
	return got.Object, u.Object
}

// A custom resource's write is pruned and defaulted the same whether a
// server of the same CRD content admitted the same write before (the
// admission remembered) or not: the unknown field pruned, spec.size
// defaulted, in the stored object and in the request's.
func TestARememberedAdmissionPrunesAndDefaultsAsAComputedOne(t *testing.T) {
	first, firstReq := storeSized(t)
	again, againReq := storeSized(t)
	spec, _ := first["spec"].(map[string]any)
	if _, ok := spec["unknown"]; ok || spec["size"] != int64(3) {
		t.Fatalf("the first server stored spec %v, want the unknown field pruned and size 3", spec)
	}
	if !equality.Semantic.DeepEqual(first, again) {
		t.Errorf("remembered admission stored\n%v\ncomputed\n%v", again, first)
	}
	if !equality.Semantic.DeepEqual(firstReq, againReq) {
		t.Errorf("remembered admission left the request as\n%v\ncomputed\n%v", againReq, firstReq)
	}
}
