package operatortest_test

import (
	"context"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
)

// A test written against the client-go helpers' old names (before they
// moved to operatortest/clientgo) still compiles, and the old names are
// the new ones: ClientGo is clientgo.Env, so a start written for either is
// given the same Env.
func TestTheClientGoHelpersOldNamesStillCompile(t *testing.T) {
	var setup func(func(context.Context, operatortest.ClientGo) error) func(manager.Manager) error = operatortest.ClientGoSetup
	var queue func(operatortest.ClientGo, workqueue.TypedRateLimiter[string]) (workqueue.TypedRateLimitingInterface[string], error) = operatortest.ClientGoQueue[string]
	var env clientgo.Env = operatortest.ClientGo{Clientset: kubernetes.Interface(nil)}
	if setup == nil || queue == nil || env.Clientset != nil {
		t.Fatal("the old names are not the new ones")
	}
}
