package unobserved_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlsim/ctrlsim/examples/unobserved"
)

// A Probe whose probe failed is reconciled (on a fake client, no world): no
// Pod is started again and no Event is written.
func TestAFailedProbeIsNotRetriedAndNoEventIsWritten(t *testing.T) {
	p := probe()
	p.Status.Result = string(corev1.PodFailed)
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(p).WithStatusSubresource(p).Build()
	r := &unobserved.Reconciler{Client: c}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(p)}); err != nil {
		t.Fatal(err)
	}
	var pods corev1.PodList
	var events corev1.EventList
	for _, l := range []client.ObjectList{&pods, &events} {
		if err := c.List(context.Background(), l); err != nil {
			t.Fatal(err)
		}
	}
	if len(pods.Items) != 0 || len(events.Items) != 0 {
		t.Errorf("after a failed probe: %d pods and %d Events, want none", len(pods.Items), len(events.Items))
	}
}
