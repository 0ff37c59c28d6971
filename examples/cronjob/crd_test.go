package cronjob_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The tutorial's generated CRD is served with its schema, as kube-apiserver
// serves it: concurrencyPolicy defaults to Allow, an unknown policy is
// refused, and jobTemplate.metadata (a bare {type: object} in the schema) is
// pruned, so annotations a user puts there never reach the Jobs.
func TestTheCRDSchemaDefaultsValidatesAndPrunes(t *testing.T) {
	c, err := cluster.New(&plan.Plan{}, cronjob.World(&plan.Plan{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	cj, err := cronjob.NewCronJob(nil)
	if err != nil {
		t.Fatal(err)
	}
	cj.Spec.ConcurrencyPolicy = ""
	cj.Spec.JobTemplate.Annotations = map[string]string{"team": "batch"}
	if err := c.Admin().Create(ctx, cj); err != nil {
		t.Fatal(err)
	}
	got := &batchv1.CronJob{}
	if err := c.Get(client.ObjectKeyFromObject(cj), got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent {
		t.Errorf("concurrencyPolicy is %q, want the schema's default Allow", got.Spec.ConcurrencyPolicy)
	}
	if len(got.Spec.JobTemplate.Annotations) != 0 {
		t.Errorf("jobTemplate.metadata.annotations %v survived; the schema prunes them", got.Spec.JobTemplate.Annotations)
	}

	bad, _ := cronjob.NewCronJob(plan.Args{{Key: "policy", Value: "Sometimes"}})
	bad.ObjectMeta = metav1.ObjectMeta{Namespace: cronjob.Namespace, Name: "bad"}
	err = c.Admin().Create(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), "spec.concurrencyPolicy") {
		t.Errorf("a CronJob with concurrencyPolicy Sometimes: %v, want the schema's enum refusal", err)
	}
}
