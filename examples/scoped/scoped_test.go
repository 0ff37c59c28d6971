package scoped_test

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/scoped"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// options are the whole of what the operator's test gives: its scheme, its
// manager (its own Options, as main builds them, and SetupWithManager), an app
// ConfigMap in the watched namespace and the platform Secret.
func options(fixed bool, watchNamespace string) operatortest.Options {
	app := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{scoped.AppLabel: "yes"}}}
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "scoped",
			NewOptions: func() (manager.Options, error) { return scoped.Options(watchNamespace), nil },
			Setup: func(mgr manager.Manager) error {
				return scoped.New(mgr, fixed).SetupWithManager(mgr)
			}}},
		Objects: []client.Object{
			app,
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: scoped.PlatformNamespace, Name: scoped.SecretName},
				Data: map[string][]byte{".dockerconfigjson": []byte("{}")}},
		},
		// The user deletes and re-creates the app; the platform Secret is
		// the platform team's, installed with the operator.
		Workload: operatortest.Workload{Objects: []client.Object{app}},
		Checks:   50,
		Properties: []operatortest.Property{{Name: "app-has-secret", Check: func(h *operatortest.History) error {
			if err := h.Get(client.ObjectKeyFromObject(app), &corev1.ConfigMap{}); apierrors.IsNotFound(err) {
				return nil // the user deleted the app: no Secret is owed to it
			}
			var s corev1.Secret
			return h.Get(client.ObjectKey{Namespace: "shop", Name: scoped.SecretName}, &s)
		}}},
	}
}

// Scoped to namespace shop, the fixed operator holds under every generic
// oracle and its app gets the Secret.
func TestTheFixedScopedOperatorHolds(t *testing.T) {
	operatortest.Run(t, options(true, "shop"))
}

// The buggy operator passes cluster-wide (its cache holds every namespace)...
func TestTheBuggyOperatorHoldsClusterWide(t *testing.T) {
	operatortest.Run(t, options(false, ""))
}

// ...and, scoped through Cache.DefaultNamespaces, fails at once, with no
// fault at all (plan 0): its read of the platform Secret goes to a cache that
// does not hold that namespace.
func TestTheBuggyScopedOperatorIsCaught(t *testing.T) {
	res, err := operatortest.Explore(t, options(false, "shop"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || len(res.Findings) == 0 || !res.Findings[0].NoFault || res.FirstFailure != 0 {
		t.Fatalf("the buggy scoped operator: %+v, want caught with no fault at all (plan 0)", res)
	}
	found := false
	for _, v := range res.Violations {
		found = found || (v.Property == operatortest.NoErrorAtRest && strings.Contains(v.Detail, "unknown namespace for the cache"))
	}
	if !found {
		t.Errorf("violations %v, want no-error-at-rest naming the unknown namespace", res.Violations)
	}
}

// The buggy scoped operator's report (minimal plan, replay command, timeline).
func TestTheBuggyScopedOperator(t *testing.T) {
	if os.Getenv("CTRLSIM_SCOPED") == "" {
		t.Skip("fails on purpose; CTRLSIM_SCOPED=1 to see its report")
	}
	operatortest.Run(t, options(false, "shop"))
}
