package twowrites_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestTheOperatorWritesNoStatusNoEventAndNoFinalizer(t *testing.T) {
	r := faultfree.Replay(t, options(true))
	faultfree.NoWrite(t, r, "twowrites", "Event ", "/status")
	var cms corev1.ConfigMapList
	if err := r.Final.List(&cms, client.InNamespace("shop")); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		if len(cm.Finalizers) != 0 {
			t.Errorf("%s has finalizers %v", cm.Name, cm.Finalizers)
		}
	}
}
