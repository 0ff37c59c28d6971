package recreate_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/recreate"
)

func TestNoStatefulSetNoStatusNoEventAndTheClaimsAreNeverBound(t *testing.T) {
	if _, ok := reflect.TypeOf(recreate.Cluster{}).FieldByName("Status"); ok {
		t.Fatal("a Cluster has a Status")
	}
	r := faultfree.Replay(t, options(false))
	faultfree.NoWrite(t, r, "op", "Event ", "/status", "StatefulSet ")
	var claims corev1.PersistentVolumeClaimList
	var sets appsv1.StatefulSetList
	for _, l := range []client.ObjectList{&claims, &sets} {
		if err := r.Final.List(l, client.InNamespace("db")); err != nil {
			t.Fatal(err)
		}
	}
	if len(claims.Items) == 0 || len(sets.Items) != 0 {
		t.Fatalf("%d claims and %d StatefulSets; want a claim and no StatefulSet", len(claims.Items), len(sets.Items))
	}
	for _, c := range claims.Items {
		if c.Status.Phase == corev1.ClaimBound || c.Spec.VolumeName != "" {
			t.Errorf("claim %s is bound", c.Name)
		}
	}
}
