package v1

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
)

func TestAnUpdateIsValidatedAsACreateIs(t *testing.T) {
	ctx := context.Background()
	old := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello"},
		Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", ConcurrencyPolicy: batchv1.AllowConcurrent}}
	changed := old.DeepCopy()
	changed.Spec.Schedule = "0 3 * * *"
	changed.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
	changed.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "other", Image: "other:2"}}
	if _, err := (CronJobValidator{}).ValidateUpdate(ctx, old, changed); err != nil {
		t.Errorf("an update of the schedule, the policy and the Job template: %v, want allowed (no field is immutable)", err)
	}
	bad := old.DeepCopy()
	bad.Spec.Schedule = "every minute"
	_, create := (CronJobValidator{}).ValidateCreate(ctx, bad)
	_, update := (CronJobValidator{}).ValidateUpdate(ctx, old, bad)
	if create == nil || update == nil || create.Error() != update.Error() {
		t.Errorf("a malformed schedule: create %v, update %v; want the same refusal", create, update)
	}
}
