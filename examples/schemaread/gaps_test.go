package schemaread_test

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/schemaread"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

func TestAPathGoesThroughObjectsOnlyNotIntoAListsItems(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	ask := func(name, path string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{schemaread.QueryLabel: "true"}},
			Data: map[string]string{"group": "apps", "version": "v1", "kind": "Deployment", "path": path}}
	}
	queries := []client.Object{ask("containers", "spec.template.spec.containers"), ask("image", "spec.template.spec.containers.image")}
	r := faultfree.Replay(t, operatortest.Options{
		Scheme: s,
		Managers: []operatortest.Manager{{Name: "schema", Setup: func(mgr manager.Manager) error {
			return (&schemaread.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
		}}},
		Objects:  queries,
		Workload: operatortest.Workload{Steps: []operatortest.StepKind{}},
	})
	want := map[string]string{"containers": "array", "image": "unknown"}
	for name, typ := range want {
		var cm corev1.ConfigMap
		if err := r.Final.Get(client.ObjectKey{Namespace: "default", Name: name}, &cm); err != nil {
			t.Fatal(err)
		}
		if got := cm.Annotations[schemaread.TypeAnnotation]; got != typ {
			t.Errorf("%s (%s) is of type %q, want %q", name, cm.Data["path"], got, typ)
		}
	}
}
