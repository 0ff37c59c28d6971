package differential

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// A CustomResourceDefinition that kube-apiserver refuses (a schema with an
// unknown type, an x-kubernetes-validations rule that does not compile) is
// refused by the model too, with the same 422, when it is created or
// updated through the API and when it is given as a manifest
// (apiserver.CRDsFromYAML, operatortest's CRDs), not accepted until the
// first object of its kind.

// crdCase is one CRD write: the definition of group g with its spec
// property's schema changed by edit.
type crdCase struct {
	name string
	edit func(spec *apiextensionsv1.JSONSchemaProps)
}

var crdCases = []crdCase{
	{"valid", func(*apiextensionsv1.JSONSchemaProps) {}},
	{"unknown type", func(spec *apiextensionsv1.JSONSchemaProps) {
		spec.Properties["size"] = apiextensionsv1.JSONSchemaProps{Type: "strng"}
	}},
	{"unknown type and a rule over it", func(spec *apiextensionsv1.JSONSchemaProps) {
		spec.Properties["name"] = apiextensionsv1.JSONSchemaProps{Type: "strng"}
		spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.name != ''"}}
	}},
	{"a rule naming a field the schema lacks", func(spec *apiextensionsv1.JSONSchemaProps) {
		spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.size <= self.nosuch", Message: "size too big"}}
	}},
	{"a rule that does not parse", func(spec *apiextensionsv1.JSONSchemaProps) {
		spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.size <= "}}
	}},
	{"a rule of the wrong type", func(spec *apiextensionsv1.JSONSchemaProps) {
		spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.size + 1"}}
	}},
	{"a message expression that does not compile", func(spec *apiextensionsv1.JSONSchemaProps) {
		spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.size > 0", MessageExpression: "self.nosuch"}}
	}},
	{"a transition rule where no old value correlates", func(spec *apiextensionsv1.JSONSchemaProps) {
		spec.Properties["items"] = apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"n": {Type: "integer"}},
			XValidations: apiextensionsv1.ValidationRules{{Rule: "self.n >= oldSelf.n"}},
		}}}
	}},
}

// crdCaseDefinition is lcDefinition in a group of its own, edited.
func crdCaseDefinition(i int, edit func(*apiextensionsv1.JSONSchemaProps)) *apiextensionsv1.CustomResourceDefinition {
	def := lcDefinition()
	group := fmt.Sprintf("crdcase%d.ctrlsim.example", i)
	def.Name, def.Spec.Group = "things."+group, group
	root := def.Spec.Versions[0].Schema.OpenAPIV3Schema
	spec := root.Properties["spec"]
	edit(&spec)
	root.Properties["spec"] = spec
	return def
}

// crdWriteOutcome is a CRD write's answer: accepted, or the error's
// reason and causes (errOutcome).
type crdWriteOutcome struct {
	Accepted bool
	Err      string
	Causes   []string
}

func crdWrite(err error) crdWriteOutcome {
	if err == nil {
		return crdWriteOutcome{Accepted: true}
	}
	o := errOutcome(err)
	return crdWriteOutcome{Err: o.Err, Causes: o.Causes}
}

// runCRDCases creates each case's CRD, then updates a valid CRD to each
// case's schema, and returns the answers: the creates', then the updates'.
func runCRDCases(ctx context.Context, t *testing.T, c client.Client, offset int) []crdWriteOutcome {
	var out []crdWriteOutcome
	for i, tc := range crdCases {
		def := crdCaseDefinition(offset+i, tc.edit)
		err := c.Create(ctx, def)
		out = append(out, crdWrite(err))
		if err == nil {
			t.Cleanup(func() { _ = c.Delete(context.Background(), def) })
		}
	}
	base := crdCaseDefinition(offset+len(crdCases), func(*apiextensionsv1.JSONSchemaProps) {})
	if err := c.Create(ctx, base); err != nil {
		t.Fatalf("create of a valid CRD: %v", err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), base) })
	for i, tc := range crdCases {
		var err error
		// (kube-apiserver's own controllers write the CRD's status meanwhile:
		// a conflict is read again)
		for range 10 {
			got := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(base), got); err != nil {
				t.Fatal(err)
			}
			edited := crdCaseDefinition(offset+len(crdCases), tc.edit)
			got.Spec.Versions[0].Schema = edited.Spec.Versions[0].Schema
			if i == 0 {
				// a valid change: a new property
				spec := got.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
				spec.Properties["color"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
				got.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
			}
			if err = c.Update(ctx, got); !apierrors.IsConflict(err) {
				break
			}
		}
		out = append(out, crdWrite(err))
	}
	return out
}

func TestInvalidCRDsAreRefusedAsKubeAPIServerRefusesThem(t *testing.T) {
	r := needReal(t)
	real := lcReal(t, r)
	offset := 100 * nextNames().Run // groups of their own on the shared envtest
	want := runCRDCases(ctx, t, real.c, offset)
	got := runCRDCases(ctx, t, lcModel().c, offset)
	for i := range want {
		tc := crdCases[i%len(crdCases)]
		verb := "create"
		if i >= len(crdCases) {
			verb = "update"
		}
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("%s, %s: model (+) vs kube-apiserver (-):\n%s", verb, tc.name, d)
		}
		// The cases test what they say on kube-apiserver: the valid one is
		// accepted, every other refused as invalid.
		if valid := tc.name == "valid"; want[i].Accepted != valid || (!valid && want[i].Err != string(metav1.StatusReasonInvalid) && !strings.Contains(want[i].Err, " is invalid: ")) {
			t.Errorf("kube-apiserver: %s, %s: %+v", verb, tc.name, want[i])
		}
	}

	// Given as a manifest, each CRD is refused with the same message,
	// prefixed with the document's place.
	for i, tc := range crdCases {
		def := crdCaseDefinition(offset+i, tc.edit)
		def.APIVersion, def.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		manifest, err := yaml.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		_, err = apiserver.CRDsFromYAML(manifest)
		switch {
		case want[i].Accepted && err != nil:
			t.Errorf("manifest, %s: refused: %v", tc.name, err)
		case !want[i].Accepted && err == nil:
			t.Errorf("manifest, %s: accepted; kube-apiserver refuses it: %+v", tc.name, want[i])
		case !want[i].Accepted:
			if got := crdWrite(unwrapManifestErr(t, err)); !cmp.Equal(got, want[i]) {
				t.Errorf("manifest, %s: model (+) vs kube-apiserver (-):\n%s\n(the model's error: %v)", tc.name, cmp.Diff(want[i], got), err)
			}
		}
	}
}

// unwrapManifestErr is the 422 inside CRDsFromYAML's error for document 1.
func unwrapManifestErr(t *testing.T, err error) error {
	t.Helper()
	const prefix = "CRD manifest document 1: "
	if !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("manifest error without its document's place: %v", err)
	}
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}
