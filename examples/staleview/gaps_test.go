package staleview_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlsim/ctrlsim/examples/staleview"
)

// A Migration whose run failed is reconciled (on a fake client, no world):
// no Pod is started again and no Event is written; its status has no
// conditions.
func TestAFailedRunIsNotRetriedAndNoEventOrConditionIsWritten(t *testing.T) {
	if _, ok := reflect.TypeOf(staleview.MigrationStatus{}).FieldByName("Conditions"); ok {
		t.Fatal("a Migration's status has conditions")
	}
	m := &staleview.Migration{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "add-index"},
		Spec: staleview.MigrationSpec{Image: "migrate:1.0"}, Status: staleview.MigrationStatus{Phase: string(corev1.PodFailed), Pod: "gone"}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(m).WithStatusSubresource(m).Build()
	r := &staleview.Reconciler{Client: c, APIReader: c}
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(m)}); err != nil {
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
		t.Errorf("after a failed run: %d pods and %d Events, want none", len(pods.Items), len(events.Items))
	}
}
