package noopstatus_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/noopstatus"
)

func TestTheOperatorWritesNoFinalizerAndNoEvent(t *testing.T) {
	r := faultfree.Replay(t, options(false, false))
	faultfree.NoWrite(t, r, "op", "Event ")
	var app noopstatus.App
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "web"}, &app); err != nil {
		t.Fatal(err)
	}
	if len(app.Finalizers) != 0 || app.Status.Children == 0 {
		t.Errorf("the App's finalizers %v, status %+v; want none, and its children counted", app.Finalizers, app.Status)
	}
}
