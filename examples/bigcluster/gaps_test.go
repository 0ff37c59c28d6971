package bigcluster_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/bigcluster"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestMembersAreObjectsOnlyAndReadyWhenMade(t *testing.T) {
	r := faultfree.Replay(t, options(false))
	var pods corev1.PodList
	var sets appsv1.StatefulSetList
	var claims corev1.PersistentVolumeClaimList
	for _, l := range []client.ObjectList{&pods, &sets, &claims} {
		if err := r.Final.List(l, client.InNamespace("db")); err != nil {
			t.Fatal(err)
		}
	}
	if len(pods.Items) != 0 || len(sets.Items) != 0 {
		t.Errorf("%d pods and %d StatefulSets, want none", len(pods.Items), len(sets.Items))
	}
	var c bigcluster.Cluster
	if err := r.Final.Get(client.ObjectKey{Namespace: "db", Name: "main"}, &c); err != nil {
		t.Fatal(err)
	}
	if c.Status.ReadyMembers != 5 || len(claims.Items) != 5 {
		t.Errorf("%d members ready with %d claims and no pod; want 5 ready, their objects made", c.Status.ReadyMembers, len(claims.Items))
	}
}
