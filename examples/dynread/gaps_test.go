package dynread_test

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/dynread"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

func TestACountIsMadeWhenItsInventoryChangesNotWhenTheObjectsDo(t *testing.T) {
	o := options(true)
	third := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "c"}}
	o.Workload = operatortest.Workload{Script: []operatortest.Step{operatortest.Create(20*time.Second, third)}}
	r := faultfree.Replay(t, o)
	var secrets corev1.SecretList
	if err := r.Final.List(&secrets, client.InNamespace("shop")); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "secrets"}, &cm); err != nil {
		t.Fatal(err)
	}
	if got := cm.Annotations[dynread.CountAnnotation]; len(secrets.Items) != 3 || got != "2" {
		t.Errorf("%d Secrets in shop and the inventory says %q; want 3 and the count made before the third, 2",
			len(secrets.Items), got)
	}
}
