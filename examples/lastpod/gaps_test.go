package lastpod_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/lastpod"
)

func TestPodsHaveNoVolumesAndThePoolNoStatus(t *testing.T) {
	if _, ok := reflect.TypeOf(lastpod.Pool{}).FieldByName("Status"); ok {
		t.Fatal("a Pool has a Status")
	}
	r := faultfree.Replay(t, options(false))
	faultfree.NoWrite(t, r, "op", "/status")
	var pods corev1.PodList
	if err := r.Final.List(&pods, client.InNamespace("db")); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) == 0 {
		t.Fatal("no pod: the run is not the one the gap is about")
	}
	for _, p := range pods.Items {
		if len(p.Spec.Volumes) != 0 || p.Spec.Containers[0].ReadinessProbe != nil {
			t.Errorf("pod %s has volumes %v or a readiness probe", p.Name, p.Spec.Volumes)
		}
	}
}
