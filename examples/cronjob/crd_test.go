package cronjob_test

import (
	"context"
	"strings"
	"testing"
	"time"

	kbatch "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// The operator's CRD is served with its schema, as kube-apiserver serves it:
// concurrencyPolicy defaults to Allow, an unknown policy is refused, and the
// labels and annotations of jobTemplate.metadata are kept (controller-gen's
// crd:generateEmbeddedObjectMeta=true gives that metadata its properties; the
// tutorial's CRD, generated without it, prunes them: README.md, finding 3).
func TestTheCRDSchemaDefaultsValidatesAndKeepsTheTemplatesMetadata(t *testing.T) {
	world := cronjob.World(&plan.Plan{}, cronjob.Correct)
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
	cj.Spec.JobTemplate.Labels = map[string]string{"app": "hello"}
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
	if got.Spec.JobTemplate.Annotations["team"] != "batch" || got.Spec.JobTemplate.Labels["app"] != "hello" {
		t.Errorf("jobTemplate.metadata is %+v, want the annotation team=batch and the label app=hello kept", got.Spec.JobTemplate.ObjectMeta)
	}

	bad, _ := cronjob.NewCronJob(plan.Args{{Key: "policy", Value: "Sometimes"}})
	bad.ObjectMeta = metav1.ObjectMeta{Namespace: cronjob.Namespace, Name: "bad"}
	err = c.Admin().Create(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), "spec.concurrencyPolicy") {
		t.Errorf("a CronJob with concurrencyPolicy Sometimes: %v, want the schema's enum refusal", err)
	}
}

// The operator's webhooks, registered by its manager as a kubebuilder
// project's cmd/main.go registers them and configured by the manifests
// controller-gen generates from its markers, are called by the apiserver: a
// CronJob without history limits, policy or suspend gets the defaulter's
// values, a malformed schedule and a name too long for its Jobs are refused
// with the validator's messages, and while the manager is not serving (before
// it starts) a create fails as kube-apiserver fails it (failurePolicy Fail).
// Once running, the controller copies the template's labels and annotations
// to the Job it creates.
func TestTheWebhooksDefaultAndValidate(t *testing.T) {
	c, err := cluster.New(&plan.Plan{}, cronjob.World(&plan.Plan{}, cronjob.Correct))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	cj, err := cronjob.NewCronJob(nil)
	if err != nil {
		t.Fatal(err)
	}
	cj.Spec.JobTemplate.Annotations = map[string]string{"team": "batch"}
	cj.Spec.JobTemplate.Labels = map[string]string{"app": "hello"}
	err = c.Admin().Create(ctx, cj.DeepCopy())
	if want := `Internal error occurred: failed calling webhook "mcronjob-v1.batch.ctrlsim.dev": failed to call webhook: Post "https://webhook-service.system.svc:443/mutate-batch-ctrlsim-dev-v1-cronjob?timeout=10s": no endpoints available for service "webhook-service"`; err == nil || err.Error() != want {
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
	for _, bad := range []struct{ name, schedule, field string }{
		{"bad", "every minute", "spec.schedule"},
		{strings.Repeat("n", 53), "*/1 * * * *", "metadata.name"},
	} {
		cj, _ := cronjob.NewCronJob(plan.Args{{Key: "schedule", Value: bad.schedule}})
		cj.Name = bad.name
		err = c.Admin().Create(ctx, cj)
		want := `admission webhook "vcronjob-v1.batch.ctrlsim.dev" denied the request: CronJob.batch.ctrlsim.dev "` + bad.name + `" is invalid: ` + bad.field
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("a CronJob named %q scheduled %q: %v, want the validator's refusal %s...", bad.name, bad.schedule, err, want)
		}
	}
	// A name of 52 characters is allowed: its Jobs' names have 63.
	ok, _ := cronjob.NewCronJob(nil)
	ok.Name = strings.Repeat("n", 52)
	if err := c.Admin().Create(ctx, ok); err != nil {
		t.Errorf("a CronJob named with 52 characters: %v", err)
	}

	c.RunFor(time.Minute)
	var jobs kbatch.JobList
	if err := c.Admin().List(ctx, &jobs, client.InNamespace(cronjob.Namespace), client.MatchingLabels{"app": "hello"}); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) == 0 || jobs.Items[0].Annotations["team"] != "batch" {
		t.Fatalf("want the 00:01 Job of %s with the template's label and annotation, got %d Jobs: %+v", cj.Name, len(jobs.Items), jobs.Items)
	}
}
