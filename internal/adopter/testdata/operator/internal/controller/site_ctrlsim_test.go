package controller

import (
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/operatortest"

	webv1 "github.com/example/site-operator/api/v1"
)

// The operator's own ctrlsim tests: plain Go tests beside the ginkgo suite,
// in the same package.

func options(trustConfig bool) operatortest.Options {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(webv1.AddToScheme(scheme))
	return operatortest.Options{
		Scheme:   scheme,
		CRDFiles: []string{filepath.Join("..", "..", "config", "crd", "bases", "*.yaml")},
		Managers: []operatortest.Manager{{Name: "controller-manager", Setup: func(mgr manager.Manager) error {
			return (&SiteReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), TrustConfig: trustConfig}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&webv1.Site{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
			Spec:       webv1.SiteSpec{Domain: "shop.example.com", Replicas: 2},
		}},
	}
}

// The operator holds under faults (a small budget: a pre-commit check).
func TestSiteHoldsUnderFaults(t *testing.T) {
	o := options(false)
	o.Checks = 30
	operatortest.Run(t, o)
}

// The planted bug (a crash between the two creates leaves a ready Site
// without its Secret) is caught: the regression test of a known bug.
func TestSiteTrustingItsConfigIsCaught(t *testing.T) {
	o := options(true)
	o.Expect = operatortest.Converges
	o.Checks = 300
	operatortest.Run(t, o)
}
