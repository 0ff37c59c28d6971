package banner_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/banner"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

func TestTheOperatorWritesNoEventAndNoCondition(t *testing.T) {
	if _, ok := reflect.TypeOf(banner.BannerStatus{}).FieldByName("Conditions"); ok {
		t.Fatal("a Banner's status has conditions")
	}
	r := faultfree.Replay(t, operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{banner.CRD},
		Managers: []operatortest.Manager{{Name: "banner", Setup: func(mgr manager.Manager) error {
			return (&banner.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&banner.BannerV1alpha1{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "sale"},
			Spec: banner.BannerV1alpha1Spec{Text: "everything\nmust go"}}},
	})
	if v := r.Violated(); len(v) != 0 {
		t.Fatalf("the fault-free run violates %v", v)
	}
	faultfree.NoWrite(t, r, "banner", "Event ")
}
