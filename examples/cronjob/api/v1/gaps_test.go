package v1

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func TestTheCRDHasOneVersionAndNoPrinterColumnsOrShortNames(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "batch.ctrlsim.dev_cronjobs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(b, &crd); err != nil {
		t.Fatal(err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != GroupVersion.Version {
		t.Errorf("the CRD's versions: %d, want the one, %s", len(crd.Spec.Versions), GroupVersion.Version)
	}
	if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("the CRD converts: %+v", crd.Spec.Conversion)
	}
	for _, v := range crd.Spec.Versions {
		if len(v.AdditionalPrinterColumns) > 0 {
			t.Errorf("version %s has printer columns: %+v", v.Name, v.AdditionalPrinterColumns)
		}
	}
	if len(crd.Spec.Names.ShortNames) > 0 {
		t.Errorf("the CRD has short names %v", crd.Spec.Names.ShortNames)
	}
}

// generateMarker is controller-gen's object marker, on a line of its own.
var generateMarker = regexp.MustCompile(`(?m)^//\s*\+kubebuilder:object:generate`)

func TestTheDeepCopyIsWrittenByHand(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if generateMarker.Match(src) {
			t.Errorf("%s has an object:generate marker: controller-gen object would write the deep copy", name)
		}
		if name == "deepcopy.go" && strings.Contains(string(src), "Code generated") {
			t.Errorf("deepcopy.go says it is generated")
		}
	}
	if _, err := os.Stat("zz_generated.deepcopy.go"); err == nil {
		t.Errorf("a zz_generated.deepcopy.go beside deepcopy.go")
	}
}
