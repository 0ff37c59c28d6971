package scaledown_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestNoStatefulSetNoPodNoEventAndTheClaimsAreNeverBound(t *testing.T) {
	r := faultfree.Replay(t, options(false))
	faultfree.NoWrite(t, r, "op", "Event ", "StatefulSet ", "Pod ")
	var claims corev1.PersistentVolumeClaimList
	var sets appsv1.StatefulSetList
	var pods corev1.PodList
	for _, l := range []client.ObjectList{&claims, &sets, &pods} {
		if err := r.Final.List(l, client.InNamespace("db")); err != nil {
			t.Fatal(err)
		}
	}
	if len(claims.Items) == 0 || len(sets.Items) != 0 || len(pods.Items) != 0 {
		t.Fatalf("%d claims, %d StatefulSets and %d pods; want claims only", len(claims.Items), len(sets.Items), len(pods.Items))
	}
	for _, c := range claims.Items {
		if c.Status.Phase == corev1.ClaimBound || c.Spec.VolumeName != "" {
			t.Errorf("claim %s is bound", c.Name)
		}
	}
}
