package schemaread_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/schemaread"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// query asks for the type of a Deployment's spec.replicas.
func query() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "replicas", Labels: map[string]string{schemaread.QueryLabel: "true"}},
		Data: map[string]string{"group": "apps", "version": "v1", "kind": "Deployment", "path": "spec.replicas"}}
}

// answered: at rest the query, unless the user deleted it, says "integer".
var answered = operatortest.Property{Name: "query-answered", Check: func(h *operatortest.History) error {
	var cm corev1.ConfigMap
	if err := h.Get(client.ObjectKeyFromObject(query()), &cm); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if got := cm.Annotations[schemaread.TypeAnnotation]; got != "integer" {
		return fmt.Errorf("the query says %q, want integer (the Deployment schema's spec.replicas)", got)
	}
	return nil
}}

// The operator runs unchanged: its discovery client reads the Deployment's
// schema from the OpenAPI v3 document, in every plan.
func TestAnOperatorReadsADeploymentsSchemaThroughDiscovery(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	operatortest.Run(t, operatortest.Options{
		Scheme: s,
		Managers: []operatortest.Manager{{Name: "schema", Setup: func(mgr manager.Manager) error {
			return (&schemaread.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
		}}},
		Objects:    []client.Object{query()},
		Workload:   operatortest.Workload{Objects: []client.Object{query()}},
		Properties: []operatortest.Property{answered},
		Checks:     10,
	})
}
