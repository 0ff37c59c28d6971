package apiserver_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

func gauge(spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(apiservertest.GaugeGVK)
	u.SetNamespace("default")
	u.SetName("g")
	return u
}

// x-kubernetes-validations rules are evaluated as kube-apiserver's custom
// resource strategy evaluates them (apiextensions' CEL validator): a broken
// rule refuses the write with its message (or "failed rule: ..."); a blocking
// OpenAPI error keeps the rules from running; a transition rule compares
// with the stored object on update, and an unchanged field is ratcheted.
func TestCELRulesAreEvaluated(t *testing.T) {
	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.GaugeManifest))
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: crds})
	s.CreateDefaultNamespaces()
	for _, tc := range []struct {
		spec map[string]any
		want string // "": accepted
	}{
		{map[string]any{"min": int64(3), "max": int64(2), "unit": "u1", "zone": "a"}, `Gauge.test.ctrlsim.dev "g" is invalid: spec: Invalid value: min must not exceed max`},
		{map[string]any{"min": int64(1), "max": int64(2), "unit": "x1", "zone": "a"}, `spec.unit: Invalid value: "x1": failed rule: self.startsWith('u')`},
		{map[string]any{"min": int64(3), "max": int64(2), "unit": "u123456789", "zone": "a"}, `some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`},
		{map[string]any{"min": int64(1), "max": int64(2), "unit": "u1", "zone": "a"}, ""},
	} {
		err := s.Create(apiserver.Admin, gauge(tc.spec))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: refused: %v", tc.spec, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: got %v, want %q", tc.spec, err, tc.want)
		}
	}
	got := gauge(nil)
	if err := s.Get(apiserver.Admin, ctrlclient.ObjectKeyFromObject(got), got); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(got.Object, "b", "spec", "zone"); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(apiserver.Admin, got.DeepCopy(), ""); err == nil || !strings.Contains(err.Error(), `spec.zone: Invalid value: "b": zone is immutable`) {
		t.Errorf("zone changed: got %v, want the transition rule's refusal", err)
	}
	if err := unstructured.SetNestedField(got.Object, "a", "spec", "zone"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(got.Object, int64(0), "spec", "min"); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(apiserver.Admin, got, ""); err != nil {
		t.Errorf("a valid update refused: %v", err)
	}
}
