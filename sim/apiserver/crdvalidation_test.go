package apiserver_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// strngWidget is Widget's manifest with spec.size of an unknown type.
var strngWidget = strings.Replace(apiservertest.WidgetManifest, "              size:\n                type: integer\n", "              size:\n                type: strng\n", 1)

// uncompiledGauge is Gauge's manifest with a rule over a field spec lacks.
var uncompiledGauge = strings.Replace(apiservertest.GaugeManifest, "self.min <= self.max", "self.min <= self.nosuch", 1)

const strngRefusal = `CustomResourceDefinition.apiextensions.k8s.io "widgets.test.ctrlsim.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "strng": supported values: "array", "boolean", "integer", "number", "object", "string"`

const celRefusal = `CustomResourceDefinition.apiextensions.k8s.io "gauges.test.ctrlsim.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.min \u003c= self.nosuch","Message":"min must not exceed max","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:17: undefined field 'nosuch'`

// A CRD manifest kube-apiserver would refuse to create (a schema with an
// unknown type, a CEL rule that does not compile) is refused when it is
// read, with kube-apiserver's message naming the CRD, not accepted until the
// first object of its kind.
func TestACRDManifestKubeAPIServerRefusesIsRefused(t *testing.T) {
	if _, err := apiserver.CRDsFromYAML([]byte(strngWidget)); err == nil || err.Error() != "CRD manifest document 1: "+strngRefusal {
		t.Errorf("unknown type: %v\nwant CRD manifest document 1: %s", err, strngRefusal)
	}
	_, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest + "---\n" + uncompiledGauge))
	if err == nil || !strings.HasPrefix(err.Error(), "CRD manifest document 2: "+celRefusal+"\n") {
		t.Errorf("a rule that does not compile: %v\nwant CRD manifest document 2: %s and the rule's position", err, celRefusal)
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(strngWidget), &def); err != nil {
		t.Fatal(err)
	}
	if _, err := apiserver.CRDFromDefinition(&def); !apierrors.IsInvalid(err) {
		t.Errorf("CRDFromDefinition of an unknown type: %v, want a 422", err)
	}
	// The manifests as given are accepted.
	for _, m := range []string{apiservertest.WidgetManifest, apiservertest.GaugeManifest, apiservertest.SprocketManifest} {
		if _, err := apiserver.CRDsFromYAML([]byte(m)); err != nil {
			t.Errorf("a valid manifest: %v", err)
		}
	}
}

// crdObjectServer serves CustomResourceDefinition objects.
func crdObjectServer(t *testing.T) *apiserver.Server {
	t.Helper()
	sc := apiservertest.Scheme()
	if err := apiextensionsv1.AddToScheme(sc); err != nil {
		t.Fatal(err)
	}
	return apiserver.New(apiserver.Options{Scheme: sc, Clock: clock.New(clock.Epoch)})
}

func crdObject(t *testing.T, manifest string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(manifest), &def); err != nil {
		t.Fatal(err)
	}
	return &def
}

// A CustomResourceDefinition object created or updated through the API is
// validated by apiextensions' own code: a create or update kube-apiserver
// refuses is refused with its 422, and nothing is stored or served.
func TestACRDObjectKubeAPIServerRefusesIsRefused(t *testing.T) {
	s := crdObjectServer(t)
	for _, tc := range []struct{ manifest, want string }{{strngWidget, strngRefusal}, {uncompiledGauge, celRefusal + "\n"}} {
		def := crdObject(t, tc.manifest)
		err := s.Create(apiserver.Admin, def)
		if !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("create: %v\nwant %s", err, tc.want)
		}
		if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(def), &apiextensionsv1.CustomResourceDefinition{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s after a refused create: %v, want NotFound", def.Name, err)
		}
	}
	if _, served := s.KindFor(apiservertest.WidgetGVK); served {
		t.Error("Widget is served after its CRD was refused")
	}

	// An update to a schema with an unknown type is refused too.
	def := crdObject(t, apiservertest.WidgetManifest)
	if err := s.Create(apiserver.Admin, def); err != nil {
		t.Fatal(err)
	}
	// (without Options.Later the naming and establishing controllers have
	// written its status already)
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(def), def); err != nil {
		t.Fatal(err)
	}
	def.Spec.Versions[0].Schema = crdObject(t, strngWidget).Spec.Versions[0].Schema
	err := s.Update(apiserver.Admin, def, "")
	if want := `CustomResourceDefinition.apiextensions.k8s.io "widgets.test.ctrlsim.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "strng"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("update to an unknown type: %v\nwant %s...", err, want)
	}
}
