package world_test

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// A seed object whose kind no CRD ever serves is not silently dropped: the
// run fails with one line naming it.
func TestASeedObjectOfAKindNeverServedFailsTheRun(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	db := &unstructured.Unstructured{}
	db.SetAPIVersion("example.com/v1alpha1")
	db.SetKind("Database")
	db.SetNamespace("apps")
	db.SetName("main")
	_, err := search.Explore(t, world.Options{
		Scheme:   s,
		Managers: []world.Manager{{Name: "idle", Setup: func(manager.Manager) error { return nil }}},
		Objects:  []client.Object{db},
		Checks:   1,
	})
	if err == nil || !strings.Contains(err.Error(), "Objects [Database apps/main] were never created: no CRD served their kind") {
		t.Fatalf("Explore: %v, want the never-served seed named", err)
	}
}

// strngCRD is a CRD kube-apiserver refuses to create: spec.size's type is
// unknown.
const strngCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: databases.example.com
spec:
  group: example.com
  names: {kind: Database, listKind: DatabaseList, plural: databases, singular: database}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.size <= self.nosuch
            properties:
              size: {type: RULE}
`

// A CRD that kube-apiserver would refuse (a schema with an unknown type, a
// CEL rule that does not compile) fails the test at once, with one line
// naming the CRD and kube-apiserver's message, not at the first object of
// its kind.
func TestACRDKubeAPIServerRefusesFailsTheRunNamingIt(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ typ, want string }{
		{"strng", `CRDs: CRD manifest document 1: CustomResourceDefinition.apiextensions.k8s.io "databases.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "strng": supported values: "array", "boolean", "integer", "number", "object", "string"`},
		{"integer", `CRDs: CRD manifest document 1: CustomResourceDefinition.apiextensions.k8s.io "databases.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.size \u003c= self.nosuch","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:18: undefined field 'nosuch'`},
	} {
		_, err := search.Explore(t, world.Options{
			Scheme:   s,
			CRDs:     [][]byte{[]byte(strings.Replace(strngCRD, "RULE", tc.typ, 1))},
			Managers: []world.Manager{{Name: "idle", Setup: func(manager.Manager) error { return nil }}},
			Checks:   1,
		})
		if err == nil {
			t.Fatalf("type %s: Explore accepted the CRD", tc.typ)
		}
		// The first line says it all (a CEL error goes on with the rule
		// and a caret under the column, as kube-apiserver's does).
		if first, _, _ := strings.Cut(err.Error(), "\n"); first != tc.want {
			t.Errorf("type %s: Explore: %v\nwant the line %s", tc.typ, err, tc.want)
		}
	}
}
