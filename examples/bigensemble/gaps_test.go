package bigensemble_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/bigensemble"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestMembersAreObjectsOnly(t *testing.T) {
	r := faultfree.Replay(t, options(false))
	var pods corev1.PodList
	var sets appsv1.StatefulSetList
	for _, l := range []client.ObjectList{&pods, &sets} {
		if err := r.Final.List(l, client.InNamespace("db")); err != nil {
			t.Fatal(err)
		}
	}
	if len(pods.Items) != 0 || len(sets.Items) != 0 {
		t.Errorf("%d pods and %d StatefulSets, want none", len(pods.Items), len(sets.Items))
	}
	var e bigensemble.Ensemble
	if err := r.Final.Get(client.ObjectKey{Namespace: "db", Name: "zk"}, &e); err != nil {
		t.Fatal(err)
	}
	if e.Status.Members == 0 {
		t.Errorf("the Ensemble counts no member: the run is not the one the gap is about")
	}
}
