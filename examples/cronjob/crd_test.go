package cronjob_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// The tutorial's generated CRD is served with its schema, as kube-apiserver
// serves it: concurrencyPolicy defaults to Allow, an unknown policy is
// refused, and jobTemplate.metadata (a bare {type: object} in the schema) is
// pruned, so annotations a user puts there never reach the Jobs.
func TestTheCRDSchemaDefaultsValidatesAndPrunes(t *testing.T) {
	world := cronjob.World(&plan.Plan{})
	world.Webhooks = []process.WebhookConfig{} // the webhooks not installed: the schema alone
	c, err := cluster.New(&plan.Plan{}, world)
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

// The tutorial's own webhooks, registered by its manager as its cmd/main.go
// registers them and configured by its config/webhook/manifests.yaml, are
// called by the apiserver: a CronJob without history limits, policy or
// suspend gets the defaulter's values, a malformed schedule is refused with
// the validator's message, and while the manager is not serving (before it
// starts) a create fails as kube-apiserver fails it (failurePolicy Fail).
func TestTheTutorialsWebhooksDefaultAndValidate(t *testing.T) {
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
	err = c.Admin().Create(ctx, cj.DeepCopy())
	if want := `Internal error occurred: failed calling webhook "mcronjob-v1.kb.io": failed to call webhook: Post "https://webhook-service.system.svc:443/mutate-batch-tutorial-kubebuilder-io-v1-cronjob?timeout=10s": no endpoints available for service "webhook-service"`; err == nil || err.Error() != want {
		t.Errorf("create before the manager serves: %v\nwant %s", err, want)
	}
	c.RunFor(time.Second)
	if err := c.Admin().Create(ctx, cj); err != nil {
		t.Fatal(err)
	}
	s := cj.Spec
	if s.ConcurrencyPolicy != batchv1.AllowConcurrent || s.Suspend == nil || *s.Suspend || s.SuccessfulJobsHistoryLimit == nil || *s.SuccessfulJobsHistoryLimit != 3 ||
		s.FailedJobsHistoryLimit == nil || *s.FailedJobsHistoryLimit != 1 {
		t.Errorf("created spec %+v, want the defaulter's Allow, suspend false, limits 3 and 1", s)
	}
	bad, _ := cronjob.NewCronJob(plan.Args{{Key: "schedule", Value: "every minute"}})
	bad.Name = "bad"
	err = c.Admin().Create(ctx, bad)
	if err == nil || !strings.HasPrefix(err.Error(), `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.tutorial.kubebuilder.io "bad" is invalid: spec.schedule`) {
		t.Errorf("a CronJob scheduled %q: %v, want the tutorial's validator's refusal", bad.Spec.Schedule, err)
	}
}
