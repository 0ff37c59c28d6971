package apiserver_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

func schemaServer(t *testing.T, manifest string) *apiserver.Server {
	t.Helper()
	crds, err := apiserver.CRDsFromYAML([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clock.New(clock.Epoch), CRDs: crds})
	s.CreateDefaultNamespaces()
	return s
}

func schemaWidget(name string, spec apiservertest.WidgetSpec) *apiservertest.Widget {
	return &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: spec}
}

// A custom resource with a schema is validated as kube-apiserver validates it,
// with its messages.
func TestACustomResourceIsValidatedAgainstItsSchema(t *testing.T) {
	s := schemaServer(t, apiservertest.WidgetManifest)
	for _, tc := range []struct {
		spec apiservertest.WidgetSpec
		want string // "" accepted
	}{
		{apiservertest.WidgetSpec{Size: 10, Color: "red"}, ""},
		{apiservertest.WidgetSpec{Size: 11}, `Widget.test.ctrlsim.dev "w" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`},
		{apiservertest.WidgetSpec{Size: -1}, `spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0`},
		{apiservertest.WidgetSpec{Color: "purple"}, `spec.color: Unsupported value: "purple": supported values: "blue", "red", "green"`},
		{apiservertest.WidgetSpec{Tags: map[string]string{"a": "x", "b": "y", "c": "z", "d": "w"}}, `spec.tags: Too many: 4: must have at most 3 items`},
		{apiservertest.WidgetSpec{Tags: map[string]string{"a": "X1"}}, `spec.tags.a: Invalid value: "X1": spec.tags.a in body should match '^[a-z]+$'`},
	} {
		err := s.Create(apiserver.Admin, schemaWidget("w", tc.spec))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: refused: %v", tc.spec, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: got %v, want %q", tc.spec, err, tc.want)
		}
		if err == nil {
			if err := s.Delete(apiserver.Admin, schemaWidget("w", tc.spec), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Defaults apply on create and on every update whose body lacks the field, and
// the writer gets the defaulted object back.
func TestACustomResourceIsDefaultedFromItsSchema(t *testing.T) {
	s := schemaServer(t, apiservertest.WidgetManifest)
	w := schemaWidget("w", apiservertest.WidgetSpec{Size: 1})
	if err := s.Create(apiserver.Admin, w); err != nil {
		t.Fatal(err)
	}
	if w.Spec.Color != "blue" {
		t.Errorf("create: color %q, want the default blue", w.Spec.Color)
	}
	w.Spec.Color = ""
	w.Spec.Size = 2
	if err := s.Update(apiserver.Admin, w, ""); err != nil {
		t.Fatal(err)
	}
	got := &apiservertest.Widget{}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(w), got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Color != "blue" || got.Spec.Size != 2 {
		t.Errorf("update without color: stored %+v, want size 2, color blue", got.Spec)
	}
}

// The status subresource validates status against the schema too; the main
// resource's update ignores status.
func TestAStatusWriteIsValidatedAgainstTheSchema(t *testing.T) {
	s := schemaServer(t, apiservertest.WidgetManifest)
	w := schemaWidget("w", apiservertest.WidgetSpec{})
	if err := s.Create(apiserver.Admin, w); err != nil {
		t.Fatal(err)
	}
	w.Status.Phase = "Bogus"
	err := s.Update(apiserver.Admin, w, "status")
	if err == nil || !strings.Contains(err.Error(), `status.phase: Unsupported value: "Bogus": supported values: "Pending", "Ready", "Stamped"`) {
		t.Errorf("status update with a bad phase: %v", err)
	}
	w.Status.Phase = "Ready"
	if err := s.Update(apiserver.Admin, w, "status"); err != nil {
		t.Errorf("status update with a good phase: %v", err)
	}
	w.Status.Phase = "Bogus" // ignored by the main resource
	if err := s.Update(apiserver.Admin, w, ""); err != nil {
		t.Errorf("main update carrying a bad status (ignored): %v", err)
	}
}

// Fields the schema does not know are pruned, as kube-apiserver prunes them:
// a Go field missing from the CRD's schema never reaches storage.
func TestFieldsTheSchemaDoesNotKnowArePruned(t *testing.T) {
	manifest := strings.Replace(apiservertest.WidgetManifest, `              tags:
                type: object
                maxProperties: 3
                additionalProperties:
                  type: string
                  pattern: '^[a-z]+$'
`, "", 1)
	s := schemaServer(t, manifest)
	w := schemaWidget("w", apiservertest.WidgetSpec{Size: 1, Tags: map[string]string{"a": "b"}})
	if err := s.Create(apiserver.Admin, w); err != nil {
		t.Fatal(err)
	}
	if w.Spec.Tags != nil {
		t.Errorf("tags %v survived a schema without them", w.Spec.Tags)
	}
}

// A manifest whose schema is not structural is refused with kube-apiserver's
// message for the CRD's create; a manifest of something else is refused.
func TestCRDManifestsAreChecked(t *testing.T) {
	bad := strings.Replace(apiservertest.WidgetManifest, "              size:\n                type: integer\n", "              size:\n", 1)
	want := `CRD manifest document 1: CustomResourceDefinition.apiextensions.k8s.io "widgets.test.ctrlsim.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields`
	if _, err := apiserver.CRDsFromYAML([]byte(bad)); err == nil || err.Error() != want {
		t.Errorf("a schema without a type: %v\nwant %s", err, want)
	}
	if _, err := apiserver.CRDsFromYAML([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")); err == nil {
		t.Error("a ConfigMap was read as a CRD")
	}
	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest + "---\n" + apiservertest.WidgetManifest))
	if err != nil || len(crds) != 2 || crds[0].GVK != apiservertest.WidgetGVK || crds[0].Plural != "widgets" || !crds[0].Status || !crds[0].Namespaced {
		t.Errorf("two documents: %v %+v", err, crds)
	}
}

// A write refused for several causes lists them in field order, every time: the
// schema validator walks a Go map, and a run must not depend on its order.
func TestSeveralCausesComeInFieldOrder(t *testing.T) {
	s := schemaServer(t, apiservertest.WidgetManifest)
	want := `Widget.test.ctrlsim.dev "w" is invalid: [spec.color: Unsupported value: "purple": supported values: "blue", "red", "green", spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0]`
	for range 20 {
		if err := s.Create(apiserver.Admin, schemaWidget("w", apiservertest.WidgetSpec{Size: -1, Color: "purple"})); err == nil || err.Error() != want {
			t.Fatalf("got %v\nwant %s", err, want)
		}
	}
}

// KindsKey names the kinds a server serves: two servers of the same CRDs
// share it, a CRD installed or deleted changes it (a client's REST mapper is
// found by it, and must map what the server serves then).
func TestTheKindsKeyFollowsTheServedKinds(t *testing.T) {
	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest))
	if err != nil {
		t.Fatal(err)
	}
	scheme := apiservertest.Scheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil { // CRDs are served: one can be deleted
		t.Fatal(err)
	}
	server := func(crds []apiserver.CRD) *apiserver.Server {
		return apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: crds})
	}
	bare := server(nil)
	without := bare.KindsKey()
	a, b := server(crds), server(crds)
	if a.KindsKey() != b.KindsKey() || a.KindsKey() == without || !strings.Contains(a.KindsKey(), "test.ctrlsim.dev/v1/Widget/widgets/n\n") {
		t.Fatalf("two servers of the Widget CRD: keys equal %v, equal to the bare server's %v; key ends %q",
			a.KindsKey() == b.KindsKey(), a.KindsKey() == without, a.KindsKey()[max(0, len(a.KindsKey())-80):])
	}
	bare.InstallCRD(crds[0])
	if bare.KindsKey() != a.KindsKey() {
		t.Errorf("a server that installed the Widget CRD later has another key than one that served it from the start")
	}
	created := server(nil)
	def := crds[0].Definition.DeepCopy()
	if err := created.Create(apiserver.Admin, def); err != nil {
		t.Fatal(err)
	}
	if created.KindsKey() != a.KindsKey() {
		t.Errorf("a server whose Widget CRD was created through the API has another key than one that served it from the start")
	}
	if err := created.Delete(apiserver.Admin, def, nil); err != nil {
		t.Fatal(err)
	}
	if created.KindsKey() != without {
		t.Errorf("after the Widget CRD's deletion the key still differs from a server without it")
	}
}
