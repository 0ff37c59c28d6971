package apiserver_test

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

var gadgetGVK = schema.GroupVersionKind{Group: "test.ctrlsim.dev", Version: "v1", Kind: "Gadget"}

// gadgetCRD serves Gadget with spec.name of at most maxLength characters.
func gadgetCRD(maxLength int64) apiserver.CRD {
	return apiserver.CRD{GVK: gadgetGVK, Namespaced: true, Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"name": {Type: "string", MaxLength: ptr.To(maxLength)},
			}},
		},
	}}
}

// createGadget creates a Gadget named name with spec.name of n characters
// on a new server serving crd.
func createGadget(t *testing.T, crd apiserver.CRD, name string, n int) error {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: []apiserver.CRD{crd}})
	s.CreateDefaultNamespaces()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gadgetGVK)
	u.SetNamespace("default")
	u.SetName(name)
	long := make([]byte, n)
	for i := range long {
		long[i] = 'x'
	}
	if err := unstructured.SetNestedField(u.Object, string(long), "spec", "name"); err != nil {
		t.Fatal(err)
	}
	return s.Create(admin, u)
}

// Every server of a CRD validates with the CRD's own schema, whether
// another server built it before (the schema built once per content, as
// kube-apiserver builds it once per CRD) or not: a second server of the
// same CRD refuses what the first refused, and a server of the same kind
// with another schema judges by its own.
func TestEveryServerOfACRDValidatesWithItsOwnSchema(t *testing.T) {
	same := gadgetCRD(5) // installed by two servers: one schema pointer
	for i, crd := range []apiserver.CRD{gadgetCRD(5), gadgetCRD(5), same, same} {
		want := true
		err := createGadget(t, crd, "long", 8)
		if got := apierrors.IsInvalid(err); got != want {
			t.Fatalf("server %d of maxLength 5: an 8-character name refused %v (%v), want %v", i+1, got, err, want)
		}
		if err := createGadget(t, crd, "short", 3); err != nil {
			t.Fatalf("server %d of maxLength 5: a 3-character name refused: %v", i+1, err)
		}
	}
	if err := createGadget(t, gadgetCRD(10), "long", 8); err != nil {
		t.Fatalf("a server of maxLength 10 refuses an 8-character name, as maxLength 5 did: %v", err)
	}
	if err := createGadget(t, gadgetCRD(5), "long", 8); !apierrors.IsInvalid(err) {
		t.Fatalf("maxLength 5 again, after maxLength 10: an 8-character name gives %v, want Invalid", err)
	}
}
