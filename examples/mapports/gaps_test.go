package mapports_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestAPortThatIsNotANumberIsLeftOutWithoutAWord(t *testing.T) {
	o := options(true, true)
	cm := o.Objects[0].(*corev1.ConfigMap).DeepCopy()
	cm.Data["web"] = "eighty"
	o.Objects[0] = cm
	r := faultfree.Replay(t, o)
	faultfree.NoWrite(t, r, "mapports", "Event ", "/status")
	var svc corev1.Service
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "web"}, &svc); err != nil {
		t.Fatal(err)
	}
	if len(svc.Spec.Ports) != len(cm.Data)-1 {
		t.Errorf("the Service has %d ports for %d entries, one not a number; want that one left out", len(svc.Spec.Ports), len(cm.Data))
	}
	for _, p := range svc.Spec.Ports {
		if p.Name == "web" {
			t.Errorf("the port that is not a number is in the Service: %+v", p)
		}
	}
	if len(svc.Finalizers) != 0 {
		t.Errorf("the Service has finalizers %v", svc.Finalizers)
	}
}
