package crdinstall_test

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/crdinstall"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

func TestTheDefaultGadgetIsMadeOnceAtStart(t *testing.T) {
	o := options(true)
	def := &unstructured.Unstructured{}
	def.SetGroupVersionKind(crdinstall.GadgetGVK)
	def.SetNamespace(crdinstall.Namespace)
	def.SetName("default")
	o.Workload = operatortest.Workload{Steps: []operatortest.StepKind{},
		Script: []operatortest.Step{operatortest.Delete(20*time.Second, def)}}
	r := faultfree.Replay(t, o)
	for _, s := range r.Steps {
		if s.Op == "restart" && s.Process == "platform" {
			t.Fatalf("the operator restarted: %s", s)
		}
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(crdinstall.GadgetGVK)
	err := r.Final.Get(client.ObjectKey{Namespace: crdinstall.Namespace, Name: "default"}, got)
	if !apierrors.IsNotFound(err) {
		t.Errorf("the default Gadget at rest, deleted at 20 s: %v, want NotFound", err)
	}
	mine := got.DeepCopy()
	if err := r.Final.Get(client.ObjectKey{Namespace: crdinstall.Namespace, Name: "mine"}, mine); err != nil {
		t.Errorf("the user's Gadget: %v", err)
	}
}
