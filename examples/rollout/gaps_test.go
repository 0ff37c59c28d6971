package rollout_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/rollout"
)

func TestTheStatusIsAnAnnotationAndReplicasThatDoNotParseCountAsOne(t *testing.T) {
	o := options()
	if len(o.CRDs) != 0 {
		t.Fatalf("the operator has %d CRDs", len(o.CRDs))
	}
	app := app()
	app.Data["replicas"] = "three"
	o.Objects = []client.Object{app}
	o.Properties = nil
	r := faultfree.Replay(t, o)
	faultfree.NoWrite(t, r, "rollout", "Event ", "/status")
	var cm corev1.ConfigMap
	var d appsv1.Deployment
	if err := r.Final.Get(client.ObjectKeyFromObject(app), &cm); err != nil {
		t.Fatal(err)
	}
	if err := r.Final.Get(client.ObjectKeyFromObject(app), &d); err != nil {
		t.Fatal(err)
	}
	if cm.Annotations[rollout.StatusAnnotation] == "" || len(cm.Finalizers) != 0 {
		t.Errorf("the app's status annotation %q, finalizers %v; want a status, no finalizer", cm.Annotations[rollout.StatusAnnotation], cm.Finalizers)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("replicas %q became %v, want 1", app.Data["replicas"], d.Spec.Replicas)
	}
}
