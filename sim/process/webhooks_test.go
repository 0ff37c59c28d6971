package process_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// widgetHooks default a Widget's color to red and refuse a size above 10,
// as a kubebuilder webhook does.
type widgetHooks struct{ deletes, dryRuns int }

func (widgetHooks) Default(_ context.Context, w *apiservertest.Widget) error {
	if w.Spec.Color == "" {
		w.Spec.Color = "red"
	}
	return nil
}

func (widgetHooks) check(w *apiservertest.Widget) error {
	if w.Spec.Size > 10 {
		return apierrors.NewInvalid(schema.GroupKind{Group: "test.ctrlsim.dev", Kind: "Widget"}, w.Name,
			field.ErrorList{field.Invalid(field.NewPath("spec", "size"), w.Spec.Size, "must be at most 10")})
	}
	return nil
}

func (h *widgetHooks) ValidateCreate(ctx context.Context, w *apiservertest.Widget) (admission.Warnings, error) {
	if req, err := admission.RequestFromContext(ctx); err == nil && req.DryRun != nil && *req.DryRun {
		h.dryRuns++
	}
	return nil, h.check(w)
}

func (h widgetHooks) ValidateUpdate(_ context.Context, _, w *apiservertest.Widget) (admission.Warnings, error) {
	return nil, h.check(w)
}

func (h *widgetHooks) ValidateDelete(_ context.Context, w *apiservertest.Widget) (admission.Warnings, error) {
	h.deletes++
	if w.Labels["protected"] == "yes" {
		return nil, apierrors.NewForbidden(schema.GroupResource{Group: "test.ctrlsim.dev", Resource: "widgets"}, w.Name, errDeleteProtected)
	}
	return nil, nil
}

var errDeleteProtected = errorString("protected")

type errorString string

func (e errorString) Error() string { return string(e) }

func webhookWorld(t *testing.T, configs []process.WebhookConfig, hooks *widgetHooks) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme:   apiservertest.Scheme(),
		CRDs:     []apiserver.CRD{apiservertest.WidgetCRD},
		Webhooks: configs,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewWebhookManagedBy(p.Manager(), &apiservertest.Widget{}).WithDefaulter(hooks).WithValidator(hooks).Complete()
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(time.Second) // the process starts and registers its webhooks
	return c
}

func widget(name string, size int) *apiservertest.Widget {
	return &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: apiservertest.WidgetSpec{Size: size}}
}

// Webhooks registered on the manager through controller-runtime's builder are
// called by the apiserver model, mutating then validating, through
// controller-runtime's own admission handlers; their configuration is
// kubebuilder's scaffold (CREATE and UPDATE, failurePolicy Fail) when the
// world gives none.
func TestRegisteredWebhooksDefaultAndValidateWrites(t *testing.T) {
	c := webhookWorld(t, nil, &widgetHooks{})
	w := widget("w", 1)
	if err := c.Admin().Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if w.Spec.Color != "red" {
		t.Errorf("created color %q, want the defaulter's red", w.Spec.Color)
	}
	err := c.Admin().Create(ctx, widget("big", 11))
	want := `admission webhook "vwidget-v1.kb.io" denied the request: Widget.test.ctrlsim.dev "big" is invalid: spec.size: Invalid value: 11: must be at most 10`
	if err == nil || err.Error() != want || !apierrors.IsInvalid(err) {
		t.Errorf("create of size 11: %v, want %q (422)", err, want)
	}
	w.Spec.Size, w.Spec.Color = 12, ""
	if err := c.Admin().Update(ctx, w); err == nil || !strings.Contains(err.Error(), "denied the request") {
		t.Errorf("update to size 12: %v, want denied", err)
	}
	var steps []string
	for _, s := range c.Trace.Steps() {
		if strings.HasPrefix(s.Op, "webhook") {
			steps = append(steps, s.Process+" "+s.Op+" "+s.Object+" -> "+s.Result)
		}
	}
	if len(steps) != 6 || steps[0] != "op webhook mwidget-v1.kb.io CREATE Widget default/w -> allowed, patched add /spec/color" {
		t.Errorf("webhook steps:\n%s", strings.Join(steps, "\n"))
	}
}

// While the process serving the webhooks is down, a write fails as
// kube-apiserver's does with failurePolicy Fail, and goes on without the
// webhook with Ignore.
func TestWebhooksOfADownProcessFollowTheirFailurePolicy(t *testing.T) {
	c := webhookWorld(t, nil, &widgetHooks{})
	c.Process("op").Crash("test")
	err := c.Admin().Create(ctx, widget("w", 1))
	want := `Internal error occurred: failed calling webhook "mwidget-v1.kb.io": failed to call webhook: Post "https://webhook-service.system.svc:443/mutate-test-ctrlsim-dev-v1-widget?timeout=10s": no endpoints available for service "webhook-service"`
	if err == nil || err.Error() != want || !apierrors.IsInternalError(err) {
		t.Errorf("create while the webhook's process is down: %v\nwant %s", err, want)
	}
	c.RunFor(time.Minute) // restarted (CrashLoopBackOff 10s)
	if err := c.Admin().Create(ctx, widget("w", 1)); err != nil {
		t.Errorf("create once the process is back: %v", err)
	}

	configs, err := process.WebhookConfigsFromYAML([]byte(widgetManifests("Ignore")))
	if err != nil {
		t.Fatal(err)
	}
	c = webhookWorld(t, configs, &widgetHooks{})
	c.Process("op").Crash("test")
	w := widget("w", 11)
	if err := c.Admin().Create(ctx, w); err != nil {
		t.Fatalf("failurePolicy Ignore: %v", err)
	}
	if w.Spec.Color != "" {
		t.Errorf("color %q: the webhook was not called, nothing defaults it", w.Spec.Color)
	}
}

// With configurations given (config/webhook/manifests.yaml), only the
// operations their rules name are sent: here DELETE, which the scaffold
// leaves out.
func TestWebhookConfigurationsChooseTheOperations(t *testing.T) {
	configs, err := process.WebhookConfigsFromYAML([]byte(widgetManifests("Fail")))
	if err != nil {
		t.Fatal(err)
	}
	hooks := &widgetHooks{}
	c := webhookWorld(t, configs, hooks)
	w := widget("w", 1)
	w.Labels = map[string]string{"protected": "yes"}
	if err := c.Admin().Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if w.Spec.Color != "" {
		t.Errorf("color %q: the manifest has no mutating webhook", w.Spec.Color)
	}
	err = c.Admin().Delete(ctx, w)
	if err == nil || !strings.Contains(err.Error(), `admission webhook "vwidget.example.com" denied the request`) || hooks.deletes != 1 {
		t.Errorf("delete of a protected widget: %v (ValidateDelete called %d times)", err, hooks.deletes)
	}
	if err := c.Get(client.ObjectKeyFromObject(w), &apiservertest.Widget{}); err != nil {
		t.Errorf("the refused delete deleted: %v", err)
	}
}

func widgetManifests(policy string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: widget-webhooks
      namespace: widget-system
      path: /validate-test-ctrlsim-dev-v1-widget
  failurePolicy: ` + policy + `
  name: vwidget.example.com
  rules:
  - apiGroups: [test.ctrlsim.dev]
    apiVersions: [v1]
    operations: [CREATE, UPDATE, DELETE]
    resources: [widgets]
  sideEffects: None
`
}

// A dry-run write calls the webhooks whose sideEffects are None or
// NoneOnDryRun, and tells them it is one (AdmissionRequest.dryRun); one
// that reaches a webhook with other sideEffects fails with kube-apiserver's
// 400, whatever the failure policy, and the webhook is not called.
func TestADryRunCallsOnlyWebhooksWithoutSideEffects(t *testing.T) {
	for _, c := range []struct{ sideEffects, want string }{
		{"None", `admission webhook "vwidget.example.com" denied the request: Widget.test.ctrlsim.dev "big" is invalid: spec.size: Invalid value: 11: must be at most 10`},
		{"NoneOnDryRun", `admission webhook "vwidget.example.com" denied the request: Widget.test.ctrlsim.dev "big" is invalid: spec.size: Invalid value: 11: must be at most 10`},
		{"Some", `admission webhook "vwidget.example.com" does not support dry run`},
	} {
		t.Run(c.sideEffects, func(t *testing.T) {
			configs, err := process.WebhookConfigsFromYAML([]byte(strings.Replace(widgetManifests("Ignore"), "sideEffects: None", "sideEffects: "+c.sideEffects, 1)))
			if err != nil {
				t.Fatal(err)
			}
			hooks := &widgetHooks{}
			cl := webhookWorld(t, configs, hooks)
			err = cl.Admin().Create(ctx, widget("big", 11), client.DryRunAll)
			if err == nil || err.Error() != c.want {
				t.Errorf("a dry-run create of size 11: %v, want %q", err, c.want)
			}
			called := 0
			for _, s := range cl.Trace.Steps() {
				if strings.HasPrefix(s.Op, "webhook") {
					called++
				}
			}
			if want := map[bool]int{true: 0, false: 1}[c.sideEffects == "Some"]; called != want || hooks.dryRuns != want {
				t.Errorf("the webhook was called %d times, %d of them told it was a dry run, want %d", called, hooks.dryRuns, want)
			}
		})
	}
}
