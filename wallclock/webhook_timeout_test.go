package wallclock_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// slowDefaulter sleeps for the duration a Widget's "sleep" label names, then
// defaults its color: a webhook that waits on something slow.
type slowDefaulter struct{}

func (slowDefaulter) Default(_ context.Context, w *apiservertest.Widget) error {
	if d, err := time.ParseDuration(w.Labels["sleep"]); err == nil {
		time.Sleep(d)
	}
	if w.Spec.Color == "" {
		w.Spec.Color = "red"
	}
	return nil
}

// timeoutWorld: process "hooks" serves slowDefaulter; process "writer"
// reconciles each ConfigMap by creating a Widget of its name whose sleep label
// is the ConfigMap's data.sleep, and records the outcome in data.result
// ("created color=<color>" or the error).
func timeoutWorld(configs []process.WebhookConfig, sleeps map[string]string) func() cluster.Options {
	return func() cluster.Options {
		return cluster.Options{
			Scheme: apiservertest.Scheme(), CRDs: []apiserver.CRD{apiservertest.WidgetCRD}, Webhooks: configs,
			Processes: []process.Spec{
				{Name: "hooks", Setup: func(p *process.Process) error {
					return ctrl.NewWebhookManagedBy(p.Manager(), &apiservertest.Widget{}).WithDefaulter(slowDefaulter{}).Complete()
				}},
				{Name: "writer", Setup: func(p *process.Process) error {
					c := p.Manager().GetClient()
					return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).
						Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
							cm := &corev1.ConfigMap{}
							if err := c.Get(ctx, req.NamespacedName, cm); err != nil || cm.Data["sleep"] == "" || cm.Data["result"] != "" {
								return reconcile.Result{}, client.IgnoreNotFound(err)
							}
							w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name,
								Labels: map[string]string{"sleep": cm.Data["sleep"]}}, Spec: apiservertest.WidgetSpec{Size: 1}}
							var result string
							if err := c.Create(ctx, w); err != nil {
								result = err.Error()
							} else {
								result = "created color=" + w.Spec.Color
							}
							cm.Data["result"] = result
							return reconcile.Result{}, c.Update(ctx, cm)
						}))
				}},
			},
			Setup: func(c *cluster.Cluster) error {
				for _, name := range slices.Sorted(maps.Keys(sleeps)) {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"sleep": sleeps[name]}}
					if err := c.Admin().Create(context.Background(), cm); err != nil {
						return err
					}
				}
				return nil
			},
		}
	}
}

// runTimeouts runs the world for a minute in a bubble (twice, checking the
// trace is the same) and returns each ConfigMap's result and the trace.
func runTimeouts(t *testing.T, configs []process.WebhookConfig, sleeps map[string]string) (map[string]string, []trace.Step) {
	t.Helper()
	results := map[string]string{}
	var steps []trace.Step
	p, err := plan.Parse("seed 3\n")
	if err != nil {
		t.Fatal(err)
	}
	err = wallclock.CheckDeterminism(t, p, timeoutWorld(configs, sleeps), func(c *cluster.Cluster) {
		c.RunFor(time.Minute)
		for name := range sleeps { // each read on its own
			cm := &corev1.ConfigMap{}
			if err := c.Get(client.ObjectKey{Namespace: "default", Name: name}, cm); err != nil {
				t.Fatal(err)
			}
			results[name] = cm.Data["result"]
		}
		steps = c.Trace.Steps()
	})
	if err != nil {
		t.Fatal(err)
	}
	return results, steps
}

// createTook is how long the writer's create of the Widget name took: from
// its read of the ConfigMap that asked for it (the reconcile's previous
// call) to the create's step (recorded once the response came).
func createTook(steps []trace.Step, name string) time.Duration {
	var read time.Duration = -1
	for _, s := range steps {
		if s.Process != "writer" {
			continue
		}
		if s.Object == "ConfigMap default/"+name && strings.Contains(s.Op, "get") {
			read = s.At
		}
		if s.Op == "create" && s.Object == "Widget default/"+name && read >= 0 {
			return s.At - read
		}
	}
	return -1
}

// A webhook handler that waits longer than the configuration's
// timeoutSeconds (10 s by default) fails the write as kube-apiserver's
// client gives up on it ("context deadline exceeded", an Internal error under
// failurePolicy Fail); one that answers in time passes. The handler's wait
// is the calling reconcile's, in virtual time.
func TestAWebhookThatOutlastsItsTimeoutFailsTheWriteDeterminism(t *testing.T) {
	results, steps := runTimeouts(t, nil, map[string]string{"quick": "2s", "slow": "15s"})
	if results["quick"] != "created color=red" {
		t.Errorf("a handler answering in 2s: %q, want the defaulted widget created", results["quick"])
	}
	want := `Internal error occurred: failed calling webhook "mwidget-v1.kb.io": failed to call webhook: Post "https://webhook-service.system.svc:443/mutate-test-ctrlsim-dev-v1-widget?timeout=10s": context deadline exceeded`
	if results["slow"] != want {
		t.Errorf("a handler taking 15s:\n got %q\nwant %q", results["slow"], want)
	}
	if took := createTook(steps, "quick"); took < 2*time.Second || took > 2*time.Second+100*time.Millisecond {
		t.Errorf("the create through a 2s handler took %v of virtual time, want 2s", took)
	}
}

// Under failurePolicy Ignore a timed-out webhook is skipped: the write goes
// on without its patch. timeoutSeconds is the configuration's.
func TestATimedOutWebhookWithFailurePolicyIgnoreIsSkippedDeterminism(t *testing.T) {
	configs, err := process.WebhookConfigsFromYAML([]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-test-ctrlsim-dev-v1-widget
  failurePolicy: Ignore
  timeoutSeconds: 3
  name: mwidget-v1.kb.io
  rules:
  - apiGroups: [test.ctrlsim.dev]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [widgets]
  sideEffects: None
`))
	if err != nil {
		t.Fatal(err)
	}
	results, steps := runTimeouts(t, configs, map[string]string{"quick": "2s", "slow": "5s"})
	if results["quick"] != "created color=red" || results["slow"] != "created color=" {
		t.Errorf("results %v: want quick defaulted (2s < 3s) and slow created without the webhook's patch", results)
	}
	failedOpen := false
	for _, s := range steps {
		if strings.HasPrefix(s.Op, "webhook ") && strings.HasSuffix(s.Object, "default/slow") && strings.Contains(s.Result, "failed open") && strings.Contains(s.Result, "context deadline exceeded") {
			failedOpen = true
		}
	}
	if !failedOpen {
		t.Error("no trace step says the slow webhook failed open on its deadline")
	}
}
