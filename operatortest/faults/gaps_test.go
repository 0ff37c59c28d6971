package faults

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A template whose resource only a CRD the operator installs at run time
// serves (no Go type, no CRD given) is refused, as is the workers class:
// operatortest offers the generator no controller.
func TestARunTimeCRDsResourceAndTheWorkersClassAreRefused(t *testing.T) {
	if err := testWorld(Profile{API: []apiserver.Fault{{Resource: "gadgets", Code: 500}}}).Check(); err == nil ||
		!strings.Contains(err.Error(), `resource "gadgets" is no resource this world serves`) {
		t.Errorf("a template of a resource served at run time only: %v, want it refused", err)
	}
	if err := testWorld(Profile{Classes: []plan.FaultKind{plan.Workers}}).Check(); err == nil ||
		!strings.Contains(err.Error(), "offers no controller") {
		t.Errorf("the workers class: %v, want it refused", err)
	}
}

// A write of a kind two groups serve (a ConfigMap of the core group and one
// of other.example) is aimed at by the plural alone: the fault drawn names
// no group (apiserver.Fault has no field for one), so it matches the
// configmaps of both.
func TestAnAPIErrorAimedAtAKindOfTwoGroupsNamesNoGroup(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	other := schema.GroupVersionKind{Group: "other.example", Version: "v1", Kind: "ConfigMap"}
	s.AddKnownTypeWithName(other, &corev1.ConfigMap{})
	s.AddKnownTypeWithName(other.GroupVersion().WithKind("ConfigMapList"), &corev1.ConfigMapList{})
	w := World{Profile: Profile{}, Space: &plan.Space{Processes: []string{"op"}}, Scheme: s, FaultPhase: time.Minute,
		Collected: []schema.GroupVersionKind{other}}
	steps := []trace.Step{{At: time.Second, Process: "op", Op: "update", Object: "ConfigMap shop/web", Result: "ok"}}
	got := w.APIFaultsOf(steps)
	if len(got) == 0 {
		t.Fatal("no API error drawn for the ConfigMap's update")
	}
	for _, a := range got {
		if a.Fault.Resource != "configmaps" || strings.Contains(a.Fault.String(), "other.example") {
			t.Errorf("drew %s, want resource=configmaps and no group", a.Fault)
		}
	}
	for _, name := range []string{"Group", "APIGroup"} {
		if _, ok := reflect.TypeOf(apiserver.Fault{}).FieldByName(name); ok {
			t.Errorf("apiserver.Fault has a field %s", name)
		}
	}
}
