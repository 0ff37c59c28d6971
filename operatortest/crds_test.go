package operatortest_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/operatortest"
)

// A seed object whose kind no CRD ever serves is not silently dropped: the
// run fails with one line naming it.
func TestASeedObjectOfAKindNeverServedFailsTheRun(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	db := &unstructured.Unstructured{}
	db.SetAPIVersion("example.com/v1alpha1")
	db.SetKind("Database")
	db.SetNamespace("apps")
	db.SetName("main")
	_, err := operatortest.Explore(t, operatortest.Options{
		Scheme:   s,
		Managers: []operatortest.Manager{{Name: "idle", Setup: func(manager.Manager) error { return nil }}},
		Objects:  []client.Object{db},
		Checks:   1,
	})
	if err == nil || !strings.Contains(err.Error(), "Objects [Database apps/main] were never created: no CRD served their kind") {
		t.Fatalf("Explore: %v, want the never-served seed named", err)
	}
}
