package crdinstall_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/crdinstall"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// servedBeforeUse: the operator never sends a request for Gadgets that the
// server answers 404 because no established CRD serves the kind yet. A real
// cluster answers so for the instants between a CRD's create and its
// establishment; an operator that does not wait crash-loops on every install.
var servedBeforeUse = operatortest.Property{Name: "gadget-kind-served-before-use", Check: func(h *operatortest.History) error {
	for _, s := range h.Steps() {
		if strings.HasPrefix(s.Result, "NotFound") && strings.Contains(s.Object, "/"+crdinstall.GadgetGVR.Resource) && strings.HasPrefix(s.Object, "Status ") {
			return fmt.Errorf("at %v %s %s used the Gadget kind before it was served: %s", s.At, s.Process, s.Op, s.Result)
		}
	}
	return nil
}}

func options(wait bool) operatortest.Options {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	// A Gadget a user applies with the operator: created as soon as the
	// operator's CRD serves its kind.
	mine := &unstructured.Unstructured{}
	mine.SetGroupVersionKind(crdinstall.GadgetGVK)
	mine.SetNamespace(crdinstall.Namespace)
	mine.SetName("mine")
	_ = unstructured.SetNestedField(mine.Object, int64(4), "spec", "size")
	return operatortest.Options{
		Scheme: s,
		Managers: []operatortest.Manager{{Name: "platform", Setup: func(mgr manager.Manager) error {
			return mgr.Add(&crdinstall.Installer{Mgr: mgr, Wait: wait})
		}}},
		Objects:    []client.Object{mine},
		Properties: []operatortest.Property{servedBeforeUse, configMapsMade},
		Checks:     20,
	}
}

// configMapsMade: at rest, every Gadget (the default one and the user's,
// unless the workload deleted it) has its ConfigMap: the controller started
// at run time works end to end.
var configMapsMade = operatortest.Property{Name: "gadget-configmaps", Check: func(h *operatortest.History) error {
	for _, name := range gadgetsAtRest(h) {
		var cm corev1.ConfigMap
		if err := h.Get(client.ObjectKey{Namespace: crdinstall.Namespace, Name: "gadget-" + name}, &cm); err != nil {
			return fmt.Errorf("gadget %s: %v", name, err)
		}
	}
	return nil
}}

// The installer that waits for Established holds; its controller, started at
// run time for the new kind, reconciles both Gadgets.
func TestTheInstallerThatWaitsHolds(t *testing.T) {
	operatortest.Run(t, options(true))
}

// The installer that uses the kind at once is caught: its first request for a
// Gadget is answered 404, and the operator exits and restarts.
func TestTheInstallerThatDoesNotWaitIsCaught(t *testing.T) {
	res, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || len(res.Violations) == 0 || res.Violations[0].Property != "gadget-kind-served-before-use" {
		t.Fatalf("the installer that does not wait was not caught: %+v", res)
	}
}

// A main.go that installs the CRD and registers the controller at once holds:
// the controller's Kind source waits for the kind to be served, as
// controller-runtime's does, and the user's Gadget gets its ConfigMap.
func TestInstallingInMainThenRegisteringHolds(t *testing.T) {
	o := options(true)
	o.Managers[0].Setup = crdinstall.SetupInMain
	o.Properties = []operatortest.Property{mineMade}
	operatortest.Run(t, o)
}

// mineMade: the user's Gadget gets its ConfigMap (unless the workload deleted
// it), and the controller never failed to start for want of its kind (its
// source waited for the kind instead). A setup that failed otherwise (the
// CRD's create answered a 500, say) crashed the process, as on a real
// cluster, and the restart must still get there.
var mineMade = operatortest.Property{Name: "gadget-configmap", Check: func(h *operatortest.History) error {
	waited, restarted := false, false
	for _, s := range h.Steps() {
		if s.Op == "setup" && strings.HasPrefix(s.Result, "error") && strings.Contains(s.Result, "no matches for kind") {
			return fmt.Errorf("at %v %s: %s", s.At, s.Process, s.Result)
		}
		waited = waited || (s.Op == "log" && strings.Contains(s.Result, "if kind is a CRD, it should be installed before calling Start"))
		restarted = restarted || (s.Op == "restart" && s.Process == "platform")
	}
	// A restarted operator may find its CRD already served (a crash right
	// after creating it): its source then has nothing to wait for.
	if !waited && !restarted {
		return fmt.Errorf("the controller's source never waited for the kind: the CRD was served before Setup returned?")
	}
	if !slices.Contains(gadgetsAtRest(h), "mine") {
		return nil // the workload deleted it
	}
	var cm corev1.ConfigMap
	return h.Get(client.ObjectKey{Namespace: crdinstall.Namespace, Name: "gadget-mine"}, &cm)
}}

// gadgetsAtRest are the names of the Gadgets that exist at rest: the
// installer's default one, and the user's unless the workload deleted it.
func gadgetsAtRest(h *operatortest.History) []string {
	var out []string
	for _, name := range []string{"default", "mine"} {
		g := &unstructured.Unstructured{}
		g.SetGroupVersionKind(crdinstall.GadgetGVK)
		if h.Get(client.ObjectKey{Namespace: crdinstall.Namespace, Name: name}, g) == nil {
			out = append(out, name)
		}
	}
	return out
}
