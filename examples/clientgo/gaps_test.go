package clientgo_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestTheMirrorWritesNoStatusAndNoFinalizer(t *testing.T) {
	r := faultfree.Replay(t, options(false))
	faultfree.NoWrite(t, r, "mirror", "/status")
	var cms corev1.ConfigMapList
	var secrets corev1.SecretList
	for _, l := range []client.ObjectList{&cms, &secrets} {
		if err := r.Final.List(l, client.InNamespace("shop")); err != nil {
			t.Fatal(err)
		}
	}
	if len(secrets.Items) == 0 {
		t.Fatal("no mirror: the run is not the one the gap is about")
	}
	for _, o := range append(cms.Items, corev1.ConfigMap{ObjectMeta: secrets.Items[0].ObjectMeta}) {
		if len(o.Finalizers) != 0 {
			t.Errorf("%s has finalizers %v", o.Name, o.Finalizers)
		}
	}
}
