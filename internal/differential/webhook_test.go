package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// Admission webhooks against kube-apiserver: the same controller-runtime
// webhooks (a CustomDefaulter and a CustomValidator registered with
// ctrl.NewWebhookManagedBy) served from this test binary to envtest over
// TLS (envtest's WebhookInstallOptions) and called in-process by the
// apiserver model (package process), under the same configurations; every
// write's outcome compared: the patched object, a denial's code, reason,
// message and details, and the warnings the client receives.

// widgetWebhookManifests are the configurations as config/webhook/manifests.yaml
// holds them: the builder's paths, a mutating webhook for creates and
// updates, a validating one for creates, updates and deletes.
const widgetWebhookManifests = `apiVersion: admissionregistration.k8s.io/v1
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
  failurePolicy: Fail
  name: mwidget-v1.kb.io
  rules:
  - apiGroups: [test.ctrlsim.dev]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [widgets]
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /validate-test-ctrlsim-dev-v1-widget
  failurePolicy: Fail
  name: vwidget-v1.kb.io
  rules:
  - apiGroups: [test.ctrlsim.dev]
    apiVersions: [v1]
    operations: [CREATE, UPDATE, DELETE]
    resources: [widgets]
  sideEffects: None
`

// widgetAdmission defaults a Widget's color and tags, refuses a size above
// 10 (Invalid), a color "black" (a plain error) and the delete of a widget
// labelled protected (Forbidden), and warns about a size above 5.
type widgetAdmission struct{}

func (widgetAdmission) Default(_ context.Context, w *apiservertest.Widget) error {
	if w.Spec.Color == "" {
		w.Spec.Color = "red"
	}
	if w.Spec.Tags == nil {
		w.Spec.Tags = map[string]string{"defaulted": "yes"}
	}
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels["size-class"] = map[bool]string{true: "big", false: "small"}[w.Spec.Size > 5]
	return nil
}

func (widgetAdmission) check(w *apiservertest.Widget) (admission.Warnings, error) {
	var warnings admission.Warnings
	if w.Spec.Size > 5 {
		warnings = append(warnings, "a size above 5 is deprecated", "use two widgets")
	}
	switch {
	case w.Spec.Size > 10:
		return warnings, apierrors.NewInvalid(schema.GroupKind{Group: apiservertest.GroupVersion.Group, Kind: "Widget"}, w.Name,
			field.ErrorList{field.Invalid(field.NewPath("spec", "size"), w.Spec.Size, "must be at most 10")})
	case w.Spec.Color == "black":
		return warnings, errors.New("black widgets are not made")
	}
	return warnings, nil
}

func (h widgetAdmission) ValidateCreate(_ context.Context, w *apiservertest.Widget) (admission.Warnings, error) {
	return h.check(w)
}

func (h widgetAdmission) ValidateUpdate(_ context.Context, _, w *apiservertest.Widget) (admission.Warnings, error) {
	return h.check(w)
}

func (widgetAdmission) ValidateDelete(_ context.Context, w *apiservertest.Widget) (admission.Warnings, error) {
	if w.Labels["protected"] == "yes" {
		return admission.Warnings{"deleting a protected widget"}, apierrors.NewForbidden(schema.GroupResource{Group: apiservertest.GroupVersion.Group, Resource: "widgets"}, w.Name, errors.New("it is protected"))
	}
	return nil, nil
}

func setUpWidgetWebhooks(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &apiservertest.Widget{}).WithDefaulter(widgetAdmission{}).WithValidator(widgetAdmission{}).Complete()
}

// warningRecorder is a client's rest.WarningHandler: the warnings of the
// last request.
type warningRecorder struct {
	mu   sync.Mutex
	last []string
}

func (r *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = append(r.last, text)
}

func (r *warningRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.last
	r.last = nil
	return out
}

// webhookOutcome is one write: the stored spec and labels, or the error; and
// the warnings the client received.
type webhookOutcome struct {
	Spec     apiservertest.WidgetSpec
	Labels   map[string]string
	Error    *ErrorOutcome
	Warnings []string
}

func runWebhookSteps(t *testing.T, c client.Client, warnings *warningRecorder, ns string) []webhookOutcome {
	t.Helper()
	w := func(name string, size int, color string, labels map[string]string) *apiservertest.Widget {
		return &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Spec: apiservertest.WidgetSpec{Size: size, Color: color}}
	}
	get := func(name string) *apiservertest.Widget {
		got := &apiservertest.Widget{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, got); err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
		return got
	}
	steps := []func() (*apiservertest.Widget, error){
		func() (*apiservertest.Widget, error) { x := w("w1", 1, "", nil); return x, c.Create(ctx, x) },
		func() (*apiservertest.Widget, error) { x := w("w2", 7, "blue", nil); return x, c.Create(ctx, x) },
		func() (*apiservertest.Widget, error) { x := w("w3", 11, "", nil); return x, c.Create(ctx, x) },
		func() (*apiservertest.Widget, error) { x := w("w4", 1, "black", nil); return x, c.Create(ctx, x) },
		func() (*apiservertest.Widget, error) {
			x := get("w1")
			x.Spec.Size, x.Spec.Color = 6, ""
			return x, c.Update(ctx, x)
		},
		func() (*apiservertest.Widget, error) {
			x := get("w1")
			x.Spec.Size = 12
			return x, c.Update(ctx, x)
		},
		func() (*apiservertest.Widget, error) {
			x := get("w2")
			return x, c.Patch(ctx, x, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"color":null,"tags":null}}`)))
		},
		func() (*apiservertest.Widget, error) {
			x := w("p", 1, "", map[string]string{"protected": "yes"})
			return x, c.Create(ctx, x)
		},
		func() (*apiservertest.Widget, error) { x := get("p"); return nil, c.Delete(ctx, x) },
		func() (*apiservertest.Widget, error) { x := get("w2"); return nil, c.Delete(ctx, x) },
	}
	n := newNormaliser(nil, nil, Tolerances{})
	var out []webhookOutcome
	for _, step := range steps {
		x, err := step()
		o := webhookOutcome{Warnings: warnings.take()}
		switch {
		case err != nil:
			o.Error = n.error(err)
		case x != nil:
			o.Spec, o.Labels = x.Spec, x.Labels
		}
		out = append(out, o)
	}
	return out
}

func readWebhookManifests(t *testing.T) (*envtest.WebhookInstallOptions, []process.WebhookConfig) {
	t.Helper()
	configs, err := process.WebhookConfigsFromYAML([]byte(widgetWebhookManifests))
	if err != nil {
		t.Fatal(err)
	}
	opts := &envtest.WebhookInstallOptions{}
	for _, doc := range bytes.Split([]byte(widgetWebhookManifests), []byte("\n---\n")) {
		switch {
		case bytes.Contains(doc, []byte("kind: MutatingWebhookConfiguration")):
			var m admissionregistrationv1.MutatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &m); err != nil {
				t.Fatal(err)
			}
			opts.MutatingWebhooks = append(opts.MutatingWebhooks, &m)
		default:
			var v admissionregistrationv1.ValidatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &v); err != nil {
				t.Fatal(err)
			}
			opts.ValidatingWebhooks = append(opts.ValidatingWebhooks, &v)
		}
	}
	return opts, configs
}

// A defaulting and a validating webhook of controller-runtime, called by
// kube-apiserver over TLS and by the apiserver model in-process, give the
// same outcomes: the defaulted object (a JSON patch that adds fields and
// labels), a denial as Invalid (422) with its field cause, a plain error's
// denial (403 with the webhook's name), a Forbidden delete, and the
// warnings of allowed and denied requests.
func TestAdmissionWebhooksMatchKubeAPIServer(t *testing.T) {
	assets, err := assetsFromEnv()
	if err != nil {
		needReal(t) // skips, or fails under CI
		return
	}
	install, configs := readWebhookManifests(t)

	// kube-apiserver, calling the webhooks served by a manager of this binary.
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: Scheme, WebhookInstallOptions: *install}
	env.CRDs = append(env.CRDs, WidgetCRD())
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	wo := &env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir})})
	if err != nil {
		t.Fatal(err)
	}
	if err := setUpWidgetWebhooks(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(30 * time.Second)
	for mgr.GetWebhookServer().StartedChecker()(nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the webhook server did not start in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	realWarnings := &warningRecorder{}
	rcfg := rest.CopyConfig(cfg)
	rcfg.WarningHandlerWithContext = realWarnings
	realClient, err := client.New(rcfg, client.Options{Scheme: Scheme})
	if err != nil {
		t.Fatal(err)
	}

	// The model, calling the same webhooks registered on a process's manager.
	modelWarnings := &warningRecorder{}
	world, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: Scheme, CRDs: []apiserver.CRD{apiservertest.WidgetCRD}, Webhooks: configs,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error { return setUpWidgetWebhooks(p.Manager()) }}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer world.Close()
	world.RunFor(time.Second)
	modelClient := kubeclient.New(world.Server, apiserver.Admin, kubeclient.Options{WarningHandler: modelWarnings})

	ns := nextNames().Namespace("a")
	for _, c := range []client.Client{realClient, modelClient} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	want := runWebhookSteps(t, realClient, realWarnings, ns)
	got := runWebhookSteps(t, modelClient, modelWarnings, ns)
	for i := range want {
		slices.Sort(want[i].Warnings)
		slices.Sort(got[i].Warnings)
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("step %d: model (+) vs kube-apiserver (-):\n%s", i, d)
		}
	}
	for i, o := range want {
		b, _ := json.Marshal(o)
		t.Logf("step %d on kube-apiserver: %s", i, b)
	}
	if want[0].Spec.Color != "red" || want[2].Error == nil || want[2].Error.Code != 422 || len(want[1].Warnings) != 2 {
		t.Errorf("kube-apiserver: %+v: the cases do not test what they say", want)
	}
}
