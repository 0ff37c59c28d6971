package verdict_test

import (
	"context"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

type labelDefaulter struct{}

func (labelDefaulter) Default(_ context.Context, cm *corev1.ConfigMap) error {
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["defaulted"] = "yes"
	return nil
}

// A user's write refused while the operator serving its webhook is down is
// applied again once it is back, as an applier retries: no converges
// violation blames the crash for it.
func TestAWriteRefusedByADownWebhookIsNoViolation(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	setup := o.Managers[0].Setup
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		if err := setup(mgr); err != nil {
			return err
		}
		return ctrl.NewWebhookManagedBy(mgr, &corev1.ConfigMap{}).WithDefaulter(labelDefaulter{}).Complete()
	}
	if v := optest.Judge(t, o, "seed 0\nat 3s mutate object=0 field=metadata.annotations op=set value={}\ncrash process=op at=2s\n"); len(v) != 0 {
		t.Errorf("violations %v", v)
	}
}
