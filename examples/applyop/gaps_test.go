package applyop_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/applyop"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestThePhaseIsAnAnnotationAndNoEventOrFinalizerIsWritten(t *testing.T) {
	r := faultfree.Replay(t, options(true))
	faultfree.NoWrite(t, r, "applyop", "Event ", "/status")
	var app corev1.ConfigMap
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "web"}, &app); err != nil {
		t.Fatal(err)
	}
	if app.Annotations[applyop.PhaseAnnotation] != "Ready" || len(app.Finalizers) != 0 {
		t.Errorf("the app's phase annotation is %q and its finalizers %v; want Ready and none", app.Annotations[applyop.PhaseAnnotation], app.Finalizers)
	}
}
